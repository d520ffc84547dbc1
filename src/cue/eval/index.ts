/**
 * The CUE evaluator: the value lattice (`values.ts`, `meet.ts`), the evaluation graph of vertices
 * and conjuncts (`vertex.ts`, `collect.ts`, `evaluate.ts`), disjunctions and defaults
 * (`disjunction.ts`, `discriminator.ts`), comprehensions, closedness, references and scopes
 * (`expr.ts`, `scope.ts`), export with positions (`export.ts`), errors (`errors.ts`), builtins
 * (`builtins/`), and the public `CueValue` handle (`instance.ts`). `docs/cue-evaluator.md` describes
 * the design. Other code should import the public API from `src/cue/index.ts`.
 */

export type { Meter } from "./engine.js";
export { type CueError, type ErrCode, formatErrors, type Position } from "./errors.js";
export type { CueData, PositionIndex } from "./export.js";
export { debugText, inspect } from "./inspect.js";
export { type CueValue, compile, type EvalOptions, type ExportResult, type SourceFile } from "./instance.js";
