import type { Target } from "../model/commands.js";
import { objectKey } from "../model/object-ref.js";
import { parseSelector } from "../model/selector.js";
import type { ObjectIndex } from "../store/object-index.js";

/** Why a RescheduleCheck is refused before it is enqueued, and the API code that says so. */
export interface RescheduleRefusal {
  readonly code: "failed_precondition" | "not_found";
  readonly message: string;
}

/**
 * What the config in force already shows of a RescheduleCheck: refused for an object with a passive
 * check (there is no check to run), a selector that matches nothing or only passive objects; a
 * selector that matches some passive objects passes (the engine reschedules the active ones).
 * Unknown objects and bad selectors are left to the pipeline's validation. The engine judges again
 * when it applies the command (src/engine/reschedule.ts, where run-time switches are judged too),
 * so a reload in between is answered in history. An object whose active checks are switched off
 * (SetObjectFlags, as `activeChecksOff` reads the projection) is refused without `force`.
 */
export function rescheduleRefusal(
  index: ObjectIndex,
  t: Target,
  force = false,
  activeChecksOff?: (key: string) => boolean,
): RescheduleRefusal | undefined {
  if ("object" in t) {
    const host = index.config.hosts.get(t.object.host);
    const check = t.object.service === undefined ? host?.check : host?.services.get(t.object.service)?.check;
    if (check === undefined) return undefined;
    if (check.type !== "passive") {
      const key = objectKey(t.object);
      if (force || activeChecksOff?.(key) !== true) return undefined;
      return {
        code: "failed_precondition",
        message: `${key} has its active checks switched off: reschedule it with force to run it once`,
      };
    }
    return {
      code: "failed_precondition",
      message: `${objectKey(t.object)} has a passive check: there is no check to run`,
    };
  }
  const parsed = parseSelector(t.selector);
  if (!parsed.ok) return undefined;
  const matched = index.matching(parsed.selector);
  if (matched.length === 0)
    return { code: "not_found", message: `selector "${t.selector}" matches no object` };
  for (const i of matched) {
    if ((index.serviceAt(i) ?? index.hostAt(i)).check.type !== "passive") return undefined;
  }
  return {
    code: "failed_precondition",
    message: `no object selector "${t.selector}" matches has an active check`,
  };
}
