import type { RescheduleCheckCommand } from "../model/commands.js";
import type { EngineEvent } from "../model/events.js";
import type { EngineState } from "./engine-state.js";
import { checkOf, eventBase, isSwitchedOff, keyOf, type ObjectTable } from "./object-table.js";
import { resolveTarget } from "./targets.js";

/**
 * Why object `i` cannot have its check rescheduled, or undefined when it can: the one place that
 * decides. An object with a passive check has no check to run; a non-forced reschedule of an object
 * whose active checks are switched off (SetObjectFlags) is refused, a forced one runs once (`force`).
 */
export function rescheduleRefusal(t: ObjectTable, i: number, force: boolean): string | undefined {
  if (checkOf(t, i).type === "passive") return `${keyOf(t, i)} has a passive check: there is no check to run`;
  if (!force && isSwitchedOff(t, i, "activeChecks")) {
    return `${keyOf(t, i)} has its active checks switched off: reschedule it with force to run it once`;
  }
  return undefined;
}

/**
 * Reschedules the targeted objects' checks: one CheckRescheduled per object, which the scheduler
 * (on the main thread, through the projection) runs at `runAt`. An explicit object that cannot be
 * rescheduled is rejected; a selector skips such objects, and is rejected only when it rescheduled
 * nothing.
 */
export function rescheduleCheck(st: EngineState, cmd: RescheduleCheckCommand, out: EngineEvent[]): void {
  const at = cmd.at;
  const r = resolveTarget(st, cmd.target);
  if (!r.ok) {
    out.push({
      type: "CommandRejected",
      at,
      command: cmd.type,
      reason: r.reason,
      ...(r.key === undefined ? {} : { key: r.key }),
    });
    return;
  }
  const t = st.objects;
  // A time already past means at once: when applied, so that it is pending until a result checked
  // after the command (a past time could predate the last check and count as run already).
  const runAt = Math.max(cmd.runAt ?? at, at);
  let done = 0;
  for (const i of r.records) {
    const refused = rescheduleRefusal(t, i, cmd.force);
    if (refused !== undefined) {
      if (!r.bySelector) {
        out.push({ type: "CommandRejected", at, command: cmd.type, key: keyOf(t, i), reason: refused });
      }
      continue;
    }
    done++;
    out.push({
      type: "CheckRescheduled",
      ...eventBase(t, i, at),
      runAt,
      force: cmd.force,
      author: cmd.author,
    });
  }
  if (done === 0 && r.bySelector) {
    out.push({
      type: "CommandRejected",
      at,
      command: cmd.type,
      reason: "no matching object has an active check",
    });
  }
}
