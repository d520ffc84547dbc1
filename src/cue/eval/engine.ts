/**
 * Per-evaluation state shared by the evaluator: limits and their counters, and the builtin package
 * lookup. Evaluation is synchronous, so the active engine is held in a module variable while
 * `withEngine` runs.
 */

import { type BottomV, bottom } from "./values.js";

export interface Limits {
  readonly maxSteps: number;
  /**
   * Vertices one evaluation may allocate: the evaluator's memory proxy (a vertex with its
   * conjuncts and arcs is the bulk of what an evaluation holds). Exported values are bounded by
   * `maxSteps`, which counts each one.
   */
  readonly maxVertices: number;
  readonly maxDepth: number;
  readonly maxDisjuncts: number;
  /**
   * When set, every evaluation under these limits draws on this one meter: the budget is for all
   * of them together (a config load's several passes), not for each.
   */
  readonly meter?: Meter;
}

/** Steps and vertices spent so far by the evaluations sharing it (Limits.meter). */
export interface Meter {
  steps: number;
  vertices: number;
}

export interface Engine {
  readonly limits: Limits;
  steps: number;
  /** Vertices allocated so far (countVertex). */
  vertices: number;
  /** Nesting of evaluations in progress (guards the JavaScript stack). */
  nesting: number;
  /**
   * How often a vertex was read while its own evaluation was in progress (reference cycles and
   * order-dependent reads). Export does not release what was evaluated while this changed.
   */
  cycles: number;
  /** How often the value of a field was read while its evaluation was in progress (see `refCyclic`). */
  refCycles: number;
  /** Set once a limit is exceeded; evaluation then unwinds quickly. */
  limitErr: BottomV | undefined;
}

export const DEFAULT_LIMITS: Limits = {
  maxSteps: 20_000_000,
  maxVertices: 5_000_000,
  maxDepth: 400,
  maxDisjuncts: 10_000,
};

let current: Engine | undefined;

/** The active engine. */
export function engine(): Engine {
  if (current === undefined) throw new Error("cue: no active evaluation");
  return current;
}

/** Runs `fn` with a fresh engine active (re-entrant: restores the previous one). */
export function withEngine<T>(limits: Limits, fn: () => T, onOverflow?: (e: BottomV) => T): T {
  const prev = current;
  const m = limits.meter;
  // A nested evaluation on the same meter continues from where the outer one is.
  if (m !== undefined && prev !== undefined && prev.limits.meter === m) {
    m.steps = prev.steps;
    m.vertices = prev.vertices;
  }
  current = {
    limits,
    steps: m?.steps ?? 0,
    vertices: m?.vertices ?? 0,
    nesting: 0,
    cycles: 0,
    refCycles: 0,
    limitErr: undefined,
  };
  const mine = current;
  try {
    return fn();
  } catch (e) {
    // Last line of defence: the nesting limit should prevent this, but never let a stack
    // overflow escape as an exception.
    if (e instanceof RangeError && onOverflow !== undefined) {
      // A value past what JavaScript can hold (a string doubled forty times) says so; only a
      // stack overflow is "too deep".
      if (!/call stack/i.test(e.message)) {
        return onOverflow(bottom("limit", `evaluation made a value too large to hold (${e.message})`));
      }
      return onOverflow(bottom("limit", "evaluation too deep (stack exhausted)"));
    }
    throw e;
  } finally {
    if (m !== undefined) {
      m.steps = mine.steps;
      m.vertices = mine.vertices;
      if (prev !== undefined && prev.limits.meter === m) {
        prev.steps = mine.steps;
        prev.vertices = mine.vertices;
      }
    }
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
  if (e.vertices > e.limits.maxVertices) {
    e.limitErr = bottom("limit", `evaluation exceeded ${e.limits.maxVertices} values`);
    return e.limitErr;
  }
  return undefined;
}

/**
 * Counts one vertex allocated by the active evaluation (vertices made outside one, such as a
 * compiled file's root, are not counted). The next step() refuses once the count passes
 * `maxVertices`.
 */
export function countVertex(): void {
  if (current !== undefined) current.vertices++;
}
