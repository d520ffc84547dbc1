/**
 * Per-evaluation state shared by the evaluator: limits and their counters, and the builtin package
 * lookup. Evaluation is synchronous, so the active engine is held in a module variable while
 * `withEngine` runs.
 */

import { type BottomV, bottom } from "./values.js";

export interface Limits {
  readonly maxSteps: number;
  readonly maxDepth: number;
  readonly maxDisjuncts: number;
}

export interface Engine {
  readonly limits: Limits;
  steps: number;
  /** Nesting of evaluations in progress (guards the JavaScript stack). */
  nesting: number;
  /**
   * How often a vertex was read while its own evaluation was in progress (reference cycles and
   * order-dependent reads). Export does not release what was evaluated while this changed.
   */
  cycles: number;
  /** Set once a limit is exceeded; evaluation then unwinds quickly. */
  limitErr: BottomV | undefined;
}

export const DEFAULT_LIMITS: Limits = { maxSteps: 20_000_000, maxDepth: 400, maxDisjuncts: 10_000 };

let current: Engine | undefined;

/** The active engine. */
export function engine(): Engine {
  if (current === undefined) throw new Error("cue: no active evaluation");
  return current;
}

/** Runs `fn` with a fresh engine active (re-entrant: restores the previous one). */
export function withEngine<T>(limits: Limits, fn: () => T, onOverflow?: (e: BottomV) => T): T {
  const prev = current;
  current = { limits, steps: 0, nesting: 0, cycles: 0, limitErr: undefined };
  try {
    return fn();
  } catch (e) {
    // Last line of defence: the nesting limit should prevent this, but never let a stack
    // overflow escape as an exception.
    if (e instanceof RangeError && onOverflow !== undefined) {
      return onOverflow(bottom("limit", "evaluation too deep (stack exhausted)"));
    }
    throw e;
  } finally {
    current = prev;
  }
}

/** Counts one evaluation step; returns a limit error once the budget is spent. */
export function step(): BottomV | undefined {
  const e = engine();
  if (e.limitErr !== undefined) return e.limitErr;
  if (++e.steps > e.limits.maxSteps) {
    e.limitErr = bottom("limit", `evaluation exceeded ${e.limits.maxSteps} steps`);
    return e.limitErr;
  }
  return undefined;
}
