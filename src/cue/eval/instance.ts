/**
 * A compiled package instance and the public {@link CueValue} handle over a vertex: parsing,
 * building the root vertex from all files, error collection, lookup, unify, export and validate.
 */

import type * as ast from "../syntax/ast.js";
import { parseFile } from "../syntax/parser.js";
import "./builtins/index.js";
import { hasPackage } from "./builtins/registry.js";
import { DEFAULT_LIMITS, type Limits, withEngine } from "./engine.js";
import { type CueError, type ErrCode, toCueError, toCueErrors } from "./errors.js";
import { evaluate } from "./evaluate.js";
import { fileExperiments, markExperiments } from "./experiments.js";
import { type CueData, exportTree, type PositionIndex, toData, toJSONText, withPositions } from "./export.js";
import { fileScope } from "./scope.js";
import { type BottomV, bottom } from "./values.js";
import {
  type Conjunct,
  displayLabel,
  type Frame,
  NO_CLOSE,
  OPTIONAL,
  REGULAR,
  strLabel,
  Vertex,
} from "./vertex.js";

export interface SourceFile {
  readonly name: string;
  readonly text: string;
}

export interface EvalOptions {
  maxSteps?: number;
  maxDepth?: number;
  maxDisjuncts?: number;
}

export type ExportResult =
  | { readonly ok: true; readonly data: CueData; readonly positions: PositionIndex }
  | { readonly ok: false; readonly errors: readonly CueError[] };

export interface CueValue {
  readonly errors: readonly CueError[];
  lookup(path: readonly string[]): CueValue | undefined;
  unify(other: CueValue): CueValue;
  export(): ExportResult;
  toJSON(indent?: number): { ok: true; text: string } | { ok: false; errors: readonly CueError[] };
  validate(options?: { concrete?: boolean }): readonly CueError[];
}

const handles = new WeakMap<CueValue, { v: Vertex; limits: Limits }>();

/** The vertex behind a value handle (for inspection tools). */
export function vertexOf(c: CueValue): { v: Vertex; limits: Limits } | undefined {
  return handles.get(c);
}

function limitsOf(o: EvalOptions | undefined): Limits {
  return {
    maxSteps: o?.maxSteps ?? DEFAULT_LIMITS.maxSteps,
    maxDepth: o?.maxDepth ?? DEFAULT_LIMITS.maxDepth,
    maxDisjuncts: o?.maxDisjuncts ?? DEFAULT_LIMITS.maxDisjuncts,
  };
}

/** Parses and evaluates the files as one package instance. Never throws. */
export function compile(files: readonly SourceFile[], options?: EvalOptions): CueValue {
  const limits = limitsOf(options);
  const errors: CueError[] = [];
  const parsed: ast.File[] = [];
  for (const f of files) {
    const r = parseFile(f.name, f.text, { maxDepth: limits.maxDepth });
    for (const e of r.errors) {
      errors.push({
        path: [],
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
    return makeValue(root, limits, errors);
  }
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
  if (errors.length > 0) return makeValue(root, limits, errors);
  // Evaluation happens on first use: a document that is only unified with a schema (the
  // config loader's path) is not evaluated twice.
  return makeValue(root, limits, () => {
    withEngine(
      limits,
      () => collectErrors(root, [], errors, 0),
      (b) => void errors.push(toCueError(b.err, [])),
    );
    return errors;
  });
}

function isIncomplete(code: ErrCode): boolean {
  return code === "incomplete";
}

/** Walks the tree (regular, hidden and definition fields; not optional ones) collecting errors. */
function collectErrors(v: Vertex, path: string[], out: CueError[], depth: number): void {
  evaluate(v);
  if (v.err !== undefined) {
    if (!isIncomplete(v.err.err.code)) out.push(...toCueErrors(v.err.err, path));
    return;
  }
  if (depth > 1000 || v.disj !== undefined || v.arcs === undefined) return;
  v.arcs.forEach((a, label) => {
    if (a.fieldType === OPTIONAL) return;
    path.push(displayLabel(label));
    collectErrors(a, path, out, depth + 1);
    path.pop();
  });
}

function overflow(b: BottomV): { ok: false; errors: readonly CueError[] } {
  return { ok: false, errors: [toCueError(b.err, [])] };
}

function makeValue(
  v: Vertex,
  limits: Limits,
  errorsOrThunk: readonly CueError[] | (() => readonly CueError[]),
): CueValue {
  let computed = typeof errorsOrThunk === "function" ? undefined : errorsOrThunk;
  const errorsOf = (): readonly CueError[] => {
    if (computed === undefined && typeof errorsOrThunk === "function") computed = errorsOrThunk();
    return computed ?? [];
  };
  const value: CueValue = {
    get errors() {
      return errorsOf();
    },
    lookup(path) {
      return withEngine(
        limits,
        () => {
          let cur = v;
          for (const label of path) {
            evaluate(cur);
            if (cur.disj !== undefined) {
              const d = cur.disj;
              const defs = d.values.filter((_, i) => d.hasDefault && d.defaults[i]);
              if (defs.length !== 1 || defs[0] === undefined) return undefined;
              cur = defs[0];
              evaluate(cur);
            }
            // A label written `#a` or `_a` names the definition or hidden field; when there is
            // none, the quoted regular field of that name (`"__proto__"`).
            const next = cur.arcs?.get(label) ?? cur.arcs?.get(strLabel(label));
            if (next === undefined) return undefined;
            cur = next;
          }
          evaluate(cur);
          const errs: CueError[] = [];
          const base = cur.path();
          collectErrors(cur, base, errs, 0);
          // Per the spec a struct is bottom when a regular field is, recursively: the looked-up
          // value carries its first such descendant error at its own path too.
          const inherited = errs.find(
            (e) =>
              e.path.length > base.length &&
              e.path.slice(base.length).every((l) => !l.startsWith("_") && !l.startsWith("#")),
          );
          if (inherited !== undefined) errs.unshift({ ...inherited, path: base });
          return makeValue(cur, limits, errs);
        },
        () => undefined,
      );
    },
    unify(other) {
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
      return makeValue(w, limits, () => {
        const errs: CueError[] = [];
        withEngine(
          limits,
          () => collectErrors(w, [], errs, 0),
          (b) => void errs.push(toCueError(b.err, [])),
        );
        return errs;
      });
    },
    export() {
      if (errorsOf().length > 0) return { ok: false, errors: errorsOf() };
      return withEngine<ExportResult>(
        limits,
        () => {
          const errs: CueError[] = [];
          const t = withPositions(() => exportTree(v, v.path(), errs));
          if (t === undefined || errs.length > 0) return { ok: false, errors: errs };
          const { data, positions } = toData(t);
          return { ok: true, data, positions };
        },
        overflow,
      );
    },
    toJSON(indent = 4) {
      if (errorsOf().length > 0) return { ok: false, errors: errorsOf() };
      return withEngine<{ ok: true; text: string } | { ok: false; errors: readonly CueError[] }>(
        limits,
        () => {
          const errs: CueError[] = [];
          const t = exportTree(v, v.path(), errs);
          if (t === undefined || errs.length > 0) return { ok: false as const, errors: errs };
          return { ok: true as const, text: toJSONText(t, indent) };
        },
        overflow,
      );
    },
    validate(options) {
      if (!options?.concrete) return errorsOf();
      return withEngine(
        limits,
        () => {
          const errs: CueError[] = [...errorsOf()];
          exportTree(v, v.path(), errs);
          return dedupe(errs);
        },
        (b) => [toCueError(b.err, [])],
      );
    },
  };
  handles.set(value, { v, limits });
  return value;
}

function dedupe(errs: CueError[]): CueError[] {
  const seen = new Set<string>();
  return errs.filter((e) => {
    const k = `${e.path.join(".")}\0${e.message}`;
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}
