/**
 * The CUE language engine: a native TypeScript implementation of CUE v0.17 (evalv3 semantics) for
 * Lookout's configuration. `compile` parses and evaluates source files as one package instance;
 * the resulting `CueValue` looks up, unifies, validates and exports values, with errors carrying
 * paths and source positions, printed the way `cue` prints them (`formatErrors`).
 *
 * Positions are 1-based lines and columns; columns count UTF-16 code units (equal to `cue`'s byte
 * columns for ASCII text). The engine imports nothing from the rest of Lookout.
 */

export { type CueError, type ErrCode as CueErrorCode, formatErrors, type Position } from "./eval/errors.js";
export type { CueData, PositionIndex } from "./eval/export.js";
export { debugText, inspect } from "./eval/inspect.js";
export {
  type CueValue,
  compile,
  type EvalOptions,
  type ExportResult,
  type SourceFile,
} from "./eval/instance.js";
