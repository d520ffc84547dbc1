import { readlinkSync } from "node:fs";
import { getPriority, setPriority } from "node:os";

/**
 * Lowers the calling thread's CPU priority to `nice` (0..19; never raises it). On Linux the nice
 * value is per thread: setpriority on the thread's own id (from /proc/thread-self) changes only
 * this thread, and lowering it needs no privilege. Returns whether it changed; elsewhere (no
 * /proc/thread-self) it does nothing.
 */
export function lowerThreadPriority(nice: number): boolean {
  if (nice <= 0) return false;
  try {
    const tid = Number(readlinkSync("/proc/thread-self").split("/").pop());
    if (!Number.isInteger(tid) || tid <= 0) return false;
    const target = Math.min(19, nice);
    if (getPriority(tid) >= target) return false;
    setPriority(tid, target);
    return true;
  } catch {
    return false;
  }
}
