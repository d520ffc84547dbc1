/**
 * How much work and memory evaluating one configuration document may take, scaled by the
 * document's size: a plain fleet of a million services (about 115 MB of text) must load, while a
 * short document that expands exponentially (`_a40: [_a39, _a39]`) is refused within a second or
 * two. Every evaluation pass of a load (the document's own errors, its unification with the schema
 * and export, the concrete check after a failed export) runs under these limits; a pass that
 * exceeds one stops and the load is rejected with one diagnostic (`budgetDiagnostic`). See
 * docs/configuration.md, "Evaluation budget".
 */

/** Steps every document may take, whatever its size. */
export const BASE_STEPS = 1_000_000;
/** Steps each byte of the document adds. A plain fleet takes about 0.7, a templated one about 20. */
export const STEPS_PER_BYTE = 32;
/** Vertices (evaluated values) every document may allocate, whatever its size. */
export const BASE_VERTICES = 250_000;
/** Vertices each byte of the document adds. A plain fleet takes under 0.1, a templated one about 2.5. */
export const VERTICES_PER_BYTE = 4;
/** The config worker's V8 old-generation heap for the smallest document, in MB. */
export const BASE_HEAP_MB = 512;
/** Heap MB each MB of the document adds to the worker's limit. */
export const HEAP_MB_PER_MB = 64;

/** The limits for a document of `bytes` UTF-8 bytes. */
export interface EvalBudget {
  /** Evaluation steps per pass; each exported value counts as one too (so export is bounded). */
  readonly maxSteps: number;
  /** Vertices allocated per pass: the evaluator's memory proxy. */
  readonly maxVertices: number;
  /** The config worker's heap limit (resourceLimits.maxOldGenerationSizeMb). */
  readonly heapMb: number;
}

/** The evaluation budget of a document of `bytes` bytes (UTF-8). */
export function evalBudget(bytes: number): EvalBudget {
  const b = Math.max(0, Math.floor(bytes));
  return {
    maxSteps: BASE_STEPS + STEPS_PER_BYTE * b,
    maxVertices: BASE_VERTICES + VERTICES_PER_BYTE * b,
    heapMb: BASE_HEAP_MB + Math.ceil((HEAP_MB_PER_MB * b) / (1 << 20)),
  };
}

/**
 * The one diagnostic message of a document refused for its budget; `what` says which part was
 * spent (`more than 1023872 steps`).
 */
export function budgetMessage(bytes: number, what: string): string {
  const b = evalBudget(bytes);
  return (
    `evaluation budget exceeded: the document (${bytes} bytes) needs ${what}; its budget is ` +
    `${b.maxSteps} steps and ${b.maxVertices} values (${BASE_STEPS} + ${STEPS_PER_BYTE} steps and ` +
    `${BASE_VERTICES} + ${VERTICES_PER_BYTE} values per byte). A document whose values multiply ` +
    "(a field that refers to another twice, again and again) is refused"
  );
}
