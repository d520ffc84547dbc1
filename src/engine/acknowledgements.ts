import type { AcknowledgeProblemCommand, RemoveAcknowledgementCommand } from "../model/commands.js";
import type { EngineEvent } from "../model/events.js";
import type { EngineState } from "./engine-state.js";
import { eventBase, isProblemState, keyOf as objectKeyOf, stateOf } from "./object-table.js";
import { resolveTarget } from "./targets.js";

/**
 * Acknowledges the targeted problems. Only objects in a problem state (soft or hard) can be
 * acknowledged; an explicit object that is OK, UP or PENDING is rejected, and a selector simply
 * skips such objects (rejecting only when it acknowledged nothing). Acknowledging an acknowledged
 * object replaces its acknowledgement.
 */
export function acknowledge(st: EngineState, cmd: AcknowledgeProblemCommand, out: EngineEvent[]): void {
  const at = cmd.at;
  const r = resolveTarget(st, cmd.target);
  if (!r.ok) {
    out.push({ type: "CommandRejected", at, command: cmd.type, reason: r.reason, ...keyOf(r.key) });
    return;
  }
  let acked = 0;
  const t = st.objects;
  for (const i of r.records) {
    const state = stateOf(t, i);
    if (!isProblemState(state)) {
      if (!r.bySelector) {
        const key = objectKeyOf(t, i);
        out.push({
          type: "CommandRejected",
          at,
          command: cmd.type,
          key,
          reason: `${key} is ${state}: there is no problem to acknowledge`,
        });
      }
      continue;
    }
    const ack = {
      author: cmd.author,
      comment: cmd.comment,
      sticky: cmd.sticky,
      notify: cmd.notify ?? false,
      setAt: at,
    };
    t.acks.set(i, ack);
    acked++;
    out.push({ type: "AcknowledgementSet", ...eventBase(t, i, at), ...ack, state });
  }
  if (acked === 0 && r.bySelector) {
    out.push({ type: "CommandRejected", at, command: cmd.type, reason: "no matching object has a problem" });
  }
}

/** Removes the acknowledgement of the targeted objects that have one. */
export function unacknowledge(st: EngineState, cmd: RemoveAcknowledgementCommand, out: EngineEvent[]): void {
  const at = cmd.at;
  const r = resolveTarget(st, cmd.target);
  if (!r.ok) {
    out.push({ type: "CommandRejected", at, command: cmd.type, reason: r.reason, ...keyOf(r.key) });
    return;
  }
  let removed = 0;
  const t = st.objects;
  for (const i of r.records) {
    if (!t.acks.delete(i)) continue;
    removed++;
    out.push({ type: "AcknowledgementRemoved", ...eventBase(t, i, at), reason: "command" });
  }
  if (removed === 0) {
    const only = r.records.length === 1 && !r.bySelector ? r.records[0] : undefined;
    const key = only === undefined ? undefined : objectKeyOf(t, only);
    out.push({
      type: "CommandRejected",
      at,
      command: cmd.type,
      reason: key === undefined ? "no matching object is acknowledged" : `${key} is not acknowledged`,
      ...keyOf(key),
    });
  }
}

/** `{ key }` when there is a key, `{}` otherwise (exactOptionalPropertyTypes-friendly). */
export function keyOf(key: string | undefined): { key?: string } {
  return key === undefined ? {} : { key };
}
