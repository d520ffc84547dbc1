/**
 * The engine as the conformance runner and the CLI see it: the public contract of `src/cue/index.ts`
 * (restated here so these tools build even while the evaluator is in progress) plus optional
 * inspection hooks the evaluator may export for assertions the public API cannot express.
 *
 * The engine is loaded at run time; if `src/cue/index.ts` is missing or lacks `compile`, loading
 * reports why instead of failing the build.
 */

/** 1-based line and column. */
export interface EnginePosition {
  readonly file: string;
  readonly line: number;
  readonly column: number;
}

export type EngineErrorCode =
  | "eval"
  | "incomplete"
  | "cycle"
  | "structural cycle"
  | "user"
  | "unsupported"
  | "syntax"
  | "limit";

export interface EngineError {
  readonly path: readonly string[];
  readonly code: EngineErrorCode;
  readonly message: string;
  readonly positions: readonly EnginePosition[];
}

export interface EngineOptions {
  maxSteps?: number;
  maxDepth?: number;
  maxDisjuncts?: number;
}

/** The subset of `CueValue` the tools use. */
export interface EngineValue {
  readonly errors: readonly EngineError[];
  lookup(path: readonly string[]): EngineValue | undefined;
  export():
    | { readonly ok: true; readonly data: unknown }
    | { readonly ok: false; readonly errors: readonly EngineError[] };
  toJSON(indent?: number): { ok: true; text: string } | { ok: false; errors: readonly EngineError[] };
  validate(options?: { concrete?: boolean }): readonly EngineError[];
}

/**
 * Optional hooks (exported by `src/cue/index.ts` as `inspect`) that let the runner check non-concrete
 * values. Each may be absent; the runner then counts such assertions as unsupported.
 */
export interface EngineInspect {
  /** CUE-level equality as `@test(eq)` means it (all fields, including definitions, hidden, optional). */
  equal?(a: EngineValue, b: EngineValue): boolean;
  /** The kind of a value in cue's spelling, e.g. `int`, `int|string`, `struct`, `_|_`. */
  kind?(v: EngineValue): string;
  /** Whether a struct is closed. */
  closed?(v: EngineValue): boolean;
  /** cue's `Value.Allows`: may a struct or list gain this field / any string field / any index? */
  allows?(v: EngineValue, selector: AllowsSelector): boolean;
}

/** The selector of `@test(allows, …)`: a label, `string` (any regular field) or `int` (any index). */
export type AllowsSelector =
  | { readonly kind: "label"; readonly name: string }
  | { readonly kind: "anyString" }
  | { readonly kind: "anyIndex" };

export interface Engine {
  /** A CUE-like rendering of a value for failure messages (the engine's `debugText`, if exported). */
  readonly describe?: (v: EngineValue) => string;
  compile(files: readonly { name: string; text: string }[], options?: EngineOptions): EngineValue;
  formatErrors(errors: readonly EngineError[]): string;
  readonly inspect: EngineInspect;
}

/** Loads `src/cue/index.js` (compiled) next to this folder; a string explains a failure. */
export async function loadEngine(): Promise<Engine | string> {
  const url = new URL("../index.js", import.meta.url).href;
  let mod: Record<string, unknown>;
  try {
    mod = (await import(url)) as Record<string, unknown>;
  } catch (e) {
    return `cannot load the CUE engine (${url}): ${(e as Error).message}`;
  }
  const compile = mod.compile;
  const formatErrors = mod.formatErrors;
  if (typeof compile !== "function") return "the CUE engine does not export compile()";
  const fmt =
    typeof formatErrors === "function"
      ? (formatErrors as Engine["formatErrors"])
      : (errors: readonly EngineError[]) => errors.map((e) => `${e.path.join(".")}: ${e.message}`).join("\n");
  const inspect = (
    typeof mod.inspect === "object" && mod.inspect !== null ? mod.inspect : {}
  ) as EngineInspect;
  const describe =
    typeof mod.debugText === "function" ? (mod.debugText as (v: EngineValue) => string) : undefined;
  return { compile: compile as Engine["compile"], formatErrors: fmt, inspect, describe };
}
