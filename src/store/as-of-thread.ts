/**
 * The thread that rebuilds projections of the past (src/store/as-of.ts): it owns a read-only
 * connection to the event log (src/store/as-of-log.ts) and answers one request at a time, under
 * the same low CPU policy as the writer (SCHED_IDLE, else nice), so that a read of the past never
 * takes CPU from the live reads or ingestion.
 */
import { parentPort, workerData } from "node:worker_threads";
import { type AsOfLog, type AsOfPlan, openAsOfLog } from "./as-of-log.js";
import { OutOfRangeError } from "./errors.js";
import { transferList } from "./packed-statuses.js";
import type { ProjectionDelta } from "./records.js";
import { applyThreadPolicy } from "./thread-priority.js";

/** What the owning thread asks. */
export type ToAsOf =
  | { readonly t: "plan"; readonly id: number; readonly at: number }
  | { readonly t: "rebuild"; readonly id: number; readonly plan: AsOfPlan };

/** What the thread answers: a plan, a projection, or why not. */
export type FromAsOf =
  | { readonly t: "plan"; readonly id: number; readonly plan: AsOfPlan }
  /** The projection, as the delta that makes it of an empty one (AsOfLog.rebuild). */
  | { readonly t: "rebuilt"; readonly id: number; readonly delta: ProjectionDelta }
  | {
      readonly t: "error";
      readonly id: number;
      readonly message: string;
      /** A refusal (OutOfRangeError), and whether its plan went stale; absent: a failure. */
      readonly outOfRange?: { readonly stale: boolean };
    };

/** The thread's workerData. */
export interface AsOfThreadData {
  readonly dataDir: string;
  /**
   * One Int32 the owning thread keeps at 1 while the writer has work queued (0 otherwise), and
   * notifies (Atomics.notify) when it drops to 0.
   */
  readonly busy?: Int32Array;
}

/** Work a rebuild does between two looks at the writer (ms). */
export const PACE_SLICE_MS = 10;
/** The longest a rebuild pauses at once for a busy writer (ms): it always makes some progress. */
export const PACE_MAX_WAIT_MS = 40;

/**
 * A rebuild's pauses: after every PACE_SLICE_MS of work, while the writer has work queued, wait
 * until it has none (woken at once when it drains) or PACE_MAX_WAIT_MS passed. So that ingestion
 * keeps its CPU while history is read — both threads run under SCHED_IDLE, where the kernel would
 * share between them evenly — and a rebuild still gets at least a fifth of a CPU.
 */
export function createPace(
  busy: Int32Array | undefined,
  now: () => number = () => performance.now(),
  wait: (flag: Int32Array, ms: number) => void = (flag, ms) => {
    Atomics.wait(flag, 0, 1, ms);
  },
): () => void {
  if (busy === undefined) return () => {};
  let sliceStart = now();
  return () => {
    const t = now();
    if (t - sliceStart < PACE_SLICE_MS) return;
    if (Atomics.load(busy, 0) === 1) wait(busy, PACE_MAX_WAIT_MS);
    sliceStart = now();
  };
}

const port = parentPort;
if (port !== null) {
  const { dataDir, busy } = workerData as AsOfThreadData;
  const pace = createPace(busy);
  applyThreadPolicy("idle", 10);
  let log: AsOfLog | undefined;
  port.on("message", (m: ToAsOf) => {
    try {
      if (log === undefined) log = openAsOfLog(dataDir, { pace });
      const l = log;
      if (m.t === "plan") {
        port.postMessage({ t: "plan", id: m.id, plan: l.plan(m.at) } satisfies FromAsOf);
      } else {
        const delta = l.rebuild(m.plan);
        port.postMessage({ t: "rebuilt", id: m.id, delta } satisfies FromAsOf, transferList(delta));
      }
    } catch (e) {
      port.postMessage({
        t: "error",
        id: m.id,
        message: e instanceof Error ? e.message : String(e),
        ...(e instanceof OutOfRangeError ? { outOfRange: { stale: e.stale } } : {}),
      } satisfies FromAsOf);
    }
  });
}
