import type { AcknowledgeProblemCommand, RemoveAcknowledgementCommand } from "../model/commands.js";
import type { EngineEvent } from "../model/events.js";
import type { EngineState } from "./engine-state.js";
import { eventBase, isProblemState } from "./object-record.js";
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
  for (const rec of r.records) {
    if (!isProblemState(rec.state)) {
      if (!r.bySelector) {
        out.push({
          type: "CommandRejected",
          at,
          command: cmd.type,
          key: rec.key,
          reason: `${rec.key} is ${rec.state}: there is no problem to acknowledge`,
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
    rec.ack = ack;
    acked++;
    out.push({ type: "AcknowledgementSet", ...eventBase(rec, at), ...ack, state: rec.state });
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
  for (const rec of r.records) {
    if (rec.ack === null) continue;
    rec.ack = null;
    removed++;
    out.push({ type: "AcknowledgementRemoved", ...eventBase(rec, at), reason: "command" });
  }
  if (removed === 0) {
    const only = r.records.length === 1 && !r.bySelector ? r.records[0] : undefined;
    out.push({
      type: "CommandRejected",
      at,
      command: cmd.type,
      reason: only === undefined ? "no matching object is acknowledged" : `${only.key} is not acknowledged`,
      ...keyOf(only?.key),
    });
  }
}

/** `{ key }` when there is a key, `{}` otherwise (exactOptionalPropertyTypes-friendly). */
export function keyOf(key: string | undefined): { key?: string } {
  return key === undefined ? {} : { key };
}
