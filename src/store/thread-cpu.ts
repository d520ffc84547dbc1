import { readFileSync } from "node:fs";

/**
 * CPU time (user + system, milliseconds) the calling thread has used, from /proc/thread-self/stat;
 * undefined where that is not readable (not Linux). For benchmarks and metrics that must tell the
 * reader's thread from the writer's: process.cpuUsage() sums every thread.
 */
export function threadCpuMs(): number | undefined {
  try {
    const stat = readFileSync("/proc/thread-self/stat", "utf8");
    // Fields after the command name, which is in parentheses and may contain spaces.
    const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    const ticks = Number(f[11]) + Number(f[12]);
    return Number.isFinite(ticks) ? ticks * 10 : undefined;
  } catch {
    return undefined;
  }
}
