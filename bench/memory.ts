/**
 * Memory per service at fleet scale, on the real binary and on the harness server side by side:
 *
 *   node dist/bench/memory.js [hosts=1000] [servicesPerHost=100] [binary|harness|both=both]
 *
 * Writes a passive fleet as a CUE document (the shape of src/core/fleet-config.ts: the same names,
 * labels and checks), starts the server as users run it — `bin/lookout.js -config <it> -data-dir
 * <tmp>`, the launcher with its start-time memory settings; BENCH_ENTRY=main starts
 * `node dist/src/main.js` instead, without them — prints the settings in force (the "listening" log
 * line says), and takes it through
 * four phases, printing RSS and RSS per service after each: started and idle; right after one
 * result for every service over gRPC (bench/ingest-client.ts, one pass, as fast as it goes);
 * at the end of steady ingestion (every service once a minute, batches of 100, for
 * BENCH_STEADY_SECONDS=30); and settled, after BENCH_SETTLE_SECONDS=30 without requests (V8's
 * memory reducer shrinks idle heaps). Each figure comes with a breakdown: each thread's V8 heap
 * (the `lookout_heap_*{thread}` gauges of /metrics: used counts garbage not yet collected),
 * memory owned outside the heaps, and how much of the RSS is anonymous memory (heaps, malloc:
 * SQLite, zlib, thread stacks) or file pages (node's code, ICU data). Then the same for the harness
 * server (src/api/core-test-server.ts over fleetConfig), for comparison with bench:ingest, given
 * the launcher's settings too (unless BENCH_ENTRY=main). NODE_OPTIONS and MALLOC_ARENA_MAX reach
 * both servers; BENCH_SERVER_NODE_ARGS the harness only.
 */

import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { fleetDocument } from "../src/core/fleet-config.js";
import { MAIN_JS } from "../src/testing/server-process.js";
import { startHarnessServer } from "./fleet-load.js";
import { type IngestClientRun, runIngestClient } from "./run-ingest-client.js";

const HOSTS = Number(process.argv[2] ?? 1000);
const SERVICES = Number(process.argv[3] ?? 100);
const which = process.argv[4] ?? "both";
const SERVICE_COUNT = HOSTS * SERVICES;
const here = (f: string): string => fileURLToPath(new URL(f, import.meta.url));
const mib = (b: number): string => (b / 1048576).toFixed(1);
const perService = (b: number): string => `${(b / SERVICE_COUNT).toFixed(0)} B/service`;

/** The kernel's view of a process's memory (bytes), from /proc/<pid>/status. */
interface ProcMemory {
  readonly rss: number;
  readonly anon: number;
  readonly file: number;
  readonly peak: number;
}

function procMemory(pid: number): ProcMemory {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kb = (field: string): number =>
    Number(new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(status)?.[1]) * 1024;
  return { rss: kb("VmRSS"), anon: kb("RssAnon"), file: kb("RssFile") + kb("RssShmem"), peak: kb("VmHWM") };
}

function cpuTicks(pid: number): number {
  const f = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.split(" ") ?? [];
  return Number(f[11]) + Number(f[12]);
}

/** Resolves once the process used under 3% of a CPU for two seconds in a row (at most `maxMs`). */
async function idle(pid: number, maxMs = 120_000): Promise<void> {
  const end = Date.now() + maxMs;
  let quiet = 0;
  let last = cpuTicks(pid);
  while (Date.now() < end && quiet < 4) {
    await new Promise((r) => setTimeout(r, 500));
    const now = cpuTicks(pid);
    quiet = now - last <= 1 ? quiet + 1 : 0;
    last = now;
  }
}

/** Runs the ingestion client (bench/ingest-client.ts): gRPC, 8 in flight; optionally paced, in batches of `batch`. */
function ingest(
  url: string,
  seconds: number,
  paced?: { rate: number; batch: number },
): Promise<IngestClientRun> {
  return runIngestClient({
    url,
    protocol: "grpc",
    seconds,
    concurrency: 8,
    hosts: HOSTS,
    servicesPerHost: SERVICES,
    ...(paced === undefined ? {} : paced),
  });
}

/** Per thread: heap used, heap committed, external, young generation committed. */
interface HeapFigures {
  readonly used: number;
  readonly total: number;
  readonly external: number;
  readonly young: number;
}

/** The lookout_heap_* gauges of /metrics, per thread. */
async function scrapeHeaps(url: string): Promise<Record<string, HeapFigures>> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const value = (name: string, labels: string): number =>
    Number(new RegExp(`^${name}\\{${labels}\\} (\\S+)$`, "m").exec(text)?.[1] ?? 0);
  const out: Record<string, HeapFigures> = {};
  for (const thread of ["reader", "writer"]) {
    const t = `thread="${thread}"`;
    out[thread] = {
      used: value("lookout_heap_used_bytes", t),
      total: value("lookout_heap_total_bytes", t),
      external: value("lookout_heap_external_bytes", t),
      young:
        value("lookout_heap_space_size_bytes", `${t},space="new_space"`) +
        value("lookout_heap_space_size_bytes", `${t},space="new_large_object_space"`),
    };
  }
  return out;
}

async function report(label: string, pid: number, url: string): Promise<number> {
  const p = procMemory(pid);
  const heaps = await scrapeHeaps(url);
  let heapTotal = 0;
  let external = 0;
  console.log(`  ${label}: RSS ${mib(p.rss)} MiB = ${perService(p.rss)} (peak so far ${mib(p.peak)} MiB)`);
  for (const [thread, h] of Object.entries(heaps)) {
    heapTotal += h.total;
    external += h.external;
    console.log(
      `    ${thread.padEnd(6)} heap used ${mib(h.used)} MiB (live and garbage), committed ${mib(h.total)} MiB ` +
        `of which young generation ${mib(h.young)} MiB; external ${mib(h.external)} MiB`,
    );
  }
  console.log(
    `    anonymous ${mib(p.anon)} MiB = V8 heaps committed ${mib(heapTotal)} + external ${mib(external)} ` +
      `+ ${mib(p.anon - heapTotal - external)} MiB other (malloc: SQLite, zlib, stacks; less heap committed but never touched); ` +
      `file-backed ${mib(p.file)} MiB (node's code, ICU)`,
  );
  return p.rss;
}

/** Seconds of paced ingestion in the steady phase, and the rate: every service once a minute. */
const STEADY_SECONDS = Number(process.env.BENCH_STEADY_SECONDS ?? 30);
const STEADY_RATE = Math.round(SERVICE_COUNT / 60);
/** Seconds without any request before the settled figure (V8's memory reducer shrinks idle heaps). */
const SETTLE_SECONDS = Number(process.env.BENCH_SETTLE_SECONDS ?? 30);

/** The phases both servers go through; returns RSS per phase. */
async function phases(pid: number, url: string): Promise<Record<string, number>> {
  const rss: Record<string, number> = {};
  await idle(pid);
  rss.start = await report("after start", pid, url);
  const burst = await ingest(url, 0);
  console.log(`  one result per service over gRPC: ${burst.results} results at ${burst.rate} results/s`);
  await idle(pid);
  rss.burst = await report("right after one result per service", pid, url);
  let max = 0;
  const watch = setInterval(() => {
    max = Math.max(max, procMemory(pid).rss);
  }, 1000);
  const steady = await ingest(url, STEADY_SECONDS, { rate: STEADY_RATE, batch: 100 });
  clearInterval(watch);
  console.log(
    `  steady ingestion, every service once a minute: ${steady.rate} results/s in batches of 100 for ${STEADY_SECONDS} s; ` +
      `RSS at most ${mib(max)} MiB = ${perService(max)}`,
  );
  rss.steady = await report("at the end of steady ingestion", pid, url);
  await new Promise((r) => setTimeout(r, SETTLE_SECONDS * 1000));
  rss.settled = await report(`after ${SETTLE_SECONDS} s without requests`, pid, url);
  return rss;
}

/** The launcher users run (package.json "bin"), started as an executable so that its #! line counts. */
const LAUNCHER = here("../../bin/lookout.js");
const viaMain = process.env.BENCH_ENTRY === "main";

interface Started {
  readonly child: ChildProcess;
  readonly url: string;
  /** The "listening" log line. */
  readonly listening: Record<string, unknown>;
  stop(): Promise<void>;
}

/** Starts `command args` and resolves with its "listening" log line. */
function startEntry(command: string, args: readonly string[], env: NodeJS.ProcessEnv): Promise<Started> {
  const child = spawn(command, [...args, "-listen", "127.0.0.1:0"], {
    stdio: ["ignore", "ignore", "pipe"],
    env,
  });
  const exited = new Promise<void>((r) => child.once("exit", () => r()));
  const stop = async (): Promise<void> => {
    child.kill("SIGTERM");
    await exited;
  };
  return new Promise((resolve, reject) => {
    let log = "";
    child.stderr?.setEncoding("utf8").on("data", (c: string) => {
      log += c;
      const line = log.split("\n").find((l) => l.includes('"msg":"listening"'));
      if (line === undefined) return;
      const listening = JSON.parse(line) as Record<string, unknown>;
      resolve({ child, url: `http://${listening.address}`, listening, stop });
    });
    void exited.then(() => reject(new Error(`server exited before listening:\n${log}`)));
  });
}

async function measureBinary(dir: string): Promise<Record<string, number>> {
  const configFile = join(dir, "fleet.cue");
  writeFileSync(configFile, fleetDocument({ hosts: HOSTS, servicesPerHost: SERVICES, serviceLabels: true }));
  const t0 = performance.now();
  // The node running the bench is the one the launcher's `env` finds first.
  const env: NodeJS.ProcessEnv = {
    PATH: `${dirname(process.execPath)}:${process.env.PATH ?? "/usr/bin:/bin"}`,
  };
  // What an operator may set when starting the process (docs/storage.md, "Memory").
  for (const k of ["NODE_OPTIONS", "MALLOC_ARENA_MAX", "GLIBC_TUNABLES"])
    if (process.env[k] !== undefined) env[k] = process.env[k];
  const args = ["-config", configFile, "-data-dir", join(dir, "data")];
  const srv = viaMain
    ? await startEntry(process.execPath, [MAIN_JS, ...args], env)
    : await startEntry(LAUNCHER, args, env);
  console.log(
    `real binary (${viaMain ? "node dist/src/main.js" : "bin/lookout.js"}): listening after ` +
      `${((performance.now() - t0) / 1000).toFixed(1)} s; memory settings in force: ${JSON.stringify(srv.listening.memory)}`,
  );
  try {
    return await phases(srv.child.pid as number, srv.url);
  } finally {
    await srv.stop();
  }
}

async function measureHarness(dir: string): Promise<Record<string, number>> {
  // The launcher's settings (bin/lookout.js), as for the real binary, unless it runs as main.js.
  if (viaMain) process.env.BENCH_SERVER_LAUNCHER ??= "0";
  const srv = await startHarnessServer(join(dir, "harness"), HOSTS, SERVICES);
  console.log(
    `harness server (src/api/core-test-server.ts over fleetConfig; the launcher's settings: ${srv.settings}, ` +
      `more node flags: ${process.env.BENCH_SERVER_NODE_ARGS ?? "none"}):`,
  );
  try {
    return await phases(srv.server.pid as number, `http://127.0.0.1:${srv.port}`);
  } finally {
    await srv.stop();
  }
}

const dir = mkdtempSync(join(process.env.BENCH_DIR ?? tmpdir(), "lookout-memory-"));
try {
  console.log(
    `${HOSTS} hosts × ${SERVICES} services = ${SERVICE_COUNT} services; load average ${loadavg()[0]?.toFixed(1)}`,
  );
  const results: Record<string, Record<string, number>> = {};
  if (which !== "harness") results.binary = await measureBinary(dir);
  if (which !== "binary") results.harness = await measureHarness(dir);
  console.log("summary, B/service: start / right after one result each / steady ingestion / settled");
  for (const [name, r] of Object.entries(results)) {
    const f = (k: string): string => ((r[k] ?? 0) / SERVICE_COUNT).toFixed(0);
    console.log(`  ${name.padEnd(7)} ${f("start")} / ${f("burst")} / ${f("steady")} / ${f("settled")}`);
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
