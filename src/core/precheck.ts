import type { Target } from "../model/commands.js";
import { objectKey } from "../model/object-ref.js";
import { parseSelector } from "../model/selector.js";
import type { ObjectState } from "../model/state.js";
import { RejectedError } from "../store/errors.js";
import type { ObjectIndex } from "../store/object-index.js";
import type { Projection } from "../store/projection.js";
import type { StatusRecord } from "../store/records.js";
import type { SubmittedCommand } from "./validate.js";

/**
 * Refusing at once what the engine would refuse later. A command the engine refuses when it
 * applies it is still acknowledged to its sender (enqueued), and refused only in history
 * (CommandRejected). Where the answer is known at submit time, Core.submit refuses it instead,
 * with a RejectedError the API maps to a code:
 *
 * - from the config in force alone, always (validate.ts): an object that is not configured, a
 *   selector that matches no configured object (`not_found`) — the index switches to a new config
 *   at once and the engine applies it before any command submitted after, so both agree;
 * - from the state the projection shows, only while it is settled (nothing enqueued is still to
 *   be applied: `Store.settled`), so that the command will be applied to exactly that state
 *   (`failed_precondition`): acknowledging an object without a problem, or already acknowledged;
 *   removing an acknowledgement that is not there; a selector none of whose objects can take it.
 *
 * The engine checks again when it applies the command: what passes here may still be refused in
 * history (the projection was not settled, or the state changed in between by an earlier command).
 */

/** A selector target is judged against the projection only up to this many matched objects. */
export const PRECHECK_MAX_OBJECTS = 10_000;

/** What precheckCommands reads: the index of the config in force and the settled projection. */
export interface PrecheckView {
  readonly index: ObjectIndex;
  readonly projection: Pick<Projection, "status">;
}

/**
 * The positions in `index` of the objects a selector matches, ascending. Throws RejectedError:
 * `invalid` when the selector does not parse, `not_found` when it matches no configured object.
 */
export function selectorPositions(index: ObjectIndex, selector: string): Uint32Array {
  const parsed = parseSelector(selector);
  if (!parsed.ok) {
    throw new RejectedError("invalid", `selector "${selector}", column ${parsed.column}: ${parsed.message}`);
  }
  const positions = index.matching(parsed.selector);
  if (positions.length === 0) {
    throw new RejectedError("not_found", `selector "${selector}" matches no configured object`);
  }
  return positions;
}

/**
 * The keys of the configured objects a target names: the object's, or those a selector matches
 * (in index order). Throws RejectedError `not_found` when there are none (`invalid` for a selector
 * that does not parse). For any command with a target: "resolve, or refuse with not_found".
 */
export function targetKeys(index: ObjectIndex, target: Target): string[] {
  if ("object" in target) {
    const key = objectKey(target.object);
    if (index.position(key) === undefined) throw new RejectedError("not_found", `${key} is not configured`);
    return [key];
  }
  return Array.from(selectorPositions(index, target.selector), (i) => index.keyAt(i));
}

/**
 * Refuses (RejectedError `failed_precondition`, its `index` the command's position in the batch)
 * the first command the engine would refuse given the state `view.projection` shows. Call it only
 * while the projection is settled (see above) and after validateCommands. Commands it does not
 * know pass.
 */
export function precheckCommands(commands: readonly SubmittedCommand[], view: PrecheckView): void {
  for (let i = 0; i < commands.length; i++) {
    try {
      precheckOne(commands[i] as SubmittedCommand, view);
    } catch (e) {
      if (e instanceof RejectedError) throw new RejectedError(e.reason, e.message, i);
      throw e;
    }
  }
}

function precheckOne(c: SubmittedCommand, view: PrecheckView): void {
  switch (c.type) {
    case "AcknowledgeProblem": {
      const keys = targetKeys(view.index, c.target);
      if ("object" in c.target) {
        const key = keys[0] as string;
        const s = view.projection.status(key);
        const state = s?.state ?? "PENDING";
        if (!hasProblem(state)) {
          throw new RejectedError(
            "failed_precondition",
            `${key} is ${state}: there is no problem to acknowledge`,
          );
        }
        // As Icinga 2's API answers 409 (the engine would replace the acknowledgement).
        if (s?.acknowledgement !== undefined) {
          throw new RejectedError("failed_precondition", `${key} is already acknowledged`);
        }
        return;
      }
      if (keys.length > PRECHECK_MAX_OBJECTS) return;
      if (!keys.some((k) => hasProblem(view.projection.status(k)?.state ?? "PENDING"))) {
        throw new RejectedError(
          "failed_precondition",
          `no object selector "${c.target.selector}" matches has a problem to acknowledge`,
        );
      }
      return;
    }
    case "RemoveAcknowledgement": {
      const keys = targetKeys(view.index, c.target);
      if (keys.length > PRECHECK_MAX_OBJECTS) return;
      if (keys.some((k) => acknowledged(view.projection.status(k)))) return;
      throw new RejectedError(
        "failed_precondition",
        "object" in c.target
          ? `${keys[0]} is not acknowledged`
          : `no object selector "${c.target.selector}" matches is acknowledged`,
      );
    }
    default:
      return;
  }
}

/** The engine's rule (engine/object-table.ts isProblemState): only a problem can be acknowledged. */
function hasProblem(state: ObjectState): boolean {
  return state !== "OK" && state !== "UP" && state !== "PENDING";
}

function acknowledged(s: StatusRecord | undefined): boolean {
  return s?.acknowledgement !== undefined;
}
