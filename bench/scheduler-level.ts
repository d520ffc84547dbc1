/**
 * The part of the scheduler benchmarks that does not depend on the checker: argument parsing, one
 * measured level (N services at one interval on the real clock, results into a counting sink) and
 * the report table.
 */
import { monitorEventLoopDelay, performance } from "node:perf_hooks";
import { Registry } from "prom-client";
import { fixtureConfig } from "../src/engine/scheduler/fixtures.js";
import { createScheduler } from "../src/engine/scheduler/index.js";
import { slotAtOrBefore } from "../src/engine/scheduler/slots.js";
import type { CheckResult } from "../src/model/check-result.js";
import type { Checker } from "../src/model/checker.js";
import { systemClock } from "../src/model/clock.js";
import type { ProbeConfig } from "../src/model/config.js";

/** Command-line options shared by the scheduler benchmarks. */
export interface Options {
  services: number;
  intervals: number[];
  rounds: number;
  ports: number;
  concurrency: number;
}

export function parseArgs(argv: readonly string[], defaults: Partial<Options> = {}): Options {
  const o: Options = {
    services: 100_000,
    intervals: [60, 30, 15, 10],
    rounds: 2,
    ports: 16,
    concurrency: 5_000,
    ...defaults,
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

function quantile(sorted: Float64Array, q: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
}

/** What one level measured. */
export interface Level {
  intervalS: number;
  targetRate: number;
  rate: number;
  checks: number;
  notOk: number;
  p50: number;
  /** p99 of the check's own duration, ms: slow connects fill the concurrency slots. */
  durP99: number;
  maxInFlight: number;
  p99: number;
  max: number;
  cpuPct: number;
  cpuUsPerCheck: number;
  rssMb: number;
  loopP99Ms: number;
  held: boolean;
}

/** Runs `o.services` services at `intervalS` for `o.rounds` intervals and measures them. */
export async function runLevel(
  o: Options,
  checker: Checker,
  probeOf: (i: number) => ProbeConfig,
  intervalS: number,
): Promise<Level> {
  const intervalMs = intervalS * 1000;
  const objects = Array.from({ length: o.services }, (_, i) => ({
    host: `host${i % 1000}`,
    service: `tcp${i}`,
    probe: probeOf(i),
    schedule: { checkIntervalMs: intervalMs, timeoutMs: 10_000 },
  }));
  const config = fixtureConfig(objects);
  let checks = 0;
  let notOk = 0;
  let lateness = new Float64Array(Math.ceil(o.services * o.rounds * 1.1));
  let durations = new Float64Array(lateness.length);
  let maxInFlight = 0;
  const submit = (r: CheckResult): void => {
    const key = `${r.host}!${r.service}`;
    if (checks >= lateness.length) {
      const bigger = new Float64Array(lateness.length * 2);
      bigger.set(lateness);
      lateness = bigger;
      const biggerD = new Float64Array(durations.length * 2);
      biggerD.set(durations);
      durations = biggerD;
    }
    durations[checks] = r.durationMs;
    lateness[checks++] = r.checkedAt - slotAtOrBefore(key, intervalMs, r.checkedAt);
    if (r.exitStatus !== 0) notOk++;
  };
  const scheduler = createScheduler({
    clock: systemClock,
    checkers: new Map([[checker.type, checker]]),
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
    maxInFlight = Math.max(maxInFlight, scheduler.inFlight);
  }, 1_000);
  await new Promise((r) => setTimeout(r, intervalMs * o.rounds));
  clearInterval(sampler);
  const counted = checks;
  const elapsed = (performance.now() - t0) / 1000;
  const cpu = process.cpuUsage(cpu0);
  loop.disable();
  await scheduler.stop();
  const sorted = lateness.slice(0, counted).sort();
  const sortedD = durations.slice(0, counted).sort();
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
    durP99: quantile(sortedD, 0.99),
    maxInFlight,
    p99,
    max: sorted.length === 0 ? Number.NaN : sorted[sorted.length - 1]!,
    cpuPct: ((cpu.user + cpu.system) / 1e6 / elapsed) * 100,
    cpuUsPerCheck: counted === 0 ? Number.NaN : (cpu.user + cpu.system) / counted,
    rssMb: rssMax / 1e6,
    loopP99Ms: loop.percentile(99) / 1e6,
    held: p99 < 1_000 && rate >= targetRate * 0.99 && notOk === 0,
  };
}

const HEADER =
  "interval  target/s  checks/s  checks   notOK  lat p50 ms  p99 ms  max ms  dur p99 ms  max in flight  CPU %  CPU us/check  RSS MB  loop p99 ms  held";

/** Runs each interval in turn until one is not held; prints a row per level and returns the best. */
export async function runLevels(
  o: Options,
  checker: Checker,
  probeOf: (i: number) => ProbeConfig,
): Promise<Level | undefined> {
  const fmt = (n: number, d = 0) => n.toFixed(d);
  console.log(HEADER);
  let best: Level | undefined;
  for (const intervalS of o.intervals) {
    const l = await runLevel(o, checker, probeOf, intervalS);
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
        fmt(l.durP99).padStart(11),
        String(l.maxInFlight).padStart(14),
        fmt(l.cpuPct).padStart(6),
        fmt(l.cpuUsPerCheck).padStart(13),
        fmt(l.rssMb).padStart(7),
        fmt(l.loopP99Ms, 1).padStart(12),
        l.held ? "  yes" : "  NO",
      ].join(" "),
    );
    if (!l.held) break;
    best = l;
  }
  console.log(
    best === undefined
      ? "no level held"
      : `highest rate held: ${fmt(best.rate)} checks/s (${fmt(best.rate * 60)} per minute) at a ${best.intervalS}s interval`,
  );
  return best;
}
