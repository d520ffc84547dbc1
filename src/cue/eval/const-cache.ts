/**
 * Constant expressions — built from literals, operators, predeclared identifiers and references to
 * top-level scalar definitions, such as `*"60s" | string`, `int & >=1 & <=10` or
 * `*"60s" | #Duration` — evaluate the same everywhere. Definitions repeat them for every use, so
 * their values are computed once per syntax node. At each use the cache checks that no enclosing
 * scope shadows a predeclared name and that references resolve to the same definitions as when the
 * value was computed.
 */

import type * as ast from "../syntax/ast.js";
import { predeclared } from "./builtins/registry.js";
import { scalarValueOf } from "./collect.js";
import { evalExpr } from "./expr.js";
import { resolveName } from "./scope.js";
import type { Value } from "./values.js";
import { EVALUATED, type Frame, Vertex } from "./vertex.js";

interface ConstInfo {
  /** Predeclared names used (must not be shadowed). */
  readonly idents: readonly string[];
  /** Other names used: each must resolve to a top-level scalar definition. */
  readonly refs: readonly string[];
  value: Value | undefined;
  /** The definitions `refs` resolved to when `value` was computed (weak: no old trees kept). */
  resolved: WeakRef<Vertex>[] | undefined;
  computing: boolean;
}

const cache = new WeakMap<ast.Expr, ConstInfo | null>();

function analyze(x: ast.Expr, idents: string[], refs: string[]): boolean {
  switch (x.kind) {
    case "Int":
    case "Float":
    case "String":
    case "Bytes":
    case "Bool":
    case "Null":
      return true;
    case "Ident":
      if (x.name === "_") return true;
      if (predeclared(x.name) === undefined) {
        if (!x.name.startsWith("#")) return false;
        if (!refs.includes(x.name)) refs.push(x.name);
        return true;
      }
      if (x.name === "len" || x.name === "or") return false;
      if (!idents.includes(x.name)) idents.push(x.name);
      return true;
    case "Unary":
      return analyze(x.expr, idents, refs);
    case "Paren":
      return analyze(x.expr, idents, refs);
    case "Binary":
      return analyze(x.left, idents, refs) && analyze(x.right, idents, refs);
    default:
      return false;
  }
}

let scratch: Frame | undefined;

/** A top-level definition with a scalar value (its identity stands for its value). */
function stableScalar(name: string, env: Frame): Vertex | undefined {
  const r = resolveName(name, env);
  if (r === undefined || r.t !== "vertex") return undefined;
  const v = r.v;
  if (v.parent === undefined || v.parent.parent !== undefined || v.isLet) return undefined;
  // Only definitions already evaluated: checking must not evaluate anything out of order.
  if (v.status !== EVALUATED) return undefined;
  return scalarValueOf(v) === undefined ? undefined : v;
}

/** The value of a constant expression, or undefined if `x` is not constant in `env`. */
export function constValue(x: ast.Expr, env: Frame): Value | undefined {
  let info = cache.get(x);
  if (info === undefined) {
    const idents: string[] = [];
    const refs: string[] = [];
    info = analyze(x, idents, refs)
      ? { idents, refs, value: undefined, resolved: undefined, computing: false }
      : null;
    cache.set(x, info);
  }
  if (info === null || info.computing) return undefined;
  for (const name of info.idents) if (resolveName(name, env) !== undefined) return undefined;
  let resolved: Vertex[] | undefined;
  if (info.refs.length > 0) {
    resolved = [];
    for (const name of info.refs) {
      const v = stableScalar(name, env);
      if (v === undefined) return undefined;
      resolved.push(v);
    }
    const prev = info.resolved;
    if (prev === undefined || prev.some((v, i) => v.deref() !== resolved?.[i])) info.value = undefined;
  }
  if (info.value === undefined) {
    scratch ??= {
      up: undefined,
      vertex: new Vertex(undefined, ""),
      scope: undefined,
      lit: undefined,
      binds: undefined,
      lets: undefined,
      imports: undefined,
    };
    info.computing = true;
    try {
      info.value = evalExpr(x, resolved === undefined ? scratch : env);
      info.resolved = resolved?.map((v) => new WeakRef(v));
    } finally {
      info.computing = false;
    }
  }
  return info.value;
}
