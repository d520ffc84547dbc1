import { Code, ConnectError } from "@connectrpc/connect";
import { rescheduleRefusal } from "../core/reschedule-refusal.js";
import type { Target } from "../model/commands.js";
import type { ObjectIndex } from "../store/object-index.js";

/**
 * Refuses at once a RescheduleCheck the config in force already shows cannot apply
 * (src/core/reschedule-refusal.ts): `failed_precondition` for a passive object or a selector of
 * passive objects only, `not_found` for a selector that matches nothing.
 */
export function reschedulePrecondition(index: ObjectIndex | undefined, t: Target): void {
  if (index === undefined) return;
  const refused = rescheduleRefusal(index, t);
  if (refused === undefined) return;
  throw new ConnectError(
    refused.message,
    refused.code === "not_found" ? Code.NotFound : Code.FailedPrecondition,
  );
}
