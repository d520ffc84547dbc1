/**
 * A compiled package instance and the public {@link CueValue} handle over a vertex: parsing,
 * building the root vertex from all files, error collection, lookup, unify, export and validate.
 */

import type * as ast from "../syntax/ast.js";
import { parseFile } from "../syntax/parser.js";
import "./builtins/index.js";
import { abstractOperands, declaredNames } from "./abstract-operands.js";
import { hasPackage } from "./builtins/registry.js";
import { compilePathAt } from "./compile-path.js";
import { DEFAULT_LIMITS, type Limits, type Meter, withEngine } from "./engine.js";
import { type CueError, toCueError } from "./errors.js";
import { errorsUnder } from "./errors-under.js";
import { evaluate } from "./evaluate.js";
import { fileExperiments, markExperiments } from "./experiments.js";
import type { CueData, PositionIndex } from "./export.js";
import { DEFAULT_RELEASE_MIN, walk } from "./export-walk.js";
import { letCycles } from "./let-cycles.js";
import { type ReachableNames, reachableNames, unionNames } from "./names.js";
import { isErrorFreePlainData } from "./plain-data.js";
import { fileScope } from "./scope.js";
import { type BottomV, bottom } from "./values.js";
import {
  type Conjunct,
  displayLabel,
  type Frame,
  NO_CLOSE,
  REGULAR,
  soleDefault,
  strLabel,
  Vertex,
} from "./vertex.js";

export interface SourceFile {
  readonly name: string;
  readonly text: string;
}

export interface EvalOptions {
  maxSteps?: number;
  /** Vertices one evaluation may allocate (the memory bound; see engine.ts `Limits`). */
  maxVertices?: number;
  /**
   * Shared by every evaluation of values made under these options (lookups, unify, export,
   * validate): the limits then bound all of them together. The caller reads it to see what was
   * spent.
   */
  meter?: Meter;
  maxDepth?: number;
  maxDisjuncts?: number;
  /**
   * For `unify`: export and validate of the result check a large struct's later fields only for
   * the errors its fields repeat (one template's mistake in 10,000 hosts; see fold-repeats.ts).
   * The config loader sets it: a refused document's diagnostics then cost a few hosts' evaluation.
   */
  foldRepeatedErrors?: boolean;
}

export type ExportResult =
  | { readonly ok: true; readonly data: CueData; readonly positions: PositionIndex }
  | { readonly ok: false; readonly errors: readonly CueError[] };

export interface CueValue {
  readonly errors: readonly CueError[];
  /**
   * The errors known without evaluating: the syntax errors and unsupported imports of `compile`'s
   * files (none for other values). `errors` includes them, but evaluates the whole value to find
   * the rest; a caller that only evaluates parts of it (the config loader) asks for these first.
   */
  readonly compileErrors: readonly CueError[];
  /**
   * The errors `errors` reports in the subtrees at `paths`, in the same order, evaluating only the
   * way there and those subtrees; a path the value does not have stands for its nearest ancestor.
   */
  errorsUnder(paths: readonly (readonly string[])[]): readonly CueError[];
  lookup(path: readonly string[]): CueValue | undefined;
  /** Unifies with `other`; the result evaluates under `options` (default: this value's limits). */
  unify(other: CueValue, options?: EvalOptions): CueValue;
  export(): ExportResult;
  toJSON(indent?: number): { ok: true; text: string } | { ok: false; errors: readonly CueError[] };
  validate(options?: { concrete?: boolean }): readonly CueError[];
}

const handles = new WeakMap<CueValue, { v: Vertex; limits: Limits; names: () => ReachableNames }>();

/** The vertex behind a value handle (for inspection tools). */
export function vertexOf(
  c: CueValue,
): { v: Vertex; limits: Limits; names: () => ReachableNames } | undefined {
  return handles.get(c);
}

function limitsOf(o: EvalOptions | undefined): Limits {
  return {
    maxSteps: o?.maxSteps ?? DEFAULT_LIMITS.maxSteps,
    maxVertices: o?.maxVertices ?? DEFAULT_LIMITS.maxVertices,
    maxDepth: o?.maxDepth ?? DEFAULT_LIMITS.maxDepth,
    maxDisjuncts: o?.maxDisjuncts ?? DEFAULT_LIMITS.maxDisjuncts,
    ...(o?.meter === undefined ? {} : { meter: o.meter }),
  };
}

/** Parses and evaluates the files as one package instance. Never throws. */
export function compile(files: readonly SourceFile[], options?: EvalOptions): CueValue {
  const limits = limitsOf(options);
  const errors: CueError[] = [];
  const parsed: ast.File[] = [];
  for (const f of files) {
    const r = parseFile(f.name, f.text, { maxDepth: limits.maxDepth });
    // Errors cue's compiler reports (the tree is whole) are at their declaration's path.
    const whole = r.errors.every((e) => e.compile === true);
    for (const e of r.errors) {
      errors.push({
        path: whole ? compilePathAt(r.node, e.pos.offset) : [],
        code: e.code,
        message: e.message,
        positions: [{ file: e.pos.file, line: e.pos.line, column: e.pos.column }],
      });
    }
    parsed.push(r.node);
  }
  const root = new Vertex(undefined, "");
  root.fieldType = REGULAR;
  if (errors.length > 0) {
    root.err = bottom("syntax", errors[0]?.message ?? "syntax error");
    return makeValue(root, limits, errors, NO_NAMES, [], false, errors);
  }
  let names: ReachableNames | undefined;
  const namesOf = (): ReachableNames => {
    names ??= reachableNames(parsed);
    return names;
  };
  // Every name the package declares, asked only when a predeclared type is an operand.
  let shadowing: Set<string> | undefined;
  const declared = (): ReadonlySet<string> => {
    shadowing ??= declaredNames(parsed);
    return shadowing;
  };
  for (const file of parsed) {
    const imports = new Map<string, string>();
    for (const imp of file.imports) {
      const path = imp.path.split(":")[0] ?? imp.path;
      const name = imp.name?.name ?? path.split("/").pop() ?? path;
      if (!hasPackage(path)) {
        errors.push({
          path: [],
          code: "unsupported",
          message: `import "${imp.path}" is not supported (only builtin packages are)`,
          positions: [{ file: imp.pos.file, line: imp.pos.line, column: imp.pos.column }],
        });
      }
      imports.set(name, path);
    }
    errors.push(...letCycles(file));
    errors.push(...abstractOperands(file, declared));
    const frame: Frame = {
      up: undefined,
      vertex: root,
      scope: fileScope(parsed, file),
      lit: undefined,
      binds: undefined,
      lets: undefined,
      imports,
    };
    const lit: ast.StructLit = {
      kind: "Struct",
      decls: file.decls,
      implicit: false,
      pos: file.pos,
      end: file.end,
    };
    // Experiments that only add syntax (`try`, `~X` aliases) are rejected by the parser where
    // that syntax is used; `explicitopen` and `self` of `aliasv2` are implemented.
    markExperiments(frame, fileExperiments(file).enabled);
    root.addConj({ expr: lit, env: frame, ctx: NO_CLOSE, value: undefined, pos: file.pos, embed: false });
  }
  if (errors.length > 0) return makeValue(root, limits, errors, namesOf, [], false, errors);
  // Evaluation happens on first use: a document that is only unified with a schema (the
  // config loader's path) is not evaluated twice.
  // Plain data cannot fail to evaluate: its errors are known (and its references name nothing).
  if (isErrorFreePlainData(parsed, limits.maxDepth, limits.maxSteps)) {
    names = { names: new Set(), any: false };
    return makeValue(root, limits, [], namesOf);
  }
  return makeValue(root, limits, undefined, namesOf);
}

const NO_NAMES = (): ReachableNames => ({ names: new Set(), any: true });

function makeValue(
  v: Vertex,
  limits: Limits,
  known: readonly CueError[] | undefined,
  names: () => ReachableNames,
  at: readonly string[] = [],
  foldRepeats = false,
  compileErrors: readonly CueError[] = [],
): CueValue {
  // `errors` is computed on first use, by whichever walk comes first: the errors walk, or the
  // export / validate walk, which collects the same errors in the same pass.
  let computed = known;
  // What prevents export, from an export() walk that also collected `errors`: validate({concrete})
  // after a failed export (the config loader lists every problem in one run) is then answered
  // without walking the whole value again.
  let exportProblems: readonly CueError[] | undefined;
  const overflowed = (b: BottomV): readonly CueError[] => {
    computed = [toCueError(b.err, [])];
    return computed;
  };
  const errorsOf = (): readonly CueError[] => {
    if (computed === undefined) {
      computed = withEngine(
        limits,
        () =>
          walk(v, [], {
            collect: true,
            exportToo: false,
            output: "none",
            release: DEFAULT_RELEASE_MIN,
            names,
          }).errors,
        overflowed,
      );
    }
    return computed;
  };
  const value: CueValue = {
    get errors() {
      return errorsOf();
    },
    compileErrors,
    errorsUnder(paths) {
      if (computed !== undefined && computed.length === 0) return computed;
      return withEngine(
        limits,
        () => errorsUnder(v, at, paths, names),
        (b) => [toCueError(b.err, [])],
      );
    },
    lookup(path) {
      return withEngine(
        limits,
        () => {
          let cur = v;
          for (const label of path) {
            evaluate(cur);
            if (cur.disj !== undefined) {
              const def = soleDefault(cur.disj);
              if (def === undefined) return undefined;
              cur = def;
              evaluate(cur);
            }
            // A label written `#a` or `_a` names the definition or hidden field; when there is
            // none, the quoted regular field of that name (`"__proto__"`).
            const next = cur.arcs?.get(label) ?? cur.arcs?.get(strLabel(label));
            if (next === undefined) return undefined;
            cur = next;
          }
          evaluate(cur);
          // The path as looked up (a shared definition's vertices have the definition's path).
          const base = [...at, ...path.map((l) => displayLabel(l))];
          const errs = walk(cur, base, { collect: true, exportToo: false, output: "none" }).errors;
          // Per the spec a struct is bottom when a regular field is, recursively: the looked-up
          // value carries its first such descendant error at its own path too.
          const inherited = errs.find(
            (e) =>
              e.path.length > base.length &&
              e.path.slice(base.length).every((l) => !l.startsWith("_") && !l.startsWith("#")),
          );
          if (inherited !== undefined) errs.unshift({ ...inherited, path: base });
          return makeValue(cur, limits, errs, names, base);
        },
        () => undefined,
      );
    },
    unify(other, options) {
      const o = handles.get(other);
      if (o === undefined) throw new TypeError("cue: unify with a value from another implementation");
      const w = new Vertex(undefined, "");
      w.fieldType = REGULAR;
      const conj = (x: Vertex): Conjunct => ({
        expr: undefined,
        env: {
          up: undefined,
          vertex: w,
          scope: undefined,
          lit: undefined,
          binds: undefined,
          lets: undefined,
          imports: undefined,
        },
        ctx: NO_CLOSE,
        value: { t: "vertex", v: x },
        pos: x.conjuncts[0]?.pos ?? { file: "", offset: -1, line: 0, column: 0 },
        embed: false,
      });
      w.conjuncts = [conj(v), conj(o.v)];
      let both: ReachableNames | undefined;
      return makeValue(
        w,
        options === undefined ? limits : limitsOf(options),
        undefined,
        () => {
          both ??= unionNames(names(), o.names());
          return both;
        },
        [],
        options?.foldRepeatedErrors === true,
      );
    },
    export() {
      if (computed !== undefined && computed.length > 0) return { ok: false, errors: computed };
      return withEngine<ExportResult>(
        limits,
        () => {
          const r = walk(v, [...at], {
            collect: computed === undefined,
            exportToo: true,
            output: "data",
            release: DEFAULT_RELEASE_MIN,
            limits,
            names,
            foldRepeats,
          });
          if (computed === undefined) {
            computed = r.errors;
            exportProblems = r.exportErrors;
          }
          if (computed.length > 0) return { ok: false, errors: computed };
          if (r.exportErrors.length > 0 || r.data === undefined || r.positions === undefined) {
            return { ok: false, errors: r.exportErrors };
          }
          return { ok: true, data: r.data, positions: r.positions };
        },
        (b) => ({ ok: false, errors: overflowed(b) }),
      );
    },
    toJSON(indent = 4) {
      if (computed !== undefined && computed.length > 0) return { ok: false, errors: computed };
      return withEngine<{ ok: true; text: string } | { ok: false; errors: readonly CueError[] }>(
        limits,
        () => {
          const r = walk(v, [...at], {
            collect: computed === undefined,
            exportToo: true,
            output: "json",
            indent,
            release: DEFAULT_RELEASE_MIN,
            names,
          });
          if (computed === undefined) computed = r.errors;
          if (computed.length > 0) return { ok: false as const, errors: computed };
          if (r.exportErrors.length > 0 || r.text === undefined) {
            return { ok: false as const, errors: r.exportErrors };
          }
          return { ok: true as const, text: r.text };
        },
        (b) => ({ ok: false as const, errors: overflowed(b) }),
      );
    },
    validate(options) {
      if (!options?.concrete) return errorsOf();
      if (computed !== undefined && exportProblems !== undefined)
        return dedupe([...computed, ...exportProblems]);
      return withEngine(
        limits,
        () => {
          const r = walk(v, [...at], {
            collect: computed === undefined,
            exportToo: true,
            output: "none",
            release: DEFAULT_RELEASE_MIN,
            names,
            foldRepeats,
          });
          if (computed === undefined) computed = r.errors;
          return dedupe([...computed, ...r.exportErrors]);
        },
        (b) => [toCueError(b.err, [])],
      );
    },
  };
  handles.set(value, { v, limits, names });
  return value;
}

function dedupe(errs: CueError[]): CueError[] {
  const seen = new Set<string>();
  // `errors` and the export problems share their error objects where they are the same error.
  const objects = new Set<CueError>();
  return errs.filter((e) => {
    if (objects.has(e)) return false;
    objects.add(e);
    const k = `${e.path.join(".")}\0${e.message}`;
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}
