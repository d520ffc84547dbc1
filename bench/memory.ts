/**
 * Memory per service at fleet scale, on the real binary and on the harness server side by side:
 *
 *   node dist/bench/memory.js [hosts=1000] [servicesPerHost=100] [binary|harness|both=both]
 *
 * Writes a passive fleet as a CUE document (the shape of src/core/fleet-config.ts: the same names,
 * labels and checks), starts `dist/src/main.js -config <it> -data-dir <tmp>`, waits for it to
 * listen, ingests one result for every service over gRPC (bench/ingest-client.ts, one pass), waits
 * until the server is idle, and prints its RSS and RSS per service with a breakdown: each thread's
 * V8 heap (the `lookout_heap_*{thread}` gauges of /metrics: used includes garbage not yet
 * collected), memory owned outside the heaps, and what of the RSS is anonymous memory (heaps,
 * malloc: SQLite, zlib, thread stacks) or file pages (the node binary's code, ICU data). Then the
 * same for the harness server (src/api/core-test-server.ts over fleetConfig, under --expose-gc, so
 * its heaps are live heaps). NODE_OPTIONS given to this process reach the real binary too (for
 * trying V8 flags); BENCH_SERVER_NODE_ARGS reach the harness.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { fleetHost, fleetService } from "../src/core/fleet-config.js";
import { startServer } from "../src/testing/server-process.js";
import { startHarnessServer } from "./fleet-load.js";

const HOSTS = Number(process.argv[2] ?? 1000);
const SERVICES = Number(process.argv[3] ?? 100);
const which = process.argv[4] ?? "both";
const SERVICE_COUNT = HOSTS * SERVICES;
const here = (f: string): string => fileURLToPath(new URL(f, import.meta.url));
const mib = (b: number): string => (b / 1048576).toFixed(1);
const perService = (b: number): string => `${(b / SERVICE_COUNT).toFixed(0)} B/service`;

/** The fleet of fleetConfig() as a CUE document: every object has its own check and labels. */
function fleetDocument(): string {
  const check = `{type: "passive", freshness_threshold: "24h"}`;
  const out = ["hosts: {"];
  for (let i = 0; i < HOSTS; i++) {
    out.push(
      `\t"${fleetHost(i)}": {`,
      `\t\taddress: "10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}"`,
      `\t\tlabels: {env: "${i % 2 === 0 ? "prod" : "dev"}", rack: "r${i % 10}"}`,
      `\t\tcheck: ${check}`,
      `\t\tservices: {`,
    );
    for (let j = 0; j < SERVICES; j++) {
      out.push(
        `\t\t\t"${fleetService(j)}": {check: ${check}, labels: {tier: "${j % 2 === 0 ? "web" : "db"}"}}`,
      );
    }
    out.push("\t\t}", "\t}");
  }
  out.push("}", "");
  return out.join("\n");
}

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

/** One pass of results for every service over gRPC; resolves with the client's rate. */
function ingestOnce(url: string): Promise<{ results: number; seconds: number; rate: number }> {
  return new Promise((resolve, reject) => {
    const c = spawn(
      process.execPath,
      [here("./ingest-client.js"), url, "grpc", "0", "8", String(HOSTS), String(SERVICES)],
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

/** Per thread: heap used, heap committed, external, new space committed. */
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
    Number(new RegExp(`^${name}\\{${labels}\\} (\\S+)$`, "m").exec(text)?.[1] ?? Number.NaN);
  const out: Record<string, HeapFigures> = {};
  for (const thread of ["reader", "writer"]) {
    const t = `thread="${thread}"`;
    out[thread] = {
      used: value("lookout_heap_used_bytes", t),
      total: value("lookout_heap_total_bytes", t),
      external: value("lookout_heap_external_bytes", t),
      young:
        value("lookout_heap_space_size_bytes", `${t},space="new_space"`) +
        (value("lookout_heap_space_size_bytes", `${t},space="new_large_object_space"`) || 0),
    };
  }
  return out;
}

function report(label: string, p: ProcMemory, heaps: Record<string, HeapFigures>, usedIsLive: boolean): void {
  let heapTotal = 0;
  let external = 0;
  const lines: string[] = [];
  for (const [thread, h] of Object.entries(heaps)) {
    heapTotal += h.total || 0;
    external += h.external || 0;
    lines.push(
      `    ${thread.padEnd(6)} heap used ${mib(h.used)} MiB${usedIsLive ? " (live)" : ""}, committed ${mib(h.total)} MiB ` +
        `(young generation ${Number.isNaN(h.young) ? "?" : mib(h.young)} MiB), external ${mib(h.external)} MiB`,
    );
  }
  console.log(`  ${label}: RSS ${mib(p.rss)} MiB = ${perService(p.rss)} (peak ${mib(p.peak)} MiB)`);
  for (const l of lines) console.log(l);
  const native = p.anon - heapTotal - external;
  console.log(
    `    anonymous ${mib(p.anon)} MiB = V8 heaps committed ${mib(heapTotal)} + external ${mib(external)} ` +
      `+ other native ${mib(native)} MiB (malloc: SQLite, zlib, stacks, freed arenas; uncommitted heap pages make it look smaller); ` +
      `file-backed ${mib(p.file)} MiB (node binary, ICU)`,
  );
}

async function measureBinary(dir: string): Promise<void> {
  const configFile = join(dir, "fleet.cue");
  writeFileSync(configFile, fleetDocument());
  const t0 = performance.now();
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH ?? "/usr/bin:/bin" };
  if (process.env.NODE_OPTIONS !== undefined) env.NODE_OPTIONS = process.env.NODE_OPTIONS;
  const srv = await startServer(["-config", configFile, "-data-dir", join(dir, "data")], {
    env,
    timeoutMs: 600_000,
  });
  const pid = srv.child.pid as number;
  console.log(
    `real binary (dist/src/main.js${env.NODE_OPTIONS === undefined ? "" : `, NODE_OPTIONS=${env.NODE_OPTIONS}`}): ` +
      `listening after ${((performance.now() - t0) / 1000).toFixed(1)} s`,
  );
  try {
    await idle(pid);
    report("after start", procMemory(pid), await scrapeHeaps(srv.url), false);
    const r = await ingestOnce(srv.url);
    console.log(`  ingested ${r.results} results over gRPC at ${r.rate} results/s`);
    await idle(pid);
    report("after one result per service", procMemory(pid), await scrapeHeaps(srv.url), false);
  } finally {
    await srv.stop();
  }
}

async function measureHarness(dir: string): Promise<void> {
  const srv = await startHarnessServer(join(dir, "harness"), HOSTS, SERVICES);
  const pid = srv.server.pid as number;
  console.log("harness server (src/api/core-test-server.ts over fleetConfig, --expose-gc):");
  const heaps = async (): Promise<Record<string, HeapFigures>> => {
    const s = (await srv.stats()) as unknown as Record<string, number>;
    const h = (used: string, total: string): HeapFigures => ({
      used: s[used] ?? Number.NaN,
      total: s[total] ?? Number.NaN,
      external: Number.NaN,
      young: Number.NaN,
    });
    return {
      reader: h("readerHeapUsed", "readerHeapTotal"),
      writer: h("writerHeapUsed", "writerHeapTotal"),
    };
  };
  try {
    await idle(pid);
    let p = procMemory(pid);
    report("after start", p, await heaps(), true);
    const r = await ingestOnce(`http://127.0.0.1:${srv.port}`);
    console.log(`  ingested ${r.results} results over gRPC at ${r.rate} results/s`);
    await idle(pid);
    p = procMemory(pid);
    report("after one result per service", p, await heaps(), true);
  } finally {
    await srv.stop();
  }
}

const dir = mkdtempSync(join(process.env.BENCH_DIR ?? tmpdir(), "lookout-memory-"));
try {
  console.log(
    `${HOSTS} hosts × ${SERVICES} services = ${SERVICE_COUNT} services; load average ${loadavg()[0]?.toFixed(1)}`,
  );
  if (which !== "harness") await measureBinary(dir);
  if (which !== "binary") await measureHarness(dir);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
