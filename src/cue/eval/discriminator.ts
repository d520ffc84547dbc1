/**
 * The discriminator fast path for disjunctions of structs: a term whose literal fields (such as
 * `type: "http"`, also through embedded definitions) conflict with a literal the vertex already has
 * is dropped without being evaluated.
 */

import type * as ast from "../syntax/ast.js";
import { identLabel } from "../syntax/index.js";
import type { Term } from "./disjunction.js";
import { resolveRef } from "./expr.js";
import { newFrame } from "./scope.js";
import { atomsEqual, isAtom, type Value } from "./values.js";
import { type Conjunct, strLabel, type Vertex } from "./vertex.js";

const litCacheNode = new WeakMap<object, Map<string, Value> | null>();

/** The value of a literal expression (as discrimination reads it), or undefined. */
export function literalValue(e: ast.Expr): Value | undefined {
  switch (e.kind) {
    case "String":
      return { t: "string", v: e.value };
    case "Int":
      return { t: "int", v: e.value };
    case "Bool":
      return { t: "bool", v: e.value };
    case "Null":
      return { t: "null" };
    case "Paren":
      return literalValue(e.expr);
    default:
      return undefined;
  }
}

function collectLiterals(e: ast.Expr, env: Conjunct["env"], out: Map<string, Value>, depth: number): void {
  if (depth > 8) return;
  switch (e.kind) {
    case "Struct": {
      let m = litCacheNode.get(e);
      if (m === undefined) {
        m = null;
        for (const d of e.decls) {
          // Optional and required fields do not discriminate: conflicting optional values do not
          // make a disjunct fail.
          if (d.kind !== "Field" || d.constraint !== "regular") continue;
          let name = identLabel(d);
          if (name === undefined) {
            const l = d.label;
            if (l.kind === "String") name = strLabel(l.value);
          }
          if (name === undefined) continue;
          const lv = literalValue(d.value);
          if (lv === undefined) continue;
          m ??= new Map();
          m.set(name, lv);
        }
        litCacheNode.set(e, m);
      }
      if (m !== null) for (const [k, x] of m) out.set(k, x);
      // Embedded definitions contribute their literal fields too (`{#SnmpFields, …}`).
      for (const d of e.decls) {
        if (d.kind === "Embed" && (d.expr.kind === "Ident" || d.expr.kind === "Selector")) {
          collectLiterals(d.expr, newFrame(env, env.vertex, e), out, depth + 1);
        }
      }
      return;
    }
    case "Paren":
      collectLiterals(e.expr, env, out, depth + 1);
      return;
    case "Binary":
      if (e.op === "&") {
        collectLiterals(e.left, env, out, depth + 1);
        collectLiterals(e.right, env, out, depth + 1);
      }
      return;
    case "Ident":
    case "Selector": {
      const r = resolveRef(e, env);
      if (r.t !== "vertex") return;
      let m = litCacheNode.get(r.v);
      if (m === undefined) {
        const tmp = new Map<string, Value>();
        for (const rc of r.v.conjuncts) {
          if (rc.expr !== undefined) collectLiterals(rc.expr, rc.env, tmp, depth + 1);
        }
        m = tmp.size > 0 ? tmp : null;
        litCacheNode.set(r.v, m);
      }
      if (m !== null) for (const [k, x] of m) out.set(k, x);
      return;
    }
    default:
      return;
  }
}

/** The concrete literal an arc is set to by the conjuncts collected so far, if any. */
function baseLiteral(a: Vertex): Value | undefined {
  for (const c of a.conjuncts) {
    if (c.expr !== undefined) {
      const lv = literalValue(c.expr);
      if (lv !== undefined) return lv;
    } else if (c.value !== undefined && isAtom(c.value)) return c.value;
  }
  return undefined;
}

/** The literal fields of a term, from a per-node or per-vertex cache where possible. */
export function termLiterals(e: ast.Expr, env: Conjunct["env"]): ReadonlyMap<string, Value> | null {
  if (
    e.kind === "Ident" ||
    e.kind === "Selector" ||
    (e.kind === "Struct" && !e.decls.some((d) => d.kind === "Embed"))
  ) {
    const key: object | undefined = e.kind === "Struct" ? e : undefined;
    if (key === undefined) {
      const r = resolveRef(e as ast.Ident | ast.Selector, env);
      if (r.t !== "vertex") return null;
      const cached = litCacheNode.get(r.v);
      if (cached !== undefined) return cached;
    } else {
      const cached = litCacheNode.get(key);
      if (cached !== undefined) return cached;
    }
  }
  const lits = new Map<string, Value>();
  collectLiterals(e, env, lits, 0);
  return lits.size > 0 ? lits : null;
}

/** Whether term `t` conflicts with a literal field `v` already has (it can be dropped). */
export function discriminated(v: Vertex, t: Term): boolean {
  if (v.arcs === undefined || t.expr === undefined) return false;
  // Terms of a cached disjunction keep their literals (see disjunction.ts).
  let lits = t.lits;
  if (lits === undefined) {
    lits = termLiterals(t.expr, t.env);
    t.lits = lits;
  }
  if (lits === null) return false;
  const arcs = v.arcs;
  for (const label of lits.keys()) {
    const a = arcs.get(label);
    const lit = lits.get(label);
    if (a === undefined || lit === undefined) continue;
    const base = baseLiteral(a);
    if (base !== undefined && (base.t !== lit.t || !atomsEqual(base, lit))) return true;
  }
  return false;
}
