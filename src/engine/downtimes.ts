import type { DeleteDowntimeCommand, ScheduleDowntimeCommand } from "../model/commands.js";
import type { EngineEvent } from "../model/events.js";
import { keyOf } from "./acknowledgements.js";
import type { Downtime, EngineState } from "./engine-state.js";
import { eventBase, type ObjectTable } from "./object-table.js";
import { resolveTarget } from "./targets.js";
import { DOWNTIME_END, DOWNTIME_START } from "./timer-queue.js";

/**
 * Schedules a fixed downtime [start, end). A window that has already begun starts at once (in the
 * same command); otherwise a timer starts it. Either way a timer ends it.
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
    active: false,
    objects: r.records,
  };
  st.downtimes.set(dt.id, dt);
  for (const i of dt.objects) {
    out.push({
      type: "DowntimeScheduled",
      ...eventBase(st.objects, i, at),
      id: dt.id,
      start: dt.start,
      end: dt.end,
      author: dt.author,
      comment: dt.comment,
    });
  }
  if (dt.start <= at) startDowntime(st, dt, at, out);
  else st.timers.push({ at: dt.start, kind: DOWNTIME_START, ord, ref: dt });
  st.timers.push({ at: dt.end, kind: DOWNTIME_END, ord, ref: dt });
}

/** Deletes a downtime, ending it first if it is active. */
export function deleteDowntime(st: EngineState, cmd: DeleteDowntimeCommand, out: EngineEvent[]): void {
  const dt = st.downtimes.get(cmd.id);
  if (dt === undefined) {
    out.push({ type: "CommandRejected", at: cmd.at, command: cmd.type, reason: `no downtime ${cmd.id}` });
    return;
  }
  st.downtimes.delete(dt.id);
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

/** Makes a downtime active on each of its objects. */
export function startDowntime(st: EngineState, dt: Downtime, at: number, out: EngineEvent[]): void {
  dt.active = true;
  const t = st.objects;
  for (const i of dt.objects) {
    t.activeDowntimes[i] = (t.activeDowntimes[i] as number) + 1;
    out.push({ type: "DowntimeStarted", ...eventBase(t, i, at), id: dt.id, end: dt.end });
  }
}

/** Ends a downtime at its end time and forgets it. */
export function endDowntime(st: EngineState, dt: Downtime, at: number, out: EngineEvent[]): void {
  st.downtimes.delete(dt.id);
  const t = st.objects;
  for (const i of dt.objects) {
    if (dt.active) t.activeDowntimes[i] = (t.activeDowntimes[i] as number) - 1;
    out.push({ type: "DowntimeEnded", ...eventBase(t, i, at), id: dt.id });
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
    if (kept.length === 0 && hadObjects) st.downtimes.delete(dt.id);
  }
}
