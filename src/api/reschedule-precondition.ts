import { Code, ConnectError } from "@connectrpc/connect";
import type { Target } from "../model/commands.js";
import { objectKey } from "../model/object-ref.js";
import { parseSelector } from "../model/selector.js";
import type { ObjectIndex } from "../store/object-index.js";

/**
 * Refuses at once a RescheduleCheck the config in force already shows cannot apply: an object with a
 * passive check (`failed_precondition`: there is no check to run), a selector that matches nothing
 * (`not_found`) or only passive objects (`failed_precondition`). A selector that matches some
 * passive objects passes: the engine reschedules the active ones. Unknown objects and bad selectors
 * are left to the pipeline's own validation (`not_found`, `invalid_argument`). The engine judges
 * again when it applies the command (src/engine/reschedule.ts, where run-time switches are judged
 * too), so a reload in between is answered in history. Run-time switches (SetObjectFlags) belong
 * here as well: an object whose active checks are switched off, without `force`, is refused.
 */
export function reschedulePrecondition(index: ObjectIndex | undefined, t: Target): void {
  if (index === undefined) return;
  if ("object" in t) {
    const host = index.config.hosts.get(t.object.host);
    const check = t.object.service === undefined ? host?.check : host?.services.get(t.object.service)?.check;
    if (check?.type === "passive") {
      throw new ConnectError(
        `${objectKey(t.object)} has a passive check: there is no check to run`,
        Code.FailedPrecondition,
      );
    }
    return;
  }
  const parsed = parseSelector(t.selector);
  if (!parsed.ok) return;
  const matched = index.matching(parsed.selector);
  if (matched.length === 0) {
    throw new ConnectError(`selector "${t.selector}" matches no object`, Code.NotFound);
  }
  for (const i of matched) {
    const check = (index.serviceAt(i) ?? index.hostAt(i)).check;
    if (check.type !== "passive") return;
  }
  throw new ConnectError(
    `no object selector "${t.selector}" matches has an active check`,
    Code.FailedPrecondition,
  );
}
