import { Code, ConnectError } from "@connectrpc/connect";
import { rescheduleRefusal } from "../core/reschedule-refusal.js";
import type { Target } from "../model/commands.js";
import type { ObjectIndex } from "../store/object-index.js";

/**
 * Refuses at once a RescheduleCheck the config in force already shows cannot apply
 * (src/core/reschedule-refusal.ts): `failed_precondition` for a passive object or a selector of
 * passive objects only or an object whose active checks are switched off without `force`,
 * `not_found` for a selector that matches nothing.
 */
export function reschedulePrecondition(
  index: ObjectIndex | undefined,
  t: Target,
  force = false,
  activeChecksOff?: (key: string) => boolean,
): void {
  if (index === undefined) return;
  const refused = rescheduleRefusal(index, t, force, activeChecksOff);
  if (refused === undefined) return;
  throw new ConnectError(
    refused.message,
    refused.code === "not_found" ? Code.NotFound : Code.FailedPrecondition,
  );
}
