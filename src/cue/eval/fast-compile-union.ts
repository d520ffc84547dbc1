/**
 * Tagged unions for the fast export path's compiled types (`fast-compile.ts`): a disjunction whose
 * alternatives are all definitions of structs, flattened as the evaluator flattens it, with each
 * term's literal fields (`type: "tcp"`) that choose it.
 */

import type * as ast from "../syntax/ast.js";
import { inDefinition } from "./collect.js";
import { termLiterals } from "./discriminator.js";
import { resolveRef } from "./expr.js";
import { defType } from "./fast-compile.js";
import { BAD, type DisjT, type FastType, NO_FREE, type TermT } from "./fast-types.js";
import type { Frame, Vertex } from "./vertex.js";

/** A disjunction whose alternatives are all definitions of structs (a tagged union). */
export function compileDisj(e: ast.Binary, env: Frame, def: Vertex | undefined): FastType {
  const terms: TermT[] = [];
  if (!flatten(e, env, terms, 0)) return BAD;
  return { k: "disj", terms, tag: tagOf(terms), def, free: NO_FREE };
}

function tagOf(terms: readonly TermT[]): DisjT["tag"] {
  let label: string | undefined;
  const byValue = new Map<string, TermT>();
  for (const t of terms) {
    if (t.lits === null || t.lits.size !== 1) return undefined;
    for (const [l, v] of t.lits) {
      if ((label !== undefined && l !== label) || v.t !== "string" || byValue.has(v.v)) return undefined;
      label = l;
      byValue.set(v.v, t);
    }
  }
  return label === undefined ? undefined : { label, terms: byValue };
}

function flatten(e: ast.Expr, env: Frame, out: TermT[], depth: number): boolean {
  if (depth > 16) return false;
  const alts: ast.Expr[] = [];
  if (!splitAlts(e, alts)) return false;
  for (const alt of alts) {
    let x = alt;
    while (x.kind === "Paren") x = x.expr;
    if (x.kind === "Binary" && x.op === "|") {
      if (!flatten(x, env, out, depth + 1)) return false;
      continue;
    }
    if (x.kind !== "Ident" && x.kind !== "Selector") return false;
    const r = resolveRef(x, env);
    if (r.t !== "vertex" || r.v.isLet || !inDefinition(r.v) || r.v.conjuncts.length !== 1) return false;
    const c = r.v.conjuncts[0];
    let inner = c?.expr;
    if (c === undefined || inner === undefined || c.value !== undefined) return false;
    // A reference to another disjunction is expanded in place, as the evaluator flattens it.
    while (inner.kind === "Paren") inner = inner.expr;
    if (inner.kind === "Binary" && inner.op === "|") {
      if (!flatten(inner, c.env, out, depth + 1)) return false;
      continue;
    }
    out.push({ lits: termLiterals(x, env), type: defType(r.v) });
  }
  return true;
}

/** The alternatives of `a | b | c` (false when one is marked as a default). */
function splitAlts(e: ast.Expr, out: ast.Expr[]): boolean {
  if (e.kind === "Binary" && e.op === "|") return splitAlts(e.left, out) && splitAlts(e.right, out);
  if (e.kind === "Unary" && e.op === "*") return false;
  out.push(e);
  return true;
}
