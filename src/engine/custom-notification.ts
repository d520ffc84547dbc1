import type { SendCustomNotificationCommand } from "../model/commands.js";
import type { EngineEvent } from "../model/events.js";
import { keyOf } from "./acknowledgements.js";
import type { EngineState } from "./engine-state.js";
import { eventBase } from "./object-table.js";
import { resolveTarget } from "./targets.js";

/**
 * SendCustomNotification: one CustomNotification event per targeted object, whatever its state (as
 * Icinga 2's send-custom-notification). The engine's state does not change; the notifier decides
 * who is told and whether anything suppresses it (docs/notifications.md, "Custom notifications").
 */
export function customNotification(
  st: EngineState,
  cmd: SendCustomNotificationCommand,
  out: EngineEvent[],
): void {
  const at = cmd.at;
  const r = resolveTarget(st, cmd.target);
  if (!r.ok) {
    out.push({ type: "CommandRejected", at, command: cmd.type, reason: r.reason, ...keyOf(r.key) });
    return;
  }
  for (const i of r.records) {
    out.push({
      type: "CustomNotification",
      ...eventBase(st.objects, i, at),
      author: cmd.author,
      comment: cmd.comment,
      force: cmd.force,
    });
  }
}
