/**
 * Benchmark: the scheduler with the real tcp checker on the real clock. N `tcp` services (100,000 by
 * default) connect to loopback listeners spread over several ports of 127.0.0.1, served by a child
 * process so that its accept work does not count against the scheduler's CPU. Results go to a
 * counting sink. For each interval (60 s, 30 s, 15 s, …) it runs a bounded number of intervals and
 * prints the sustained checks/s, p50/p99/max schedule lateness, CPU and RSS; it stops pushing the
 * interval down once a level is not held (p99 lateness >= 1 s, or fewer checks than scheduled).
 *
 *   npx tsc -p . && node dist/bench/scheduler-tcp.js [--services 100000] [--intervals 60,30,15,10]
 *     [--rounds 2] [--ports 16] [--concurrency 1000]
 *
 * File descriptors: runs in flight are bounded by --concurrency, so the process needs about that
 * many descriptors; when `ulimit -n` is lower the script re-executes itself under a raised limit.
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { once } from "node:events";
import { loadavg } from "node:os";
import { monitorEventLoopDelay, performance } from "node:perf_hooks";
import { Registry } from "prom-client";
import { createTcpChecker } from "../src/checks/tcp/index.js";
import { fixtureConfig } from "../src/engine/scheduler/fixtures.js";
import { createScheduler } from "../src/engine/scheduler/index.js";
import { slotAtOrBefore } from "../src/engine/scheduler/slots.js";
import type { CheckResult } from "../src/model/check-result.js";
import { systemClock } from "../src/model/clock.js";

interface Options {
  services: number;
  intervals: number[];
  rounds: number;
  ports: number;
  concurrency: number;
}

function parseArgs(argv: readonly string[]): Options {
  const o: Options = {
    services: 100_000,
    intervals: [60, 30, 15, 10],
    rounds: 2,
    ports: 16,
    concurrency: 1_000,
  };
  for (let i = 0; i < argv.length; i += 2) {
    const v = argv[i + 1] ?? "";
    switch (argv[i]) {
      case "--services":
        o.services = Number(v);
        break;
      case "--intervals":
        o.intervals = v.split(",").map(Number);
        break;
      case "--rounds":
        o.rounds = Number(v);
        break;
      case "--ports":
        o.ports = Number(v);
        break;
      case "--concurrency":
        o.concurrency = Number(v);
        break;
      default:
        throw new Error(`unknown argument ${argv[i]}`);
    }
  }
  return o;
}

/** Re-executes this script under `ulimit -n` raised to `need` when the current limit is lower. */
function ensureFileLimit(need: number): void {
  const have = Number(execFileSync("sh", ["-c", "ulimit -n"]).toString().trim());
  if (have >= need || process.env.LOOKOUT_BENCH_REEXEC === "1") return;
  const cmd = [
    "ulimit -n",
    String(need),
    "&&",
    "exec",
    ...[process.execPath, ...process.argv.slice(1)].map(quote),
  ];
  const r = spawn("sh", ["-c", cmd.join(" ")], {
    stdio: "inherit",
    env: { ...process.env, LOOKOUT_BENCH_REEXEC: "1" },
  });
  r.on("exit", (code) => process.exit(code ?? 1));
  throw new ReexecError();
}
class ReexecError extends Error {
  override name = "ReexecError";
}
const quote = (s: string) => `'${s.replaceAll("'", `'\\''`)}'`;

/** The listeners' program: N servers on 127.0.0.1 that accept and close at once; prints the ports. */
const LISTENER_SOURCE = `
const net = require("node:net");
const n = Number(process.argv[1]);
const ports = [];
let up = 0;
for (let i = 0; i < n; i++) {
  const s = net.createServer((c) => { c.on("error", () => {}); c.destroy(); });
  s.listen({ host: "127.0.0.1", port: 0, backlog: 4096 }, () => {
    ports.push(s.address().port);
    if (++up === n) process.stdout.write(ports.join(",") + "\\n");
  });
}
`;

async function startListeners(n: number): Promise<{ child: ChildProcess; ports: number[] }> {
  const child = spawn(process.execPath, ["-e", LISTENER_SOURCE, String(n)], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  const out = child.stdout!;
  let text = "";
  for await (const chunk of out) {
    text += String(chunk);
    if (text.includes("\n")) break;
  }
  return { child, ports: text.trim().split(",").map(Number) };
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.pid === undefined) return;
  const exited = once(child, "exit");
  process.kill(child.pid, "SIGKILL");
  await exited;
}

function quantile(sorted: Float64Array, q: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
}

interface Level {
  intervalS: number;
  targetRate: number;
  rate: number;
  checks: number;
  notOk: number;
  p50: number;
  p99: number;
  max: number;
  cpuPct: number;
  rssMb: number;
  loopP99Ms: number;
  held: boolean;
}

async function runLevel(o: Options, ports: number[], intervalS: number): Promise<Level> {
  const intervalMs = intervalS * 1000;
  const objects = Array.from({ length: o.services }, (_, i) => ({
    host: `host${i % 1000}`,
    service: `tcp${i}`,
    probe: { type: "tcp" as const, address: `127.0.0.1:${ports[i % ports.length]}` },
    schedule: { checkIntervalMs: intervalMs, timeoutMs: 10_000 },
  }));
  const config = fixtureConfig(objects);
  let checks = 0;
  let notOk = 0;
  let lateness = new Float64Array(Math.ceil(o.services * o.rounds * 1.1));
  const submit = (r: CheckResult): void => {
    const key = `${r.host}!${r.service}`;
    if (checks >= lateness.length) {
      const bigger = new Float64Array(lateness.length * 2);
      bigger.set(lateness);
      lateness = bigger;
    }
    lateness[checks++] = r.checkedAt - slotAtOrBefore(key, intervalMs, r.checkedAt);
    if (r.exitStatus !== 0) notOk++;
  };
  const scheduler = createScheduler({
    clock: systemClock,
    checkers: new Map([["tcp", createTcpChecker()]]),
    submit,
    needsRetry: () => false,
    concurrency: o.concurrency,
    metrics: new Registry(),
  });
  scheduler.applyConfig(config);
  const loop = monitorEventLoopDelay({ resolution: 10 });
  loop.enable();
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  let rssMax = 0;
  scheduler.start();
  const sampler = setInterval(() => {
    rssMax = Math.max(rssMax, process.memoryUsage().rss);
  }, 1_000);
  await new Promise((r) => setTimeout(r, intervalMs * o.rounds));
  clearInterval(sampler);
  const counted = checks;
  const elapsed = (performance.now() - t0) / 1000;
  const cpu = process.cpuUsage(cpu0);
  loop.disable();
  await scheduler.stop();
  const sorted = lateness.slice(0, counted).sort();
  const targetRate = o.services / intervalS;
  const rate = counted / elapsed;
  const p99 = quantile(sorted, 0.99);
  return {
    intervalS,
    targetRate,
    rate,
    checks: counted,
    notOk,
    p50: quantile(sorted, 0.5),
    p99,
    max: sorted.length === 0 ? Number.NaN : sorted[sorted.length - 1]!,
    cpuPct: ((cpu.user + cpu.system) / 1e6 / elapsed) * 100,
    rssMb: rssMax / 1e6,
    loopP99Ms: loop.percentile(99) / 1e6,
    held: p99 < 1_000 && rate >= targetRate * 0.99 && notOk === 0,
  };
}

async function main(): Promise<void> {
  const o = parseArgs(process.argv.slice(2));
  try {
    ensureFileLimit(o.concurrency + 1_024);
  } catch (err) {
    if (err instanceof ReexecError) return;
    throw err;
  }
  const { child, ports } = await startListeners(o.ports);
  const fmt = (n: number, d = 0) => n.toFixed(d);
  console.log(
    `scheduler-tcp: ${o.services} tcp services over ${ports.length} loopback ports, concurrency ${o.concurrency}, ${o.rounds} intervals per level; node ${process.version}; load ${loadavg()
      .map((x) => x.toFixed(2))
      .join(" ")}`,
  );
  console.log(
    "interval  target/s  checks/s  checks   notOK  lat p50 ms  p99 ms  max ms  CPU %  RSS MB  loop p99 ms  held",
  );
  let best: Level | undefined;
  try {
    for (const intervalS of o.intervals) {
      const l = await runLevel(o, ports, intervalS);
      console.log(
        [
          `${l.intervalS}s`.padStart(8),
          fmt(l.targetRate).padStart(9),
          fmt(l.rate).padStart(9),
          String(l.checks).padStart(8),
          String(l.notOk).padStart(6),
          fmt(l.p50).padStart(11),
          fmt(l.p99).padStart(7),
          fmt(l.max).padStart(7),
          fmt(l.cpuPct).padStart(6),
          fmt(l.rssMb).padStart(7),
          fmt(l.loopP99Ms, 1).padStart(12),
          l.held ? "  yes" : "  NO",
        ].join(" "),
      );
      if (!l.held) break;
      best = l;
    }
  } finally {
    await stopChild(child);
  }
  console.log(
    best === undefined
      ? "no level held"
      : `highest rate held: ${fmt(best.rate)} checks/s (${fmt(best.rate * 60)} per minute) at a ${best.intervalS}s interval`,
  );
  console.log(
    `load at end: ${loadavg()
      .map((x) => x.toFixed(2))
      .join(" ")}`,
  );
}

await main();
