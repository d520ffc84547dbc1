/**
 * Shared helpers for the plugin-check benchmarks: CPU time of this process and of its reaped
 * children (from /proc/self/stat), and a closed-loop driver that keeps N runs in flight.
 */
import { readFileSync } from "node:fs";

const TICK_MS = 10; // USER_HZ is 100 on Linux

/** CPU milliseconds: this process (all threads) and its reaped children. */
export function cpuMs(): { self: number; children: number } {
  const stat = readFileSync("/proc/self/stat", "utf8");
  const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  // After the command field: fields 14-17 (utime, stime, cutime, cstime) are at indexes 11-14.
  const n = (i: number): number => Number(f[i]) * TICK_MS;
  return { self: n(11) + n(12), children: n(13) + n(14) };
}

export interface LoadResult {
  readonly runs: number;
  readonly seconds: number;
  readonly perSecond: number;
  readonly selfCpuPct: number;
  readonly childCpuPct: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
}

/** Keeps `concurrency` calls of `once` in flight for `seconds`; `once` resolves true for a good run. */
export async function closedLoop(
  concurrency: number,
  seconds: number,
  once: () => Promise<boolean>,
): Promise<LoadResult> {
  const lat: number[] = [];
  let failures = 0;
  const c0 = cpuMs();
  const t0 = performance.now();
  const end = t0 + seconds * 1000;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < end) {
        const s = performance.now();
        if (!(await once())) failures++;
        lat.push(performance.now() - s);
      }
    }),
  );
  const took = (performance.now() - t0) / 1000;
  const c1 = cpuMs();
  if (failures > 0) throw new Error(`${failures} runs failed`);
  lat.sort((a, b) => a - b);
  const pct = (q: number): number => lat[Math.min(lat.length - 1, Math.floor(q * lat.length))] ?? 0;
  return {
    runs: lat.length,
    seconds: took,
    perSecond: lat.length / took,
    selfCpuPct: ((c1.self - c0.self) / (took * 1000)) * 100,
    childCpuPct: ((c1.children - c0.children) / (took * 1000)) * 100,
    p50Ms: pct(0.5),
    p99Ms: pct(0.99),
  };
}

/** One table row. */
export function row(label: string, r: LoadResult): string {
  return [
    label.padEnd(28),
    `${r.perSecond.toFixed(0).padStart(7)}/s`,
    `p50 ${r.p50Ms.toFixed(2).padStart(7)} ms`,
    `p99 ${r.p99Ms.toFixed(2).padStart(7)} ms`,
    `cpu self ${r.selfCpuPct.toFixed(0).padStart(4)}%`,
    `children ${r.childCpuPct.toFixed(0).padStart(4)}%`,
  ].join("  ");
}
