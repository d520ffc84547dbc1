import { execFileSync } from "node:child_process";
import { readlinkSync } from "node:fs";
import { getPriority, setPriority } from "node:os";
import { threadStatFields } from "./thread-stat.js";

/**
 * How a thread yields the CPU to the process's other threads: `idle` runs it under Linux's
 * SCHED_IDLE policy (it gets a CPU that nothing else wants, and a thread of normal priority that
 * wakes on that CPU takes it at once), `nice` at a lower nice value (a smaller share whenever the
 * CPUs are contended, but a share).
 */
export type ThreadPolicy = "idle" | "nice";

/** What lowerThreadPriority did: the policy now in force, or nothing. */
export type Lowered = ThreadPolicy | "unchanged";

/** SCHED_IDLE in /proc/<tid>/stat's `policy` field. */
const SCHED_IDLE = 5;

/** The calling thread's id (Linux), or undefined. */
function threadId(): number | undefined {
  try {
    const tid = Number(readlinkSync("/proc/thread-self").split("/").pop());
    return Number.isInteger(tid) && tid > 0 ? tid : undefined;
  } catch {
    return undefined;
  }
}

/** The calling thread's scheduling policy (field 41 of its stat line), or undefined. */
export function threadPolicy(): number | undefined {
  const policy = Number(threadStatFields()?.[38]);
  return Number.isInteger(policy) ? policy : undefined;
}

/**
 * Lowers the calling thread's CPU priority; never raises it, and never touches the process's other
 * threads. `idle` asks for SCHED_IDLE, set with util-linux's `chrt` (Node has no binding for
 * sched_setscheduler; an unprivileged thread may move itself to SCHED_IDLE), and falls back to
 * `nice` where that is not possible (no `chrt`, not Linux, a sandbox that refuses). `nice` (0..19)
 * is per thread on Linux: setpriority on the thread's own id changes only this thread, and
 * lowering it needs no privilege. Returns what is in force afterwards; elsewhere (no
 * /proc/thread-self) it does nothing.
 */
export function lowerThreadPriority(policy: ThreadPolicy, nice: number): Lowered {
  const tid = threadId();
  if (tid === undefined) return "unchanged";
  switch (policy) {
    case "idle":
      if (threadPolicy() === SCHED_IDLE) return "idle";
      try {
        execFileSync("chrt", ["--idle", "--pid", "0", String(tid)], { stdio: "ignore", timeout: 5_000 });
      } catch {
        // Not available here: a lower nice value still puts reads first.
      }
      if (threadPolicy() === SCHED_IDLE) return "idle";
      return lowerNice(tid, nice);
    case "nice":
      return lowerNice(tid, nice);
    default: {
      const never: never = policy;
      throw new Error(`unknown thread policy ${String(never)}`);
    }
  }
}

function lowerNice(tid: number, nice: number): Lowered {
  if (nice <= 0) return "unchanged";
  try {
    const target = Math.min(19, nice);
    if (getPriority(tid) >= target) return "nice";
    setPriority(tid, target);
    return "nice";
  } catch {
    return "unchanged";
  }
}
