import type { DeleteDowntimeCommand, ScheduleDowntimeCommand } from "../model/commands.js";
import type { EngineEvent } from "../model/events.js";
import { keyOf } from "./acknowledgements.js";
import type { Downtime, EngineState } from "./engine-state.js";
import { eventBase, type ObjectRecord } from "./object-record.js";
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
  for (const rec of dt.objects) {
    out.push({
      type: "DowntimeScheduled",
      ...eventBase(rec, at),
      id: dt.id,
      start: dt.start,
      end: dt.end,
      author: dt.author,
      comment: dt.comment,
    });
  }
  if (dt.start <= at) startDowntime(dt, at, out);
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
  for (const rec of dt.objects) {
    if (dt.active) rec.activeDowntimes--;
    out.push({
      type: "DowntimeDeleted",
      ...eventBase(rec, cmd.at),
      id: dt.id,
      reason: "command",
      wasActive: dt.active,
    });
  }
}

/** Makes a downtime active on each of its objects. */
export function startDowntime(dt: Downtime, at: number, out: EngineEvent[]): void {
  dt.active = true;
  for (const rec of dt.objects) {
    rec.activeDowntimes++;
    out.push({ type: "DowntimeStarted", ...eventBase(rec, at), id: dt.id, end: dt.end });
  }
}

/** Ends a downtime at its end time and forgets it. */
export function endDowntime(st: EngineState, dt: Downtime, at: number, out: EngineEvent[]): void {
  st.downtimes.delete(dt.id);
  for (const rec of dt.objects) {
    if (dt.active) rec.activeDowntimes--;
    out.push({ type: "DowntimeEnded", ...eventBase(rec, at), id: dt.id });
  }
}

/**
 * Drops removed objects from every downtime (a reload removed them); a downtime left with no object
 * is forgotten.
 */
export function dropRemovedObjects(
  st: EngineState,
  removed: ReadonlySet<ObjectRecord>,
  at: number,
  out: EngineEvent[],
): void {
  for (const dt of st.downtimes.values()) {
    if (!dt.objects.some((rec) => removed.has(rec))) continue;
    const kept: ObjectRecord[] = [];
    for (const rec of dt.objects) {
      if (!removed.has(rec)) {
        kept.push(rec);
        continue;
      }
      if (dt.active) rec.activeDowntimes--;
      out.push({
        type: "DowntimeDeleted",
        ...eventBase(rec, at),
        id: dt.id,
        reason: "object-removed",
        wasActive: dt.active,
      });
    }
    dt.objects = kept;
    if (kept.length === 0) st.downtimes.delete(dt.id);
  }
}
