import type { DeleteDowntimeCommand, ScheduleDowntimeCommand } from "../model/commands.js";
import type { EngineEvent } from "../model/events.js";
import { keyOf } from "./acknowledgements.js";
import type { Downtime, EngineState } from "./engine-state.js";
import { eventBase, isProblemState, type ObjectTable, stateOf } from "./object-table.js";
import { resolveTarget } from "./targets.js";
import { DOWNTIME_END, DOWNTIME_START } from "./timer-queue.js";

/**
 * Schedules a downtime. A fixed one [start, end) whose window has already begun starts at once (in
 * the same command); otherwise a timer starts it, and a timer ends it. A flexible one waits in its
 * window: it starts when a covered object is in a problem state (at once, or when the window opens,
 * if one already is), or expires unused when the window closes (docs/states.md).
 */
export function scheduleDowntime(st: EngineState, cmd: ScheduleDowntimeCommand, out: EngineEvent[]): void {
  const at = cmd.at;
  const reject = (reason: string, key?: string): void => {
    out.push({ type: "CommandRejected", at, command: cmd.type, reason, ...keyOf(key) });
  };
  if (!(cmd.end > cmd.start)) {
    reject("downtime must end after it starts");
    return;
  }
  if (cmd.end <= at) {
    reject("downtime would end in the past");
    return;
  }
  const flexible = cmd.flexible === true;
  const durationMs = flexible ? (cmd.durationMs ?? 0) : 0;
  if (flexible && !(durationMs > 0)) {
    reject("a flexible downtime needs a positive duration");
    return;
  }
  if (cmd.id !== undefined && st.downtimes.has(cmd.id)) {
    reject(`downtime ${cmd.id} already exists`);
    return;
  }
  const r = resolveTarget(st, cmd.target);
  if (!r.ok) {
    reject(r.reason, r.key);
    return;
  }

  const ord = ++st.downtimeSeq;
  const dt: Downtime = {
    id: cmd.id ?? `dt-${ord}`,
    ord,
    start: cmd.start,
    end: cmd.end,
    author: cmd.author,
    comment: cmd.comment,
    flexible,
    durationMs,
    created: at,
    active: false,
    endsAt: cmd.end,
    objects: r.records,
  };
  st.downtimes.set(dt.id, dt);
  if (flexible) st.waiting.add(dt);
  for (const i of dt.objects) {
    out.push({
      type: "DowntimeScheduled",
      ...eventBase(st.objects, i, at),
      id: dt.id,
      start: dt.start,
      end: dt.end,
      author: dt.author,
      comment: dt.comment,
      ...(flexible ? { flexible, durationMs } : {}),
    });
  }
  if (dt.start <= at) openWindow(st, dt, at, out);
  else st.timers.push({ at: dt.start, kind: DOWNTIME_START, ord, ref: dt });
  st.timers.push({ at: dt.end, kind: DOWNTIME_END, ord, ref: dt });
}

/**
 * A downtime's window opens: a fixed one starts; a flexible one starts if a covered object is in a
 * problem state already, and otherwise waits for one (triggerFlexible).
 */
export function openWindow(st: EngineState, dt: Downtime, at: number, out: EngineEvent[]): void {
  if (!dt.flexible) {
    startDowntime(st, dt, at, out);
    return;
  }
  const t = st.objects;
  if (dt.objects.some((i) => isProblemState(stateOf(t, i)))) startDowntime(st, dt, at, out);
}

/**
 * Each waiting downtime's objects as a set, by the array they are held in (a reload or a restore
 * replaces the array, and so the set): a problem result asks every waiting flexible downtime
 * whether it covers the object, and a selector's downtime may cover thousands.
 */
const members = new WeakMap<readonly number[], Set<number>>();

function covers(dt: Downtime, i: number): boolean {
  if (dt.objects.length <= 16) return dt.objects.includes(i);
  let set = members.get(dt.objects);
  if (set === undefined) {
    set = new Set(dt.objects);
    members.set(dt.objects, set);
  }
  return set.has(i);
}

/**
 * After a result left object `i` in a problem state (soft or hard): starts every flexible downtime
 * covering it whose window is open and which waits for a problem. The whole downtime starts, on
 * every object it covers, and lasts its duration from now. `from` is where the result's events
 * begin in `out` (its CheckResultProcessed): the downtime's events go right after that one, before
 * the result's StateChange, and the result's status shows the object in downtime — so that a
 * notifier sees the problem in downtime, as Icinga 2 triggers downtimes before it notifies.
 */
export function triggerFlexible(
  st: EngineState,
  i: number,
  at: number,
  out: EngineEvent[],
  from: number,
): void {
  if (st.waiting.size === 0 || !isProblemState(stateOf(st.objects, i))) return;
  const started: EngineEvent[] = [];
  // In scheduling order (startDowntime takes a started one out of the set as it goes).
  for (const dt of [...st.waiting].sort((a, b) => a.ord - b.ord)) {
    if (at < dt.start || at >= dt.end) continue;
    if (covers(dt, i)) startDowntime(st, dt, at, started);
  }
  if (started.length === 0) return;
  const e = out[from];
  if (e?.type !== "CheckResultProcessed") {
    out.push(...started);
    return;
  }
  out[from] = { ...e, status: { ...e.status, inDowntime: true } };
  out.splice(from + 1, 0, ...started);
}

/** Deletes a downtime, ending it first if it is active. */
export function deleteDowntime(st: EngineState, cmd: DeleteDowntimeCommand, out: EngineEvent[]): void {
  const dt = st.downtimes.get(cmd.id);
  if (dt === undefined) {
    out.push({ type: "CommandRejected", at: cmd.at, command: cmd.type, reason: `no downtime ${cmd.id}` });
    return;
  }
  st.downtimes.delete(dt.id);
  st.waiting.delete(dt);
  const t = st.objects;
  for (const i of dt.objects) {
    if (dt.active) t.activeDowntimes[i] = (t.activeDowntimes[i] as number) - 1;
    out.push({
      type: "DowntimeDeleted",
      ...eventBase(t, i, cmd.at),
      id: dt.id,
      reason: "command",
      wasActive: dt.active,
    });
  }
}

/**
 * Makes a downtime active on each of its objects. A flexible one now lasts its duration: its end
 * timer moves there.
 */
export function startDowntime(st: EngineState, dt: Downtime, at: number, out: EngineEvent[]): void {
  dt.active = true;
  st.waiting.delete(dt);
  if (dt.flexible) {
    dt.endsAt = at + dt.durationMs;
    st.timers.push({ at: dt.endsAt, kind: DOWNTIME_END, ord: dt.ord, ref: dt });
  }
  const t = st.objects;
  for (const i of dt.objects) {
    t.activeDowntimes[i] = (t.activeDowntimes[i] as number) + 1;
    out.push({ type: "DowntimeStarted", ...eventBase(t, i, at), id: dt.id, end: dt.endsAt });
  }
}

/**
 * Ends a downtime at its end time and forgets it: DowntimeEnded when it was active, DowntimeExpired
 * for a flexible one whose window closed without a problem.
 */
export function endDowntime(st: EngineState, dt: Downtime, at: number, out: EngineEvent[]): void {
  st.downtimes.delete(dt.id);
  st.waiting.delete(dt);
  const t = st.objects;
  for (const i of dt.objects) {
    if (dt.active) t.activeDowntimes[i] = (t.activeDowntimes[i] as number) - 1;
    out.push({ type: dt.active ? "DowntimeEnded" : "DowntimeExpired", ...eventBase(t, i, at), id: dt.id });
  }
}

/**
 * Renumbers every downtime's objects for the table a reload built (`moved`: old number → new, -1
 * for removed) and drops the removed ones from it; a downtime left with no object is forgotten.
 * `old` is the table being replaced: removed objects are named from it.
 */
export function renumberDowntimes(
  st: EngineState,
  old: ObjectTable,
  moved: Int32Array,
  at: number,
  out: EngineEvent[],
): void {
  for (const dt of st.downtimes.values()) {
    const kept: number[] = [];
    for (const i of dt.objects) {
      const to = moved[i] as number;
      if (to >= 0) {
        kept.push(to);
        continue;
      }
      out.push({
        type: "DowntimeDeleted",
        ...eventBase(old, i, at),
        id: dt.id,
        reason: "object-removed",
        wasActive: dt.active,
      });
    }
    const hadObjects = dt.objects.length > 0;
    dt.objects = kept;
    if (kept.length === 0 && hadObjects) {
      st.downtimes.delete(dt.id);
      st.waiting.delete(dt);
    }
  }
}
