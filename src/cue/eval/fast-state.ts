/**
 * The state of one fast export (`fast-export.ts`, `fast-struct.ts`): its limits, and the path to
 * where it gave up (built on the way up, so that nothing is kept per field while all goes well). Module state: evaluation is synchronous and the fast
 * path does not re-enter itself.
 */

import type * as ast from "../syntax/ast.js";
import type { Use } from "./fast-types.js";

/** A conjunct as the fast path sees it: plain data (its syntax) or a compiled type's use. */
export type Contrib = ast.Expr | Use;

/** The limits of the export in progress, and where (and whether because of a limit) it gave up. */
export const run = {
  maxDepth: 0,
  maxSteps: 0,
  /** Where it gave up: the labels from there up to the exported vertex (innermost first). */
  failAt: undefined as string[] | undefined,
  /** Set when giving up because of a limit (depth, steps), which depends on where a value is used. */
  limitHit: false,
};

/**
 * Gives up where the fast path is (every step's caller passes the "no result" up, adding its label
 * with {@link failedIn}). Returns undefined.
 */
export function bail(): undefined {
  run.failAt ??= [];
  return undefined;
}

/** Passes a failure up from the field or element `label`. Returns undefined. */
export function failedIn(label: string): undefined {
  run.failAt?.push(label);
  return undefined;
}

/** Starts an export with these limits. */
export function startRun(maxDepth: number, maxSteps: number): void {
  run.maxDepth = maxDepth;
  run.maxSteps = maxSteps;
  run.failAt = undefined;
  run.limitHit = false;
}

/** The `k`-th of the conjuncts `c0`, `c1`, `more`. */
export function nth(c0: Contrib, c1: Contrib | undefined, more: Contrib[] | undefined, k: number): Contrib {
  return (k === 0 ? c0 : k === 1 ? c1 : more?.[k - 2]) as Contrib;
}

export function count(c1: Contrib | undefined, more: Contrib[] | undefined): number {
  return c1 === undefined ? 1 : more === undefined ? 2 : 2 + more.length;
}
