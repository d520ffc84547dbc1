import { threadStatFields } from "./thread-stat.js";

/**
 * CPU time (user + system, milliseconds) the calling thread has used, from /proc/thread-self/stat;
 * undefined where that is not readable (not Linux). For benchmarks and metrics that must tell the
 * reader's thread from the writer's: process.cpuUsage() sums every thread.
 */
export function threadCpuMs(): number | undefined {
  const f = threadStatFields();
  if (f === undefined) return undefined;
  // utime and stime (fields 14 and 15), in clock ticks of 10 ms.
  const ticks = Number(f[11]) + Number(f[12]);
  return Number.isFinite(ticks) ? ticks * 10 : undefined;
}
