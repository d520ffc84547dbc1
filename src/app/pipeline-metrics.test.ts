import assert from "node:assert/strict";
import { execFile, spawn } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { freePort, waitReady } from "../sinks/fault-proxy.case.js";
import { killChild } from "../testing/peers/peer.js";
import { type ServerProcess, startServer } from "../testing/server-process.js";

// Lookout's own metrics (docs/metrics.md) against the real binary: their values follow what was
// done, the Grafana dashboard in examples/ uses no metric the server does not export, and the real
// Prometheus 2.42 scrapes the exposition and evaluates every query of the dashboard.

const run = promisify(execFile);
const DASHBOARD = fileURLToPath(new URL("../../../examples/grafana-lookout.json", import.meta.url));
const PASSIVE = `check: {type: "passive", freshness_threshold: "1h", max_attempts: 1}`;
const CONFIG = `hosts: {
	web: {
		address: "127.0.0.1"
		${PASSIVE}
		services: {
			http: ${PASSIVE}
			disk: ${PASSIVE}
		}
	}
	gw: {address: "127.0.0.1", ${PASSIVE}}
}
`;
const CMD = "/svc.v1.CommandService/";

let dir: string;
let fifo: string;
let srv: ServerProcess;
before(async () => {
  dir = await mkdtemp(join(tmpdir(), "lookout-metrics-"));
  fifo = join(dir, "lookout.cmd");
  await writeFile(join(dir, "c.cue"), CONFIG);
  srv = await startServer([
    "-config",
    join(dir, "c.cue"),
    "-command-file",
    fifo,
    "-data-dir",
    join(dir, "data"),
  ]);
});
after(async () => {
  const code = await srv.stop();
  if (code !== 0) console.error(srv.stderr());
  assert.equal(code, 0);
  await rm(dir, { recursive: true, force: true });
});

async function post(rpc: string, body: unknown): Promise<{ status: number; body: { code?: string } }> {
  const res = await fetch(srv.url + CMD + rpc, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as { code?: string } };
}

/** The samples of /metrics by series (`name{labels}` as exposed) and the metric families by name. */
async function scrape(): Promise<{ samples: Map<string, number>; families: Map<string, string> }> {
  const text = await (await fetch(`${srv.url}/metrics`)).text();
  const samples = new Map<string, number>();
  const families = new Map<string, string>();
  for (const line of text.split("\n")) {
    const type = /^# TYPE (\S+) (\S+)$/.exec(line);
    if (type !== null) families.set(type[1] as string, type[2] as string);
    if (line === "" || line.startsWith("#")) continue;
    const at = line.lastIndexOf(" ");
    samples.set(line.slice(0, at), Number(line.slice(at + 1)));
  }
  return { samples, families };
}

/** Polls until `ok` holds of a scrape. */
async function until(what: string, ok: (s: Map<string, number>) => boolean): Promise<Map<string, number>> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const { samples } = await scrape();
    if (ok(samples)) return samples;
    if (Date.now() > deadline) {
      assert.fail(`${what}: ${JSON.stringify([...samples].filter(([k]) => k.startsWith("lookout_")))}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}

const commands = (source: string, type: string, result: string) =>
  `lookout_commands_total{source="${source}",type="${type}",result="${result}"}`;
const objects = (kind: string, state: string, type: string) =>
  `lookout_objects{kind="${kind}",state="${state}",state_type="${type}"}`;

describe("Lookout's own metrics", () => {
  test("follow what was done: commands accepted and refused, command-file lines, objects by state", async () => {
    const results = await post("ProcessCheckResults", {
      results: [
        { host: "web", service: "http", exitStatus: 2, output: "CRITICAL" },
        { host: "web", service: "disk", exitStatus: 0, output: "OK" },
        { host: "web", exitStatus: 0, output: "UP" },
      ],
    });
    assert.equal(results.status, 200);
    await until("the results applied", (s) => s.get(objects("service", "critical", "hard")) === 1);
    await until("all three", (s) => s.get(objects("host", "up", "hard")) === 1);
    // Refused at once: no problem on web!disk; a selector that matches nothing.
    assert.equal(
      (await post("AcknowledgeProblem", { target: { object: { host: "web", service: "disk" } } })).body.code,
      "failed_precondition",
    );
    const nowhere = { selector: "env=nowhere" };
    const hour = { start: new Date().toISOString(), end: new Date(Date.now() + 3_600_000).toISOString() };
    assert.equal((await post("ScheduleDowntime", { target: nowhere, ...hour })).body.code, "not_found");
    // Accepted.
    assert.equal(
      (await post("AcknowledgeProblem", { target: { object: { host: "web", service: "http" } } })).status,
      200,
    );
    await until("web!http acknowledged", (s) => s.get('lookout_objects_acknowledged{kind="service"}') === 1);

    // A line's time is whole seconds, and a result older than the object's last one is ignored:
    // past the second of the results above.
    await new Promise((r) => setTimeout(r, 1100));
    const now = Math.floor(Date.now() / 1000);
    const lines = [
      `[${now}] PROCESS_SERVICE_CHECK_RESULT;web;disk;1;WARNING`,
      "garbage",
      `[${now}] REMOVE_HOST_ACKNOWLEDGEMENT;gw`,
      `[${now}] PROCESS_HOST_CHECK_RESULT;nope;0;UP`,
    ];
    const script = lines.map((l) => `printf '%s\\n' '${l}' > "$1"`).join("\n");
    await run("sh", ["-c", script, "sh", fifo]);
    const line = (result: string) => `lookout_command_file_lines_total{result="${result}"}`;
    const s = await until(
      "the lines read, web!disk WARNING",
      (m) =>
        ["accepted", "unparsable", "failed_precondition", "not_found"].every((r) => m.get(line(r)) === 1) &&
        m.get(objects("service", "warning", "hard")) === 1,
    );
    // A result and a removal in one write: the removal is judged by the engine (the result for
    // the same object is not visible yet), which refuses it (the recovery removed the ack).
    await run("sh", [
      "-c",
      `printf '%s\\n%s\\n' '[${now}] PROCESS_SERVICE_CHECK_RESULT;web;http;0;OK' '[${now}] REMOVE_SVC_ACKNOWLEDGEMENT;web;http' > "$1"`,
      "sh",
      fifo,
    ]);
    const rejected = await until(
      "the removal refused by the engine",
      (m) => m.get('lookout_commands_rejected_total{type="RemoveAcknowledgement"}') === 1,
    );
    assert.equal(rejected.get(commands("command_file", "RemoveAcknowledgement", "accepted")), 1);
    assert.equal(rejected.get(line("accepted")), 3);
    const want: [string, number][] = [
      [commands("api", "ProcessCheckResult", "accepted"), 3],
      [commands("api", "AcknowledgeProblem", "refused"), 1],
      [commands("api", "AcknowledgeProblem", "accepted"), 1],
      [commands("api", "ScheduleDowntime", "refused"), 1],
      [commands("command_file", "ProcessCheckResult", "accepted"), 1],
      [commands("command_file", "RemoveAcknowledgement", "refused"), 1],
      [commands("command_file", "ProcessCheckResult", "refused"), 1],
      [line("too_long"), 0],
      [line("invalid"), 0],
      [objects("host", "up", "hard"), 1],
      [objects("host", "pending", "hard"), 1],
      [objects("service", "critical", "hard"), 1],
      [objects("service", "warning", "hard"), 1],
      [objects("service", "ok", "hard"), 0],
      ['lookout_objects_acknowledged{kind="service"}', 1],
      ['lookout_objects_in_downtime{kind="service"}', 0],
      ['lookout_problems{kind="service",handled="true"}', 1],
      ['lookout_problems{kind="service",handled="false"}', 1],
      ['lookout_problems{kind="host",handled="false"}', 0],
    ];
    for (const [series, n] of want) assert.equal(s.get(series), n, series);
    // Every accepted submission waited for a commit; the log holds their events.
    assert.ok((s.get("lookout_log_commit_seconds_count") ?? 0) >= 3, "commits observed");
    assert.ok((s.get("lookout_log_events_total") ?? 0) >= 5, "events counted");
    assert.ok((s.get("lookout_log_size_bytes") ?? 0) > 4096, "the log's size on disk");
    await until("the queue drained", (m) => m.get("lookout_command_queue_depth") === 0);
  });

  test("the Grafana dashboard in examples/ uses only metrics the server exports", async () => {
    const dashboard = JSON.parse(await readFile(DASHBOARD, "utf8")) as Dashboard;
    const { families } = await scrape();
    const used = new Set<string>();
    for (const q of queries(dashboard)) for (const m of q.matchAll(/\blookout_[a-z_]+/g)) used.add(m[0]);
    assert.ok(used.size >= 20, `the dashboard's metrics: ${[...used]}`);
    for (const name of used) {
      const base = name.replace(/_(bucket|sum|count)$/, "");
      const family = families.has(name) ? name : base;
      assert.ok(families.has(family), `${name} is not exported`);
      if (name !== family)
        assert.equal(families.get(family), "histogram", `${name}: ${family} is a histogram`);
    }
    // Grafana's placeholder for the data source chosen at import.
    const ds = ["$", "{DS_PROMETHEUS}"].join("");
    for (const p of dashboard.panels.filter((x) => x.type !== "row")) {
      assert.equal(p.datasource?.uid, ds, `panel ${p.title}'s data source`);
      for (const t of p.targets ?? []) assert.equal(t.datasource?.uid, ds, p.title);
    }
  });

  test("the real Prometheus 2.42 scrapes /metrics and evaluates every query of the dashboard", async () => {
    const prom = await startScrapingPrometheus(srv.port);
    try {
      await until2("the target up", async () => {
        const r = (await (await fetch(`${prom.url}/api/v1/targets`)).json()) as Targets;
        const t = r.data.activeTargets[0];
        return t?.health === "up" && t.lastError === "" ? true : `${JSON.stringify(t)}`;
      });
      const dashboard = JSON.parse(await readFile(DASHBOARD, "utf8")) as Dashboard;
      for (const q of queries(dashboard)) {
        if (q.startsWith("label_values(")) continue;
        const expr = q.replaceAll("$__rate_interval", "1m").replaceAll("$job", ".*");
        const r = (await (
          await fetch(`${prom.url}/api/v1/query?query=${encodeURIComponent(expr)}`)
        ).json()) as {
          status: string;
          error?: string;
        };
        assert.equal(r.status, "success", `${expr}: ${r.error}`);
      }
      // What Prometheus stored is what the server counted (web!disk is WARNING).
      const r = (await (
        await fetch(
          `${prom.url}/api/v1/query?query=${encodeURIComponent('lookout_objects{kind="service",state="warning",state_type="hard"}')}`,
        )
      ).json()) as { data: { result: { metric: Record<string, string>; value: [number, string] }[] } };
      assert.equal(r.data.result[0]?.value[1], "1");
      assert.equal(r.data.result[0]?.metric.job, "lookout");
    } finally {
      await prom.stop();
    }
  });
});

interface Target {
  readonly datasource?: { readonly uid?: string };
  readonly expr: string;
}
interface Dashboard {
  readonly panels: {
    readonly type: string;
    readonly title: string;
    readonly datasource?: { uid?: string };
    readonly targets?: Target[];
  }[];
  readonly templating: { readonly list: { readonly query?: unknown }[] };
}
interface Targets {
  data: { activeTargets: { health: string; lastError: string }[] };
}

/** Every PromQL expression of a dashboard: its panels' targets and its variables' queries. */
function queries(d: Dashboard): string[] {
  const out = d.panels.flatMap((p) => (p.targets ?? []).map((t) => t.expr));
  for (const v of d.templating.list) {
    const q = v.query;
    if (typeof q === "object" && q !== null && typeof (q as { query?: unknown }).query === "string") {
      out.push((q as { query: string }).query);
    }
  }
  return out;
}

async function until2(what: string, check: () => Promise<true | string>): Promise<void> {
  const deadline = Date.now() + 60_000;
  let last: true | string = "";
  for (;;) {
    try {
      last = await check();
      if (last === true) return;
    } catch (e) {
      last = String(e);
    }
    if (Date.now() > deadline) assert.fail(`${what}: ${last}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** Debian's Prometheus on a loopback port, scraping the server's /metrics every second as job "lookout". */
async function startScrapingPrometheus(target: number): Promise<{ url: string; stop(): Promise<void> }> {
  const home = await mkdtemp(join(tmpdir(), "lookout-prom-scrape-"));
  const port = await freePort();
  await writeFile(
    join(home, "prometheus.yml"),
    `global:\n  scrape_interval: 1s\nscrape_configs:\n  - job_name: lookout\n    static_configs:\n      - targets: ["127.0.0.1:${target}"]\n`,
  );
  const child = spawn(
    "prometheus",
    [
      `--config.file=${join(home, "prometheus.yml")}`,
      `--storage.tsdb.path=${join(home, "data")}`,
      `--web.listen-address=127.0.0.1:${port}`,
      "--log.level=error",
    ],
    { stdio: "ignore" },
  );
  const url = `http://127.0.0.1:${port}`;
  await waitReady(`${url}/-/ready`, 60_000);
  return {
    url,
    async stop() {
      await killChild(child);
      await rm(home, { recursive: true, force: true });
    },
  };
}
