import type { Target } from "../model/commands.js";
import { objectKey } from "../model/object-ref.js";
import { parseSelector } from "../model/selector.js";
import type { ObjectState } from "../model/state.js";
import { RejectedError } from "../store/errors.js";
import type { ObjectIndex } from "../store/object-index.js";
import type { Projection } from "../store/projection.js";
import { summaryFields } from "../store/status-summary.js";
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
 * - from the state the projection shows, only where it is settled: no write enqueued before (nor
 *   an earlier command of the same batch) may still change the state or acknowledgement of the
 *   objects concerned (`Store.settledFor`; a result for another object, a downtime, a recorded
 *   event cannot; a reload, a timer's tick or a passive batch still in its wire form may change
 *   any), so that the command will be applied to exactly that state (`failed_precondition`):
 *   acknowledging an object without a problem, or already acknowledged; removing an
 *   acknowledgement that is not there; a selector none of whose objects can take it.
 *
 * The engine checks again when it applies the command: what passes here may still be refused in
 * history (the projection was not settled, or the state changed in between by an earlier command).
 */

/** A selector target is judged against the projection only up to this many matched objects. */
export const PRECHECK_MAX_OBJECTS = 10_000;

/** What precheckCommands reads: the index of the config in force and the projection. */
export interface PrecheckView {
  readonly index: ObjectIndex;
  readonly projection: Pick<Projection, "statusSummary">;
  /** Whether no write enqueued before may still change these objects (Store.settledFor). */
  settledFor(keys: readonly string[]): boolean;
}

/**
 * The keys of the objects whose state or acknowledgement a command may change when applied, or
 * null when it may change any (a selector target, a command this module does not know).
 */
export function touchedKeys(c: SubmittedCommand): readonly string[] | null {
  switch (c.type) {
    case "ProcessCheckResult":
      return [objectKey(c.result)];
    case "AcknowledgeProblem":
    case "RemoveAcknowledgement":
      return "object" in c.target ? [objectKey(c.target.object)] : null;
    case "ScheduleDowntime":
    case "DeleteDowntime":
    case "RecordEvents":
      return [];
    default:
      return null;
  }
}

/** What a batch may change: the union of touchedKeys (null: any). */
export function batchTouches(commands: readonly SubmittedCommand[]): readonly string[] | null {
  if (commands.length === 1) return touchedKeys(commands[0] as SubmittedCommand);
  const keys: string[] = [];
  for (const c of commands) {
    const k = touchedKeys(c);
    if (k === null) return null;
    for (const key of k) keys.push(key);
  }
  return keys;
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
 * the first command the engine would refuse given the state `view.projection` shows, where it is
 * settled (see above). Call it after validateCommands. Commands it does not know pass.
 */
export function precheckCommands(commands: readonly SubmittedCommand[], view: PrecheckView): void {
  // Most batches are check results: nothing to judge.
  if (!commands.some(judged)) return;
  // What the batch's earlier commands may change: the projection does not show it yet.
  let earlierAny = false;
  const earlier = new Set<string>();
  const settled = (keys: readonly string[]): boolean =>
    !earlierAny && keys.every((k) => !earlier.has(k)) && view.settledFor(keys);
  for (let i = 0; i < commands.length; i++) {
    const c = commands[i] as SubmittedCommand;
    try {
      precheckOne(c, view, settled);
    } catch (e) {
      if (e instanceof RejectedError) throw new RejectedError(e.reason, e.message, i);
      throw e;
    }
    if (i === commands.length - 1) break;
    const touched = touchedKeys(c);
    if (touched === null) earlierAny = true;
    else for (const k of touched) earlier.add(k);
  }
}

function precheckOne(
  c: SubmittedCommand,
  view: PrecheckView,
  settled: (keys: readonly string[]) => boolean,
): void {
  switch (c.type) {
    case "AcknowledgeProblem": {
      const keys = judgedKeys(view.index, c.target);
      if (keys === undefined || !settled(keys)) return;
      if ("object" in c.target) {
        const key = keys[0] as string;
        const s = summaryOf(view, key);
        const state = s.state;
        if (!hasProblem(state)) {
          throw new RejectedError(
            "failed_precondition",
            `${key} is ${state}: there is no problem to acknowledge`,
          );
        }
        // As Icinga 2's API answers 409 (the engine would replace the acknowledgement).
        if (s.acknowledged) {
          throw new RejectedError("failed_precondition", `${key} is already acknowledged`);
        }
        return;
      }
      if (!keys.some((k) => hasProblem(summaryOf(view, k).state))) {
        throw new RejectedError(
          "failed_precondition",
          `no object selector "${c.target.selector}" matches has a problem to acknowledge`,
        );
      }
      return;
    }
    case "RemoveAcknowledgement": {
      const keys = judgedKeys(view.index, c.target);
      if (keys === undefined || !settled(keys)) return;
      if (keys.some((k) => summaryOf(view, k).acknowledged)) return;
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

/** The keys of a target's objects, or undefined when there are too many to judge here. */
function judgedKeys(index: ObjectIndex, target: Target): string[] | undefined {
  if ("object" in target) return targetKeys(index, target);
  const positions = selectorPositions(index, target.selector);
  if (positions.length > PRECHECK_MAX_OBJECTS) return undefined;
  return Array.from(positions, (i) => index.keyAt(i));
}

/** Whether precheckOne judges a command. */
function judged(c: SubmittedCommand): boolean {
  return c.type === "AcknowledgeProblem" || c.type === "RemoveAcknowledgement";
}

/** The engine's rule (engine/object-table.ts isProblemState): only a problem can be acknowledged. */
function hasProblem(state: ObjectState): boolean {
  return state !== "OK" && state !== "UP" && state !== "PENDING";
}

/** What the projection shows of an object, read from its record's summary (no decoding). */
function summaryOf(view: PrecheckView, key: string): { state: ObjectState; acknowledged: boolean } {
  const s = view.projection.statusSummary(key);
  return s === undefined ? { state: "PENDING", acknowledged: false } : summaryFields(s);
}
