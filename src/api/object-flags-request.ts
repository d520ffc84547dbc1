import { Code, ConnectError } from "@connectrpc/connect";
import type { CoreView } from "../core/core.js";
import type { Target } from "../model/commands.js";
import { OBJECT_SWITCHES, type ObjectFlagsChange } from "../model/object-flags.js";
import { parseSelector } from "../model/selector.js";
import type { SetObjectFlagsRequest } from "./gen/svc/v1/command_service_pb.js";

/**
 * SetObjectFlags's request as the command's change: the switches present in it, none absent. An
 * empty change is refused with `invalid_argument` by the pipeline's validation (src/core/validate.ts).
 */
export function flagsChangeOf(req: SetObjectFlagsRequest): ObjectFlagsChange {
  return {
    ...(req.activeChecks === undefined ? {} : { activeChecks: req.activeChecks }),
    ...(req.passiveChecks === undefined ? {} : { passiveChecks: req.passiveChecks }),
    ...(req.notifications === undefined ? {} : { notifications: req.notifications }),
    ...(req.flapDetection === undefined ? {} : { flapDetection: req.flapDetection }),
  };
}

/** The change as an audit record shows it: `{ ActiveChecks: false, ... }`, present switches only. */
export function flagsAuditOf(change: ObjectFlagsChange): Record<string, boolean> {
  const out: Record<string, boolean> = {};
  for (const s of OBJECT_SWITCHES) {
    const v = change[s];
    if (v !== undefined) out[s.charAt(0).toUpperCase() + s.slice(1)] = v;
  }
  return out;
}

/**
 * Refuses at once, with `not_found`, a selector that matches no configured object: the engine
 * would only reject it later, in history. An object target is checked by the pipeline's own
 * validation (`not_found` for an object not configured); a selector that does not parse is left
 * to it too (`invalid_argument`).
 */
export function refuseEmptySelector(view: Pick<CoreView, "index"> | undefined, t: Target): void {
  if (view === undefined || !("selector" in t)) return;
  const parsed = parseSelector(t.selector);
  if (!parsed.ok) return;
  if (view.index.matching(parsed.selector).length === 0) {
    throw new ConnectError(`selector "${t.selector}" matches no object`, Code.NotFound);
  }
}
