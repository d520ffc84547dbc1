import type { EngineEvent } from "../model/events.js";
import type { CheckResult, ExitStatus } from "../model/index.js";
import { endDowntime, startDowntime } from "./downtimes.js";
import type { Downtime, EngineState } from "./engine-state.js";
import { formatDuration } from "./format-duration.js";
import type { ObjectRecord } from "./object-record.js";
import { processResult } from "./process-result.js";
import { DOWNTIME_END, DOWNTIME_START, FRESHNESS, type TimerEntry } from "./timer-queue.js";

const STALE_EXIT: Readonly<Record<"UNKNOWN" | "WARNING" | "CRITICAL", ExitStatus>> = {
  WARNING: 1,
  CRITICAL: 2,
  UNKNOWN: 3,
};

/** The freshness deadline of a passive object, or undefined when it has none. */
export function freshnessDue(rec: ObjectRecord): number | undefined {
  const check = rec.check;
  if (check.type !== "passive" || !(check.freshnessThresholdMs > 0)) return undefined;
  return rec.lastReceived + check.freshnessThresholdMs;
}

/** Queues the freshness timer of a passive object (used when the queue is rebuilt). */
export function queueFreshness(st: EngineState, rec: ObjectRecord): void {
  const due = freshnessDue(rec);
  if (due !== undefined) st.timers.push({ at: due, kind: FRESHNESS, ord: rec.ord, ref: rec });
}

/**
 * Rebuilds the timer queue from the state: after a reload or a restore. The queue's order depends
 * only on (due, kind, ordinal), so a rebuilt queue fires exactly like the one it replaces.
 */
export function rebuildTimers(st: EngineState): void {
  st.timers.clear();
  for (const rec of st.objects.values()) queueFreshness(st, rec);
  for (const dt of st.downtimes.values()) {
    if (!dt.active) st.timers.push({ at: dt.start, kind: DOWNTIME_START, ord: dt.ord, ref: dt });
    st.timers.push({ at: dt.end, kind: DOWNTIME_END, ord: dt.ord, ref: dt });
  }
}

/**
 * Drops queue entries that no longer stand for anything and re-queues freshness entries whose
 * deadline moved on, so the head is a timer that will really fire.
 */
function settleHead(st: EngineState): TimerEntry<ObjectRecord | Downtime> | undefined {
  for (;;) {
    const e = st.timers.peek();
    if (e === undefined) return undefined;
    if (e.kind === FRESHNESS) {
      const rec = e.ref as ObjectRecord;
      const due = st.objects.get(rec.key) === rec ? freshnessDue(rec) : undefined;
      if (due === e.at) return e;
      st.timers.pop();
      if (due !== undefined) st.timers.push({ at: due, kind: FRESHNESS, ord: rec.ord, ref: rec });
      continue;
    }
    const dt = e.ref as Downtime;
    const live = st.downtimes.get(dt.id) === dt && (e.kind === DOWNTIME_END || !dt.active);
    if (live) return e;
    st.timers.pop();
  }
}

/** When the next timer is due (ms since the epoch), or undefined when none is pending. */
export function nextWakeup(st: EngineState): number | undefined {
  return settleHead(st)?.at;
}

/**
 * Fires every timer due at or before `at`, in (due, kind, ordinal) order. Everything it causes is
 * stamped `at`: the moment the engine noticed, which is when the writer applied the command.
 */
export function fireDue(st: EngineState, at: number, out: EngineEvent[]): void {
  for (;;) {
    const e = settleHead(st);
    if (e === undefined || e.at > at) return;
    st.timers.pop();
    switch (e.kind) {
      case DOWNTIME_START:
        startDowntime(e.ref as Downtime, at, out);
        break;
      case DOWNTIME_END:
        endDowntime(st, e.ref as Downtime, at, out);
        break;
      case FRESHNESS: {
        const rec = e.ref as ObjectRecord;
        processResult(rec, staleResult(rec, at), at, true, out);
        queueFreshness(st, rec);
        break;
      }
      default: {
        const never: never = e.kind;
        throw new Error(`unknown timer kind ${String(never)}`);
      }
    }
  }
}

/** The result freshness checking synthesizes for a passive object that went quiet. */
function staleResult(rec: ObjectRecord, at: number): CheckResult {
  const check = rec.check;
  if (check.type !== "passive") throw new Error(`${rec.key} is not passive`);
  const output =
    `No result for ${formatDuration(at - rec.lastSubmitted)} ` +
    `(freshness threshold ${formatDuration(check.freshnessThresholdMs)})`;
  const base = {
    host: rec.host,
    // Never before the last result: a submitter clock running ahead must not move lastCheck back.
    checkedAt: Math.max(at, rec.lastCheck),
    durationMs: 0,
    source: "freshness" as const,
    exitStatus: STALE_EXIT[check.staleStatus],
    output,
    longOutput: "",
    perfdata: [],
  };
  return rec.service === undefined ? base : { ...base, service: rec.service };
}
