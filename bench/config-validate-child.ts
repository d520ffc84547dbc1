/**
 * One `lookout validate` run for bench/config-validate.ts: loads FILE with the real loader, prints
 * {loadMs, maxRssKb, phases, diagnostics} as JSON on stdout, exits 1 on diagnostics (printed on
 * stderr) unless `--errors` is given (a document with a known mistake: the first diagnostic is
 * printed on stderr and the run counts). Each
 * phase has its wall time, the process's CPU time (all threads: GC helpers count) and the time
 * spent in garbage collection pauses, so a run on a busy machine still says where the work went.
 */
import { readFileSync } from "node:fs";
import { GCProfiler } from "node:v8";
import { formatDiagnostic } from "../src/config/diagnostic.js";
import { loadConfig } from "../src/config/loader.js";

/** GC pauses since the last call, in ms (the profiler reports each collection's cost in µs). */
let profiler = new GCProfiler();
profiler.start();
const gcSinceLast = (): number => {
  const stats = profiler.stop()?.statistics ?? [];
  profiler = new GCProfiler();
  profiler.start();
  return stats.reduce((sum, s) => sum + s.cost, 0) / 1000;
};

const file = process.argv[2] as string;
const start = performance.now();
const text = readFileSync(file, "utf8");
const phases: Record<string, { wallMs: number; cpuMs: number; gcMs: number }> = {};
let cpu = process.cpuUsage();
const r = loadConfig({
  file,
  text,
  onPhase: (p, ms) => {
    const used = process.cpuUsage(cpu);
    cpu = process.cpuUsage();
    phases[p] = { wallMs: ms, cpuMs: (used.user + used.system) / 1000, gcMs: gcSinceLast() };
  },
});
const loadMs = performance.now() - start;
profiler.stop();
const errorsExpected = process.argv.includes("--errors");
if (!r.ok) {
  const shown = errorsExpected ? 1 : 20;
  for (const d of r.diagnostics.slice(0, shown)) process.stderr.write(`${formatDiagnostic(d)}\n`);
  if (!errorsExpected) process.exit(1);
}
const diagnostics = r.ok ? 0 : r.diagnostics.length;
process.stdout.write(
  `${JSON.stringify({ loadMs, cpuMs: cpuMsTotal(), maxRssKb: process.resourceUsage().maxRSS, phases, diagnostics })}\n`,
);

/** The process's CPU time since it started (user and system, all threads), in ms. */
function cpuMsTotal(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
}
