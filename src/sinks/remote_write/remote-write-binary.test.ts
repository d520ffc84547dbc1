/**
 * The scenario in the real binary against the real Prometheus: one ProcessCheckResults call
 * without check times for several results of one object (so all have the same time), while an active
 * check writes points of its own, through a remote_write sink whose small batches spread the results
 * over more than one request. Every point must be in Prometheus and none dropped.
 */
import assert from "node:assert/strict";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { type ServerProcess, startServer } from "../../testing/server-process.js";
import { type Prometheus, startPrometheus } from "./prometheus.case.js";

const RESULTS = "/svc.v1.CommandService/ProcessCheckResults";
const LIST_SINKS = "/svc.v1.QueryService/ListSinks";

async function post(url: string, body: unknown): Promise<unknown> {
  const r = await fetch(url, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify(body),
  });
  const text = await r.text();
  assert.equal(r.status, 200, text);
  return JSON.parse(text);
}

async function until<T>(what: string, get: () => Promise<T>, ok: (v: T) => boolean, ms = 60_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await get();
    if (ok(v)) return v;
    if (Date.now() > end)
      throw new Error(`timed out waiting for ${what}: ${JSON.stringify(v).slice(0, 500)}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

describe("remote_write in the lookout binary", () => {
  let dir: string;
  let prom: Prometheus;
  let srv: ServerProcess | undefined;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), "lookout-rw-binary-"));
    prom = await startPrometheus();
  });
  after(async () => {
    await srv?.stop();
    await prom?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it("results submitted together without a check time are all written, with the active check's points", async () => {
    const cfg = join(dir, "lookout.cue");
    await writeFile(
      cfg,
      `hosts: web: {
	address: "127.0.0.1"
	check: {type: "passive", freshness_threshold: "1h"}
	services: {
		backup: check: {type: "passive", freshness_threshold: "1h"}
		old: check: {type: "passive", freshness_threshold: "1h"}
		load: check: {type: "legacy", path: "/bin/echo", args: ["OK | load=1"], check_interval: "1s"}
	}
}
sinks: prom: {type: "remote_write", url: "${prom.url}/api/v1/write", batch_size: 4, flush_interval: "100ms"}
`,
    );
    srv = await startServer(["-config", cfg, "-data-dir", join(dir, "data")]);
    try {
      await scenario(srv);
    } catch (e) {
      // Keep the server's log with the failure.
      throw new Error(`${(e as Error).message}\nserver log:\n${srv.stderr().slice(-20_000)}`, { cause: e });
    }
  });

  async function scenario(srv: ServerProcess): Promise<void> {
    const url = srv.url;
    const active = () => prom.readPoints('lookout_perfdata{service="load"}');
    await until("an active check's point", active, (ps) => ps.length >= 1);

    const n = 10;
    await post(url + RESULTS, {
      results: Array.from({ length: n }, (_, i) => ({
        host: "web",
        service: "backup",
        exitStatus: 0,
        output: `OK | age=${i}s;;;0`,
      })),
    });
    const ages = await until(
      `${n} points of one series`,
      () => prom.readPoints('lookout_perfdata{service="backup"}'),
      (ps) => ps.length >= n,
    ).catch(async (e: Error) => {
      throw new Error(`${e.message}\nListSinks: ${JSON.stringify(await post(url + LIST_SINKS, {}))}`);
    });
    assert.deepEqual(
      ages.map((p) => p.value),
      Array.from({ length: n }, (_, i) => i),
      "in submission order, one ms apart",
    );
    const times = ages.map((p) => p.time);
    assert.deepEqual(
      times,
      times.map((_, i) => (times[0] as number) + i),
    );

    // Everything the sink counts as sent is in Prometheus, and nothing was dropped.
    const metric = async (name: string): Promise<number> => {
      const text = await (await fetch(`${url}/metrics`)).text();
      const m = new RegExp(`^${name}\\{sink="prom"[^}]*\\} (\\d+)`, "m").exec(text);
      return Number(m?.[1] ?? 0);
    };
    const sent = await metric("lookout_sink_sent_records_total");
    await until(
      `${sent} points in Prometheus`,
      async () => (await prom.readPoints()).length,
      (k) => k >= sent,
    );
    assert.ok((await active()).length >= 1);
    assert.equal(await metric("lookout_sink_dropped_records_total"), 0);
    const list = (await post(url + LIST_SINKS, {})) as { sinks: { dropped?: string }[] };
    assert.equal(Number(list.sinks[0]?.dropped ?? 0), 0, JSON.stringify(list));

    // A result too old for Prometheus ("out of bounds") between two good ones: only its point is
    // dropped, counted and named; the batch's other points are written.
    const old = new Date(Date.now() - 30 * 86_400_000).toISOString();
    await post(url + RESULTS, {
      results: [
        { host: "web", service: "backup", exitStatus: 0, output: `OK | age=${n}s;;;0` },
        { host: "web", service: "old", exitStatus: 0, output: "OK | old=1", checkedAt: old },
        { host: "web", service: "backup", exitStatus: 0, output: `OK | age=${n + 1}s;;;0` },
      ],
    });
    await until(
      "the old point dropped",
      () => metric("lookout_sink_dropped_records_total"),
      (k) => k >= 1,
    );
    const after = await until(
      `${n + 2} points of one series`,
      () => prom.readPoints('lookout_perfdata{service="backup"}'),
      (ps) => ps.length >= n + 2,
    );
    assert.deepEqual(after.map((p) => p.value).slice(n), [n, n + 1]);
    assert.equal(await metric("lookout_sink_dropped_records_total"), 1);
    const listed = (await post(url + LIST_SINKS, {})) as { sinks: { dropped?: string }[] };
    assert.equal(Number(listed.sinks[0]?.dropped ?? 0), 1, JSON.stringify(listed));
    assert.match(
      srv.stderr(),
      /refused records of a batch.*"records":1.*"first":\{"host":"web","service":"old","perfdata":"old"/,
    );
  }
});
