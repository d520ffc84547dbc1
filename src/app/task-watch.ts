import { closeSync, openSync, readSync } from "node:fs";

/** What a watch saw of the thread's event loop while it ran. */
export interface LongestTask {
  /** The longest turn of the event loop, in wall-clock milliseconds. */
  readonly ms: number;
  /**
   * The most CPU time the thread itself spent in one turn, in milliseconds; undefined where the
   * thread's CPU time cannot be read (no /proc/thread-self/schedstat). Unlike `ms` it does not grow
   * when the machine is busy and the thread waits for a CPU: it is what the thread's own work cost.
   */
  readonly cpuMs: number | undefined;
}

/** A running watch; `stop` ends it and says what it saw. */
export interface TaskWatch {
  stop(): LongestTask;
}

/** How often the watch's timer asks to run: the resolution of what it measures. */
const TICK_MS = 5;

/**
 * Watches the calling thread's event loop until `stop`: a timer that asks to run every few
 * milliseconds runs late by as long as the loop was busy with other work, and the thread's CPU
 * time between two runs (Linux: /proc/thread-self/schedstat, in nanoseconds) tells the thread's
 * own work from time spent waiting for a CPU. A turn here may hold several tasks (everything the
 * loop ran between two runs of the timer): it is what a request arriving then waited for.
 *
 * For spans of seconds, such as a reload: the timer costs a few microseconds per run.
 */
export function watchLongestTask(): TaskWatch {
  const cpu = openThreadCpu();
  let lastAt = performance.now();
  let lastCpu = cpu?.read();
  let longest = 0;
  let longestCpu = 0;
  const sample = (): void => {
    const at = performance.now();
    const used = cpu?.read();
    longest = Math.max(longest, at - lastAt - TICK_MS);
    if (used !== undefined && lastCpu !== undefined) longestCpu = Math.max(longestCpu, used - lastCpu);
    lastAt = at;
    lastCpu = used;
  };
  const timer = setInterval(sample, TICK_MS);
  // The watch must never keep a process alive that is otherwise done.
  timer.unref();
  return {
    stop() {
      clearInterval(timer);
      sample();
      cpu?.close();
      return {
        ms: Math.max(0, Math.round(longest)),
        cpuMs: cpu === undefined ? undefined : Math.round(longestCpu),
      };
    },
  };
}

/** The calling thread's CPU time in ms, read through a descriptor kept open; undefined if unreadable. */
function openThreadCpu(): { read(): number | undefined; close(): void } | undefined {
  let fd: number;
  try {
    // thread-self names the opening thread: the descriptor keeps reading that thread's figures.
    fd = openSync("/proc/thread-self/schedstat", "r");
  } catch {
    return undefined;
  }
  const buf = Buffer.alloc(128);
  const read = (): number | undefined => {
    try {
      const n = readSync(fd, buf, 0, buf.length, 0);
      // "<ns on CPU> <ns waiting for a CPU> <timeslices>"
      const ns = Number(buf.toString("latin1", 0, n).split(" ", 1)[0]);
      return Number.isFinite(ns) ? ns / 1e6 : undefined;
    } catch {
      return undefined;
    }
  };
  if (read() === undefined) {
    closeSync(fd);
    return undefined;
  }
  return { read, close: () => closeSync(fd) };
}
