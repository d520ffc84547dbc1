/**
 * Sinks under load, through the real binary: passive results with 4 perfdata points each over
 * gRPC (bench/ingest-client), 100 hosts × 100 services, and
 *   A. no sinks: the ingestion rate;
 *   B. one `file` and one `remote_write` sink (a loopback receiver that decodes and counts
 *      samples): the ingestion rate (target ≥ 80 % of A) and the sinks' worst lag (target < 5 s);
 *   C. the remote_write backend down for `outage` seconds while ingesting at `rate` results/s:
 *      points lost (count at the receiver − 4 × results ingested, target 0), the server's RSS
 *      growth over the outage (target < 50 MB), and the catch-up rate once it is back (target ≥ 5×
 *      the ingest rate). Also prints the event log's bytes per result (the disk cost of retention).
 *
 *   node dist/bench/sinks-throughput.js [seconds=20] [outage=120] [rate=10000] [concurrency=4]
 *
 * SINKS_BENCH_PHASES picks the phases (default "ABC"); SERVER_NODE_OPTIONS is passed to the server
 * as NODE_OPTIONS (for example `--cpu-prof --cpu-prof-dir=/tmp/prof`).
 */
import { spawn } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { BinaryReader, WireType } from "@bufbuild/protobuf/wire";
import { uncompress } from "snappyjs";
import { fleetHost, fleetService } from "../src/core/fleet-config.js";
import { type ServerProcess, startServer } from "../src/testing/server-process.js";

const seconds = Number(process.argv[2] ?? 20);
const outage = Number(process.argv[3] ?? 120);
const paced = Number(process.argv[4] ?? 10_000);
const concurrency = process.argv[5] ?? "4";
const HOSTS = 100;
const SERVICES = 100;
const POINTS = 4;
const phases = process.env.SINKS_BENCH_PHASES ?? "ABC";
const serverEnv: NodeJS.ProcessEnv = {
  PATH: process.env.PATH ?? "/usr/bin:/bin",
  ...(process.env.SERVER_NODE_OPTIONS === undefined ? {} : { NODE_OPTIONS: process.env.SERVER_NODE_OPTIONS }),
};
const here = (f: string): string => fileURLToPath(new URL(f, import.meta.url));

/** Samples in a snappy-compressed WriteRequest. */
function countSamples(body: Uint8Array): number {
  const r = new BinaryReader(uncompress(body));
  let n = 0;
  while (r.pos < r.len) {
    const [no, wt] = r.tag();
    if (no !== 1 || wt !== WireType.LengthDelimited) {
      r.skip(wt);
      continue;
    }
    const ts = new BinaryReader(r.bytes());
    while (ts.pos < ts.len) {
      const [f, w] = ts.tag();
      if (f === 2) n++;
      ts.skip(w);
    }
  }
  return n;
}

let samples = 0;
let down = false;
const receiver = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on("data", (c: Buffer) => chunks.push(c));
  req.on("end", () => {
    if (down) return void res.writeHead(503).end();
    samples += countSamples(Buffer.concat(chunks));
    res.writeHead(204).end();
  });
});
await new Promise<void>((r) => receiver.listen(0, "127.0.0.1", r));
const rwUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/api/v1/write`;

function config(dir: string, sinks: boolean): string {
  let s = "hosts: {\n";
  for (let h = 0; h < HOSTS; h++) {
    s += `\t"${fleetHost(h)}": {address: "127.0.0.1", labels: env: "${h % 2 === 0 ? "prod" : "dev"}", check: {type: "passive", freshness_threshold: "24h"}, services: {\n`;
    for (let j = 0; j < SERVICES; j++)
      s += `\t\t"${fleetService(j)}": check: {type: "passive", freshness_threshold: "24h"}\n`;
    s += "\t}}\n";
  }
  s += "}\n";
  if (sinks)
    s += `sinks: {
	rw: {type: "remote_write", url: "${rwUrl}", batch_size: 5000, flush_interval: "1s"}
	file: {type: "file", path: "${join(dir, "perfdata.ndjson")}", batch_size: 5000, flush_interval: "1s", rotate_bytes: 1073741824}
}
`;
  const path = join(dir, "lookout.cue");
  writeFileSync(path, s);
  return path;
}

function ingest(
  srv: ServerProcess,
  secs: number,
  rate: number,
): Promise<{ results: number; seconds: number; rate: number }> {
  return new Promise((resolve, reject) => {
    const c = spawn(
      process.execPath,
      [
        here("./ingest-client.js"),
        srv.url,
        "grpc",
        String(secs),
        concurrency,
        String(HOSTS),
        String(SERVICES),
        String(rate),
        "1000",
        String(POINTS),
      ],
      { stdio: ["ignore", "pipe", "inherit"] },
    );
    let out = "";
    c.stdout.on("data", (d: Buffer) => {
      out += d.toString();
    });
    c.once("exit", (code) =>
      code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`client exited ${code}`)),
    );
  });
}

async function sinkGauge(srv: ServerProcess, metric: string): Promise<Map<string, number>> {
  const text = await (await fetch(`${srv.url}/metrics`)).text();
  const out = new Map<string, number>();
  for (const m of text.matchAll(new RegExp(`^${metric}\\{sink="([^"]+)"\\} (\\S+)$`, "gm")))
    out.set(m[1] as string, Number(m[2]));
  return out;
}

const rssMiB = (pid: number): number =>
  Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? 0) / 1024;

/** CPU seconds (user + system, every thread) the process has used. */
function cpuSeconds(pid: number): number {
  const f = readFileSync(`/proc/${pid}/stat`, "utf8");
  const rest = f.slice(f.lastIndexOf(")") + 2).split(" ");
  // Fields 14 and 15 (utime, stime), in clock ticks of 1/100 s on Linux.
  return (Number(rest[11]) + Number(rest[12])) / 100;
}

/**
 * CPU seconds of the main thread, of the sink thread (named "lookout-sinks") and of the rest (the
 * writer worker, V8's and libuv's helpers).
 */
function threadCpu(pid: number): Map<string, number> {
  const out = new Map<string, number>([
    ["main thread", 0],
    ["sink thread", 0],
    ["other threads", 0],
  ]);
  for (const t of readdirSync(`/proc/${pid}/task`)) {
    try {
      const f = readFileSync(`/proc/${pid}/task/${t}/stat`, "utf8");
      const comm = f.slice(f.indexOf("(") + 1, f.lastIndexOf(")"));
      const name =
        t === String(pid) ? "main thread" : comm === "lookout-sinks" ? "sink thread" : "other threads";
      const rest = f.slice(f.lastIndexOf(")") + 2).split(" ");
      out.set(name, (out.get(name) ?? 0) + (Number(rest[11]) + Number(rest[12])) / 100);
    } catch {
      // the thread ended
    }
  }
  return out;
}

/** The CPU each kind of thread used since `before`: seconds, and µs per result. */
function threadsSince(pid: number, before: Map<string, number>, results: number): string {
  return [...threadCpu(pid)]
    .map(([n, v]) => {
      const used = v - (before.get(n) ?? 0);
      return `${n} ${used.toFixed(1)} s = ${((used * 1e6) / results).toFixed(0)} µs`;
    })
    .join(", ");
}

/** The event log's bytes on disk (database and WAL). */
function dbSize(dir: string): number {
  let n = 0;
  for (const f of ["lookout.db", "lookout.db-wal"]) {
    try {
      n += statSync(join(dir, "data", f)).size;
    } catch {
      // absent
    }
  }
  return n;
}

async function open(sinks: boolean): Promise<{ srv: ServerProcess; dir: string }> {
  const dir = mkdtempSync(join(process.env.BENCH_DIR ?? tmpdir(), "lookout-sinks-bench-"));
  const srv = await startServer(["-config", config(dir, sinks), "-data-dir", join(dir, "data")], {
    timeoutMs: 180_000,
    env: serverEnv,
  });
  return { srv, dir };
}

/**
 * Waits until the receiver has `expected` samples and no sink lags: an acknowledged result is
 * durably enqueued, not yet in the log, so a lag of 0 alone can come too early.
 */
async function drain(srv: ServerProcess, ms: number, expected: number): Promise<number> {
  const t0 = performance.now();
  for (;;) {
    const lag = await sinkGauge(srv, "lookout_sink_lag_events");
    if (samples >= expected && lag.size > 0 && [...lag.values()].every((v) => v === 0))
      return performance.now() - t0;
    if (performance.now() - t0 > ms) return Number.NaN;
    await new Promise((r) => setTimeout(r, 200));
  }
}

// A. No sinks.
let aRate = Number.NaN;
if (phases.includes("A")) {
  const { srv, dir } = await open(false);
  const cpu0 = cpuSeconds(srv.child.pid as number);
  const threads0 = threadCpu(srv.child.pid as number);
  const a = await ingest(srv, seconds, 0);
  const cpu = cpuSeconds(srv.child.pid as number) - cpu0;
  const threads = threadsSince(srv.child.pid as number, threads0, a.results);
  aRate = a.rate;
  console.log(
    `A  no sinks: ${a.rate} results/s (${a.results} in ${a.seconds.toFixed(1)} s); server CPU ${((cpu * 1e6) / a.results).toFixed(0)} µs/result (${threads})`,
  );
  await srv.stop();
  rmSync(dir, { recursive: true, force: true });
}

// B. file + remote_write.
if (phases.includes("B")) {
  const { srv, dir } = await open(true);
  samples = 0;
  let worstLag = 0;
  const sampler = setInterval(() => {
    sinkGauge(srv, "lookout_sink_lag_seconds")
      .then((m) => {
        for (const v of m.values()) worstLag = Math.max(worstLag, v);
      })
      .catch(() => {});
  }, 500);
  const cpu0 = cpuSeconds(srv.child.pid as number);
  const threads0 = threadCpu(srv.child.pid as number);
  const b = await ingest(srv, seconds, 0);
  const drainB = await drain(srv, 300_000, b.results * POINTS);
  const cpu = cpuSeconds(srv.child.pid as number) - cpu0;
  const threads = threadsSince(srv.child.pid as number, threads0, b.results);
  const fileBytes = statSync(join(dir, "perfdata.ndjson")).size;
  clearInterval(sampler);
  console.log(
    `B  file + remote_write: ${b.rate} results/s = ${((100 * b.rate) / aRate).toFixed(0)} % of A; worst sink lag ${worstLag.toFixed(1)} s; every point delivered ${(drainB / 1000).toFixed(1)} s after the load; points at the receiver ${samples} of ${b.results * POINTS}; server CPU ${((cpu * 1e6) / b.results).toFixed(0)} µs/result until delivered (${threads})`,
  );
  await srv.stop();
  // After a clean stop (the WAL checkpointed): the log's bytes per result.
  const logBytes = dbSize(dir);
  console.log(
    `   event log: ${(logBytes / 1048576).toFixed(0)} MiB for ${b.results} results = ${(logBytes / b.results).toFixed(0)} B/result = ${(((logBytes / b.results) * 1e6) / 1073741824).toFixed(2)} GiB per million results (4 points each); the file sink wrote ${(fileBytes / b.results).toFixed(0)} B/result`,
  );
  rmSync(dir, { recursive: true, force: true });
}

// C. remote_write down for `outage` seconds at `paced` results/s.
if (phases.includes("C")) {
  const { srv, dir } = await open(true);
  samples = 0;
  const pid = srv.child.pid as number;
  const warm = await ingest(srv, 5, paced);
  await drain(srv, 120_000, warm.results * POINTS);
  const before = samples;
  const rss0 = rssMiB(pid);
  down = true;
  const c = await ingest(srv, outage, paced);
  const rss1 = rssMiB(pid);
  const backlog = (await sinkGauge(srv, "lookout_sink_lag_events")).get("rw") ?? 0;
  down = false;
  const catchUpMs = await drain(srv, 600_000, before + c.results * POINTS);
  const points = samples - before;
  console.log(
    `C  remote_write down ${outage} s at ${c.rate} results/s: ${c.results} results; points lost ${c.results * POINTS - points} (receiver ${points} of ${c.results * POINTS}); RSS ${rss0.toFixed(0)} → ${rss1.toFixed(0)} MiB (+${(rss1 - rss0).toFixed(0)}); backlog ${backlog} events caught up in ${(catchUpMs / 1000).toFixed(1)} s = ${(c.results / (catchUpMs / 1000) / c.rate).toFixed(1)}× the ingest rate`,
  );
  await srv.stop();
  rmSync(dir, { recursive: true, force: true });
}
receiver.close();
