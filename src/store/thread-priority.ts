import { execFileSync } from "node:child_process";
import { readFileSync, readlinkSync } from "node:fs";
import { getPriority, setPriority } from "node:os";
import { threadStatFields } from "./thread-stat.js";

/**
 * How a thread yields the CPU to the process's other threads: `idle` runs it under Linux's
 * SCHED_IDLE policy (it gets a CPU that nothing else wants, and a thread of normal priority that
 * wakes on that CPU takes it at once), `nice` at a lower nice value (a smaller share whenever the
 * CPUs are contended, but a share), `normal` at the process's own priority. `auto` starts at the
 * process's priority and moves to SCHED_IDLE once the thread is busy (applyThreadPolicy): a
 * thread that mostly waits gets a CPU as soon as it wakes, one that runs flat out yields it.
 */
export type ThreadPolicy = "idle" | "nice" | "normal" | "auto";

/** What lowerThreadPriority did: the lowered policy now in force, or nothing. */
export type Lowered = "idle" | "nice" | "unchanged";

/** SCHED_IDLE in /proc/<tid>/stat's `policy` field. */
const SCHED_IDLE = 5;

/**
 * `auto`: the share of wall time above which the thread counts as busy in a sample — running or
 * ready to run (waiting in a run queue: a thread with a backlog on a saturated machine is busy
 * too, however little CPU it gets).
 */
export const AUTO_BUSY_SHARE = 0.8;

/** `auto`: how many busy samples (a second each) in a row move the thread to SCHED_IDLE. */
export const AUTO_BUSY_SAMPLES = 3;

/** How `auto` samples the thread (tests shorten the period). */
export interface AutoPolicyOptions {
  /** The sample period in ms (default 1,000). */
  readonly sampleMs?: number;
  /** Hears what was put in force when the thread is lowered. */
  readonly onLowered?: (lowered: Lowered) => void;
}

/**
 * Puts `policy` in force on the calling thread. `idle` and `nice` lower it now (lowerThreadPriority);
 * `normal` leaves it alone; `auto` leaves it alone and samples the thread every second (an unref'd
 * timer on the calling thread's event loop), lowering it to `idle` once it was busy (running or
 * ready to run) more than AUTO_BUSY_SHARE of the time for AUTO_BUSY_SAMPLES samples in a row. The
 * lowering is for good: an unprivileged thread may lower its priority but not raise it again.
 */
export function applyThreadPolicy(policy: ThreadPolicy, nice: number, o: AutoPolicyOptions = {}): Lowered {
  switch (policy) {
    case "idle":
    case "nice":
      return lowerThreadPriority(policy, nice);
    case "normal":
      return "unchanged";
    case "auto": {
      let last = busyNs();
      if (last === undefined) return "unchanged";
      let at = performance.now();
      let busy = 0;
      const timer = setInterval(() => {
        const now = performance.now();
        const ns = busyNs();
        if (ns === undefined || last === undefined) return;
        // Against the time that passed, not the nominal period: a busy thread's timer fires late.
        const share = (ns - last) / 1e6 / Math.max(1, now - at);
        last = ns;
        at = now;
        busy = share > AUTO_BUSY_SHARE ? busy + 1 : 0;
        if (busy < AUTO_BUSY_SAMPLES) return;
        clearInterval(timer);
        const lowered = lowerThreadPriority("idle", nice);
        o.onLowered?.(lowered);
      }, o.sampleMs ?? 1_000);
      timer.unref();
      return "unchanged";
    }
    default: {
      const never: never = policy;
      throw new Error(`unknown thread policy ${String(never)}`);
    }
  }
}

/**
 * Nanoseconds the calling thread has run or waited in a run queue (the first two fields of
 * /proc/thread-self/schedstat), or undefined where that is not readable.
 */
function busyNs(): number | undefined {
  try {
    const [run, wait] = readFileSync("/proc/thread-self/schedstat", "utf8").split(" ");
    const ns = Number(run) + Number(wait);
    return Number.isFinite(ns) ? ns : undefined;
  } catch {
    return undefined;
  }
}

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
export function lowerThreadPriority(policy: "idle" | "nice", nice: number): Lowered {
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
