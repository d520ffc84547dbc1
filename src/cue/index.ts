/**
 * The CUE language engine: a native TypeScript implementation of CUE v0.17 (evalv3 semantics) for
 * Lookout's configuration. `compile` parses source files as one package instance; the resulting
 * `CueValue` evaluates on first use and looks up, unifies, validates and exports values, with errors
 * carrying paths and source positions, printed the way `cue` prints them (`formatErrors`).
 *
 * Positions are 1-based lines and columns; columns count UTF-16 code units (equal to `cue`'s byte
 * columns for ASCII text). The engine imports nothing from the rest of Lookout.
 */

export {
  type CueData,
  type CueError,
  type CueValue,
  compile,
  debugText,
  type ErrCode as CueErrorCode,
  type EvalOptions,
  type ExportResult,
  formatErrors,
  inspect,
  type Meter,
  type Position,
  type PositionIndex,
  type SourceFile,
} from "./eval/index.js";

/** An RE2 pattern as a JavaScript RegExp when both mean the same by it; null otherwise. */
export { nativeRegexp } from "./eval/regex.js";
