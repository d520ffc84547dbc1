/**
 * Sinks in the real binary: results submitted through the API reach an http sink and a file sink;
 * ListSinks and /metrics show them without URLs or headers; a reload removes and adds sinks; and a
 * kill -9 in the middle of a batch, delivered from the sink thread, loses nothing and repeats at most
 * that batch.
 */
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { type ServerProcess, startServer } from "../testing/server-process.js";
import { ndjsonReceiver } from "./http/ndjson-receiver.case.js";

const PROCESS = "/svc.v1.CommandService/ProcessCheckResult";
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

async function until(what: string, ok: () => Promise<boolean>, ms = 30_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await ok())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

const read = async (path: string): Promise<string> => {
  try {
    return await readFile(path, "utf8");
  } catch {
    return "";
  }
};

const hosts = `hosts: web: {
	address: "127.0.0.1"
	labels: env: "prod"
	check: {type: "passive", freshness_threshold: "1h"}
	services: backup: check: {type: "passive", freshness_threshold: "1h"}
}
`;

async function submit(srv: ServerProcess, from: number, n: number): Promise<void> {
  for (let i = from; i < from + n; i++)
    await post(srv.url + PROCESS, {
      host: "web",
      service: "backup",
      exitStatus: 0,
      output: `OK|age=${i}s;;;0`,
    });
}

describe("sinks in the lookout binary", () => {
  let dir: string;
  let srv: ServerProcess;
  let rx: Awaited<ReturnType<typeof ndjsonReceiver>>;
  let cfg: string;
  const sinks = (extra: string): string =>
    `${hosts}sinks: {
	metrics: {type: "http", url: "${rx.url.replace("http://", "http://user:hunter2@")}", headers: "X-Token": "s3cret", batch_size: 7, flush_interval: "100ms", selector: "env=prod"}
${extra}}
`;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), "lookout-sinks-e2e-"));
    rx = await ndjsonReceiver();
    cfg = join(dir, "lookout.cue");
    await writeFile(
      cfg,
      sinks(
        `	log: {type: "file", input: "events", path: "${join(dir, "events.ndjson")}", flush_interval: "100ms", cursor: "oldest"}\n`,
      ),
    );
    srv = await startServer(["-config", cfg, "-data-dir", join(dir, "data")]);
  });
  after(async () => {
    await srv?.stop();
    await rx?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it("delivers perfdata to http and events to a file; ListSinks and /metrics show no secrets", async () => {
    await submit(srv, 0, 20);
    await until(
      "20 points",
      async () =>
        rx
          .body()
          .split("\n")
          .filter((l) => l !== "").length >= 20,
    );
    const ages = rx
      .body()
      .split("\n")
      .filter((l) => l !== "")
      .map(
        (l) => JSON.parse(l) as { name: string; value: number; host: string; labels: Record<string, string> },
      );
    assert.deepEqual(
      ages.map((p) => p.value),
      Array.from({ length: 20 }, (_, i) => i),
    );
    assert.deepEqual(ages[0]?.labels, { env: "prod" });
    assert.equal(rx.requests[0]?.headers["x-token"], "s3cret");
    await until(
      "20 results in the file",
      async () =>
        ((await read(join(dir, "events.ndjson"))).match(/"type":"CheckResultProcessed"/g) ?? []).length >= 20,
    );

    const list = (await post(srv.url + LIST_SINKS, {})) as { sinks: Record<string, unknown>[] };
    assert.deepEqual(
      list.sinks.map((s) => [s.name, s.type, s.state]),
      [
        ["log", "file", "ok"],
        ["metrics", "http", "ok"],
      ],
    );
    const listed = JSON.stringify(list);
    assert.doesNotMatch(listed, /hunter2|s3cret|127\.0\.0\.1/);
    // The counters follow the backend's acknowledgement, which comes after the receiver has the body.
    let metrics = "";
    await until("the sent counter", async () => {
      metrics = await (await fetch(`${srv.url}/metrics`)).text();
      return /lookout_sink_sent_records_total\{sink="metrics"\} 20\n/.test(metrics);
    });
    assert.match(metrics, /lookout_sink_lag_events\{sink="metrics"\} \d+/);
    assert.doesNotMatch(metrics + srv.stderr(), /hunter2|s3cret/);
  });

  it("a reload stops a removed sink and starts a new one where its cursor says", async () => {
    const newFile = join(dir, "new.ndjson");
    await writeFile(
      cfg,
      sinks(`	fresh: {type: "file", input: "events", path: "${newFile}", flush_interval: "100ms"}\n`),
    );
    srv.child.kill("SIGHUP");
    // ListSinks names the sinks of the config in force as soon as the core has it; a sink is "ok"
    // once the sinks' part of the reload has started it and taken its position.
    await until("the reload", async () => {
      const list = (await post(srv.url + LIST_SINKS, {})) as { sinks: { name: string; state: string }[] };
      return list.sinks.map((s) => `${s.name}:${s.state}`).join() === "fresh:ok,metrics:ok";
    });
    await new Promise((r) => setTimeout(r, 300));
    await submit(srv, 20, 3);
    await until(
      "the new sink's events",
      async () => ((await read(newFile)).match(/"type":"CheckResultProcessed"/g) ?? []).length >= 3,
    );
    // cursor "" is the end of the log: the new sink never saw the first 20 results.
    assert.equal(((await read(newFile)).match(/"type":"CheckResultProcessed"/g) ?? []).length, 3);
  });
});

/** The names of a process's threads (Linux). */
function threadNames(pid: number): string[] {
  return readdirSync(`/proc/${pid}/task`).map((t) => {
    try {
      return readFileSync(`/proc/${pid}/task/${t}/comm`, "utf8").trim();
    } catch {
      return "";
    }
  });
}

describe("sinks across kill -9", () => {
  it("a crash mid-batch loses nothing and repeats at most the batch in flight", async () => {
    const dir = await mkdtemp(join(tmpdir(), "lookout-sinks-crash-"));
    const out = join(dir, "received.ndjson");
    const script = join(dir, "receive.sh");
    // Appends the batch, then takes its time to acknowledge: a kill lands between the two.
    await writeFile(script, `cat >> "$1"\nsleep 0.3\n`);
    const cfg = join(dir, "lookout.cue");
    await writeFile(
      cfg,
      `${hosts}sinks: slow: {type: "exec", command: ["/bin/sh", "${script}", "${out}"], batch_size: 10, flush_interval: "50ms", cursor: "oldest"}\n`,
    );
    const args = ["-config", cfg, "-data-dir", join(dir, "data")];
    let srv = await startServer(args);
    try {
      await submit(srv, 0, 60);
      const lines = async (): Promise<number[]> =>
        (await read(out))
          .split("\n")
          .filter((l) => l !== "")
          .map((l) => (JSON.parse(l) as { value: number }).value);
      await until("a few batches", async () => (await lines()).length >= 20);
      // The sinks run on their own thread, not the main thread (docs/sinks.md, "Throughput").
      assert.ok(threadNames(srv.child.pid as number).includes("lookout-sinks"), "a sink thread");
      await srv.kill();
      srv = await startServer(args);
      await until("every point", async () => new Set(await lines()).size >= 60);
      const got = await lines();
      const repeated = got.length - new Set(got).size;
      assert.ok(repeated <= 10, `at most one batch repeated: ${repeated}`);
      assert.deepEqual(
        [...new Set(got)].sort((a, b) => a - b),
        Array.from({ length: 60 }, (_, i) => i),
      );
    } finally {
      await srv.stop();
      await rm(dir, { recursive: true, force: true });
    }
  });
});
