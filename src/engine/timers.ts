import type { EngineEvent } from "../model/events.js";
import type { CheckResult, ExitStatus } from "../model/index.js";
import { endDowntime, openWindow, triggerFlexible } from "./downtimes.js";
import type { Downtime, EngineState, TimerRef } from "./engine-state.js";
import { formatDuration } from "./format-duration.js";
import { checkOf, hostNameOf, keyOf, type ObjectTable, serviceNameOf } from "./object-table.js";
import { processResult } from "./process-result.js";
import { DOWNTIME_END, DOWNTIME_START, FRESHNESS, type TimerEntry } from "./timer-queue.js";

const STALE_EXIT: Readonly<Record<"UNKNOWN" | "WARNING" | "CRITICAL", ExitStatus>> = {
  WARNING: 1,
  CRITICAL: 2,
  UNKNOWN: 3,
};

/** The freshness deadline of a passive object, or undefined when it has none. */
export function freshnessDue(t: ObjectTable, i: number): number | undefined {
  const check = checkOf(t, i);
  if (check.type !== "passive" || !(check.freshnessThresholdMs > 0)) return undefined;
  return (t.lastReceived[i] as number) + check.freshnessThresholdMs;
}

/** Queues the freshness timer of a passive object; its ordinal is its object number. */
export function queueFreshness(st: EngineState, i: number): void {
  const due = freshnessDue(st.objects, i);
  if (due !== undefined) st.timers.push({ at: due, kind: FRESHNESS, ord: i, ref: i });
}

/**
 * Rebuilds the timer queue from the state: after a reload or a restore. The queue's order depends
 * only on (due, kind, ordinal), so a rebuilt queue fires exactly like the one it replaces.
 */
export function rebuildTimers(st: EngineState): void {
  st.timers.clear();
  for (let i = 0; i < st.objects.size; i++) queueFreshness(st, i);
  for (const dt of st.downtimes.values()) {
    if (!dt.active) st.timers.push({ at: dt.start, kind: DOWNTIME_START, ord: dt.ord, ref: dt });
    st.timers.push({ at: dt.endsAt, kind: DOWNTIME_END, ord: dt.ord, ref: dt });
  }
}

/**
 * Drops queue entries that no longer stand for anything and re-queues freshness entries whose
 * deadline moved on, so the head is a timer that will really fire.
 */
function settleHead(st: EngineState): TimerEntry<TimerRef> | undefined {
  for (;;) {
    const e = st.timers.peek();
    if (e === undefined) return undefined;
    if (e.kind === FRESHNESS) {
      // The queue is rebuilt whenever the table is replaced: the number is an object of this table.
      const i = e.ref as number;
      const due = freshnessDue(st.objects, i);
      if (due === e.at) return e;
      st.timers.pop();
      if (due !== undefined) st.timers.push({ at: due, kind: FRESHNESS, ord: i, ref: i });
      continue;
    }
    const dt = e.ref as Downtime;
    // A flexible downtime that started has its end timer moved: the one at its window's end is moot.
    const live =
      st.downtimes.get(dt.id) === dt &&
      (e.kind === DOWNTIME_END ? e.at === dt.endsAt : !dt.active && e.at === dt.start);
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
        openWindow(st, e.ref as Downtime, at, out);
        break;
      case DOWNTIME_END:
        endDowntime(st, e.ref as Downtime, at, out);
        break;
      case FRESHNESS: {
        const i = e.ref as number;
        const from = out.length;
        processResult(st.objects, i, staleResult(st.objects, i, at), at, true, out);
        triggerFlexible(st, i, at, out, from);
        queueFreshness(st, i);
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
function staleResult(t: ObjectTable, i: number, at: number): CheckResult {
  const check = checkOf(t, i);
  if (check.type !== "passive") throw new Error(`${keyOf(t, i)} is not passive`);
  const output =
    `No result for ${formatDuration(at - (t.lastSubmitted[i] as number))} ` +
    `(freshness threshold ${formatDuration(check.freshnessThresholdMs)})`;
  const base = {
    host: hostNameOf(t, i),
    // Never before the last result: a submitter clock running ahead must not move lastCheck back.
    checkedAt: Math.max(at, t.lastCheck[i] as number),
    durationMs: 0,
    source: "freshness" as const,
    exitStatus: STALE_EXIT[check.staleStatus],
    output,
    longOutput: "",
    perfdata: [],
  };
  const service = serviceNameOf(t, i);
  return service === undefined ? base : { ...base, service };
}
