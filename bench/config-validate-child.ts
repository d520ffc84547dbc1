/**
 * One `lookout validate` run for bench/config-validate.ts: loads FILE with the real loader, prints
 * {loadMs, maxRssKb, phases} as JSON on stdout, exits 1 on diagnostics (printed on stderr). Each
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
if (!r.ok) {
  for (const d of r.diagnostics.slice(0, 20)) process.stderr.write(`${formatDiagnostic(d)}\n`);
  process.exit(1);
}
process.stdout.write(`${JSON.stringify({ loadMs, maxRssKb: process.resourceUsage().maxRSS, phases })}\n`);
