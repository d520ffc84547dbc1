/**
 * A million services on one machine (issue 30, item 2), on the real binary:
 *
 *   node dist/bench/million.js [hosts=100000] [servicesPerHost=10]
 *
 * Writes bench/million-fleet.ts's document (plain data as a generator writes it: passive hosts,
 * passive services, every 100th service an active `tcp` check every BENCH_ACTIVE_INTERVAL=30s
 * against a closed loopback port), then prints:
 *
 * 1. `lookout validate` of it (bin/lookout.js, as users run it): wall time and peak RSS;
 * 2. the server (bin/lookout.js -config …): start to "listening", how long until it is quiet
 *    (its first snapshot written: under a third of a core for 2 s), and RSS once settled
 *    (BENCH_SETTLE_SECONDS=20 later, no request in between), per service too;
 * 3. batched ingestion: ProcessCheckResults in batches of 1,000 over gRPC, 8 in flight, for
 *    BENCH_INGEST_SECONDS=10 (bench/ingest-client.ts), results/s;
 * 4. ListStatus pages of 1,000 over gRPC, walked one after the other: p50 and p99;
 * 5. a reload (SIGHUP) of the document with 1 % of its services changed (a passive freshness
 *    threshold): SIGHUP to "config reloaded", and the active checks' lateness across it (runs
 *    that started over 1 s after their due time, and skipped slots, from /metrics) beside the
 *    same figures over a window as long before it;
 * 6. unless BENCH_SMALL=0: start to serving and settled RSS per service of a tenth of the fleet.
 *
 * Every figure has the load average beside it: on a shared machine they move with it.
 */

import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import { createClient } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import { QueryService } from "../src/api/gen/svc/v1/query_service_pb.js";
import { millionFleet } from "./million-fleet.js";
import { type IngestClientRun, runIngestClient } from "./run-ingest-client.js";

const HOSTS = Number(process.argv[2] ?? 100_000);
const PER_HOST = Number(process.argv[3] ?? 10);
const SERVICES = HOSTS * PER_HOST;
const ACTIVE_INTERVAL_S = Number(process.env.BENCH_ACTIVE_INTERVAL ?? 30);
const SETTLE_S = Number(process.env.BENCH_SETTLE_SECONDS ?? 20);
const INGEST_S = Number(process.env.BENCH_INGEST_SECONDS ?? 10);
const here = (f: string): string => fileURLToPath(new URL(f, import.meta.url));
const LAUNCHER = here("../../bin/lookout.js");
const load = (): string => `load ${loadavg()[0]?.toFixed(1)}`;
const mib = (b: number): string => (b / 1048576).toFixed(0);
const n = (x: number): string => x.toLocaleString("en-US");

/** The kernel's view of a process's memory, bytes (RSS now, and its peak). */
function procMemory(pid: number): { rss: number; peak: number } {
  try {
    const s = readFileSync(`/proc/${pid}/status`, "utf8");
    const kb = (f: string): number => Number(new RegExp(`^${f}:\\s+(\\d+) kB`, "m").exec(s)?.[1] ?? 0) * 1024;
    return { rss: kb("VmRSS"), peak: kb("VmHWM") };
  } catch {
    return { rss: 0, peak: 0 };
  }
}

/** The environment the launcher runs in: the node running this bench, and the operator's settings. */
function launcherEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    PATH: `${dirname(process.execPath)}:${process.env.PATH ?? "/usr/bin:/bin"}`,
  };
  for (const k of ["NODE_OPTIONS", "MALLOC_ARENA_MAX", "GLIBC_TUNABLES"])
    if (process.env[k] !== undefined) env[k] = process.env[k];
  return env;
}

/**
 * `lookout validate FILE`: wall time, CPU time and peak RSS (read every 20 ms until it exits: the
 * last 20 ms are missed), output.
 */
async function validate(
  file: string,
): Promise<{ ms: number; cpuS: number; peak: number; code: number | null; out: string }> {
  const t0 = performance.now();
  const child = spawn(LAUNCHER, ["validate", file], {
    env: launcherEnv(),
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  child.stdout.on("data", (d: Buffer) => {
    out += d.toString();
  });
  child.stderr.on("data", (d: Buffer) => {
    if (out.length < 4000) out += d.toString();
  });
  let peak = 0;
  let cpu = 0;
  const poll = setInterval(() => {
    peak = Math.max(peak, procMemory(child.pid as number).peak);
    cpu = Math.max(cpu, cpuTicks(child.pid as number));
  }, 20);
  const code = await new Promise<number | null>((r) => child.once("exit", r));
  clearInterval(poll);
  return { ms: performance.now() - t0, cpuS: cpu / 100, peak, code, out: out.trim() };
}

interface Server {
  readonly child: ChildProcess;
  readonly url: string;
  readonly startMs: number;
  log(): string;
  stop(): Promise<void>;
}

/** Starts bin/lookout.js on `file` and resolves once it logs "listening". */
function startServer(file: string, dataDir: string): Promise<Server> {
  const t0 = performance.now();
  const child = spawn(LAUNCHER, ["-config", file, "-data-dir", dataDir, "-listen", "127.0.0.1:0"], {
    env: launcherEnv(),
    stdio: ["ignore", "ignore", "pipe"],
  });
  const exited = new Promise<void>((r) => child.once("exit", () => r()));
  let log = "";
  const stop = async (): Promise<void> => {
    child.kill("SIGTERM");
    await exited;
  };
  let listening = false;
  return new Promise((resolve, reject) => {
    child.stderr?.setEncoding("utf8").on("data", (c: string) => {
      log += c;
      if (log.length > 8_000_000) log = log.slice(-4_000_000);
      if (listening) return;
      const line = log.split("\n").find((l) => l.includes('"msg":"listening"'));
      if (line === undefined) return;
      listening = true;
      const address = (JSON.parse(line) as { address: string }).address;
      resolve({ child, url: `http://${address}`, startMs: performance.now() - t0, log: () => log, stop });
    });
    void exited.then(() => reject(new Error(`server exited before listening:\n${log.slice(-4000)}`)));
  });
}

/** CPU ticks (1/100 s) a process has used, all its threads. */
function cpuTicks(pid: number): number {
  try {
    const f = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.split(" ") ?? [];
    return Number(f[11]) + Number(f[12]);
  } catch {
    return 0;
  }
}

/**
 * Waits until the server has used under a third of a core for 2 s in a row (the writer's first
 * snapshot and the projection's start are done; the active checks alone stay well below), at
 * most BENCH_QUIET_MAX_SECONDS=600; returns how long that took.
 */
async function quiet(pid: number): Promise<number> {
  const t0 = performance.now();
  const end = t0 + Number(process.env.BENCH_QUIET_MAX_SECONDS ?? 600) * 1000;
  let calm = 0;
  let last = cpuTicks(pid);
  while (calm < 4 && performance.now() < end) {
    await sleep(500);
    const now = cpuTicks(pid);
    calm = now - last <= 16 ? calm + 1 : 0;
    last = now;
  }
  return performance.now() - t0;
}

/** RSS after `SETTLE_S` seconds without requests, once quiet. */
async function settledRss(pid: number): Promise<{ rss: number; quietMs: number }> {
  const quietMs = await quiet(pid);
  await sleep(SETTLE_S * 1000);
  return { rss: procMemory(pid).rss, quietMs };
}

/** bench/ingest-client.ts: batches of 1,000 over gRPC, 8 in flight, for `seconds`. */
function ingest(url: string, seconds: number): Promise<IngestClientRun> {
  return runIngestClient({
    url,
    protocol: "grpc",
    seconds,
    concurrency: 8,
    hosts: HOSTS,
    servicesPerHost: PER_HOST,
    rate: 0,
    batch: 1000,
  });
}

/** ListStatus pages of 1,000 walked one after the other (`pages` of them), latency per page. */
async function listStatus(url: string, pages: number): Promise<{ p50: number; p99: number; max: number }> {
  const client = createClient(QueryService, createGrpcTransport({ baseUrl: url }));
  let token = "";
  for (let i = 0; i < 20; i++)
    token = (await client.listStatus({ pageSize: 1000, pageToken: token })).nextPageToken;
  const ms: number[] = [];
  token = "";
  for (let i = 0; i < pages; i++) {
    const t = performance.now();
    const r = await client.listStatus({ pageSize: 1000, pageToken: token });
    ms.push(performance.now() - t);
    token = r.nextPageToken;
  }
  ms.sort((a, b) => a - b);
  const q = (p: number): number => ms[Math.min(ms.length - 1, Math.floor(p * ms.length))] ?? 0;
  return { p50: q(0.5), p99: q(0.99), max: ms[ms.length - 1] ?? 0 };
}

/** Active runs so far that started over 1 s late, and slots skipped, from /metrics. */
async function lateness(url: string): Promise<{ runs: number; late: number; skipped: number }> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const sum = (re: RegExp): number => [...text.matchAll(re)].reduce((s, m) => s + Number(m[1]), 0);
  const runs = sum(/^lookout_schedule_lateness_seconds_count(?:\{[^}]*\})? (\S+)$/gm);
  const onTime = sum(/^lookout_schedule_lateness_seconds_bucket\{(?:[^}]*,)?le="1"[^}]*\} (\S+)$/gm);
  const skipped = sum(/^lookout_schedule_skipped_total(?:\{[^}]*\})? (\S+)$/gm);
  return { runs, late: runs - onTime, skipped };
}

const delta = (
  a: { runs: number; late: number; skipped: number },
  b: { runs: number; late: number; skipped: number },
): string =>
  `${n(b.runs - a.runs)} active runs, ${b.late - a.late} over 1 s late, ${b.skipped - a.skipped} slots skipped`;

/** SIGHUP with `file` rewritten to `text`; resolves with the time to "config reloaded". */
async function reload(srv: Server, file: string, text: string): Promise<number> {
  writeFileSync(file, text);
  const before = srv.log().split('"msg":"config reload').length;
  const t0 = performance.now();
  srv.child.kill("SIGHUP");
  for (;;) {
    await sleep(50);
    const parts = srv.log().split('"msg":"config reload');
    if (parts.length > before) {
      const line = parts[parts.length - 1]?.split("\n")[0] ?? "";
      if (!line.startsWith('ed"')) throw new Error(`the reload failed: config reload${line}`);
      return performance.now() - t0;
    }
  }
}

const dir = mkdtempSync(join(process.env.BENCH_DIR ?? tmpdir(), "lookout-million-"));
try {
  const file = join(dir, "fleet.cue");
  const options = { hosts: HOSTS, servicesPerHost: PER_HOST, activeInterval: `${ACTIVE_INTERVAL_S}s` };
  writeFileSync(file, millionFleet(options));
  console.log(
    `${n(HOSTS)} hosts × ${PER_HOST} = ${n(SERVICES)} services (1 % active, tcp every ${ACTIVE_INTERVAL_S} s), ` +
      `document ${(statSync(file).size / 1e6).toFixed(1)} MB; ${load()}`,
  );

  const v = await validate(file);
  console.log(
    `validate: ${(v.ms / 1000).toFixed(2)} s (CPU ${v.cpuS.toFixed(1)} s), peak RSS ${mib(v.peak)} MiB (exit ${v.code}: ${v.out.split("\n")[0]}); ${load()}`,
  );

  const srv = await startServer(file, join(dir, "data"));
  try {
    const pid = srv.child.pid as number;
    console.log(
      `start to serving: ${(srv.startMs / 1000).toFixed(1)} s (CPU ${(cpuTicks(pid) / 100).toFixed(1)} s); ${load()}`,
    );
    const { rss, quietMs } = await settledRss(pid);
    console.log(
      `quiet ${(quietMs / 1000).toFixed(1)} s after serving; settled RSS ${SETTLE_S} s later: ${mib(rss)} MiB = ` +
        `${(rss / SERVICES).toFixed(0)} B/service (peak ${mib(procMemory(pid).peak)} MiB); ${load()}`,
    );

    const ing = await ingest(srv.url, INGEST_S);
    console.log(
      `batched ingestion (gRPC, batches of 1,000, 8 in flight, ${INGEST_S} s): ${n(ing.rate)} results/s, ` +
        `p99 ${ing.p99Ms.toFixed(0)} ms per batch; RSS ${mib(procMemory(pid).rss)} MiB; ${load()}`,
    );

    const ls = await listStatus(srv.url, 200);
    console.log(
      `ListStatus 1,000 of ${n(SERVICES)} (gRPC, 200 pages in a row): p50 ${ls.p50.toFixed(1)} ms, ` +
        `p99 ${ls.p99.toFixed(1)} ms, max ${ls.max.toFixed(1)} ms; ${load()}`,
    );

    // Lateness over a quiet window first, then across the reload over a window as long.
    const windowMs = (ACTIVE_INTERVAL_S + 5) * 1000;
    const q0 = await lateness(srv.url);
    await sleep(windowMs);
    const q1 = await lateness(srv.url);
    console.log(`without a reload, ${windowMs / 1000} s: ${delta(q0, q1)}`);
    const changed = (i: number): boolean => i % 100 === 50;
    const t0 = performance.now();
    const reloadMs = await reload(srv, file, millionFleet({ ...options, changed }));
    await sleep(Math.max(0, windowMs - (performance.now() - t0)));
    const q2 = await lateness(srv.url);
    console.log(
      `reload changing 1 % of services (${n(SERVICES / 100)}): applied ${(reloadMs / 1000).toFixed(1)} s after SIGHUP; ` +
        `from SIGHUP over ${((performance.now() - t0) / 1000).toFixed(0)} s: ${delta(q1, q2)}; ${load()}`,
    );
  } finally {
    await srv.stop();
  }

  if (process.env.BENCH_SMALL !== "0" && HOSTS >= 10) {
    const small = join(dir, "small.cue");
    const smallServices = (HOSTS / 10) * PER_HOST;
    writeFileSync(small, millionFleet({ ...options, hosts: HOSTS / 10 }));
    const sv = await validate(small);
    const s = await startServer(small, join(dir, "data-small"));
    try {
      const { rss, quietMs } = await settledRss(s.child.pid as number);
      console.log(
        `${n(smallServices)} services: validate ${(sv.ms / 1000).toFixed(2)} s (CPU ${sv.cpuS.toFixed(1)} s, peak ${mib(sv.peak)} MiB), ` +
          `start to serving ${(s.startMs / 1000).toFixed(1)} s (quiet ${(quietMs / 1000).toFixed(1)} s later), settled RSS ${mib(rss)} MiB = ` +
          `${(rss / smallServices).toFixed(0)} B/service; ${load()}`,
      );
    } finally {
      await s.stop();
    }
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
