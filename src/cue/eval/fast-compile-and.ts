/**
 * Definitions unified with struct literals for the fast export path's compiled types
 * (`fast-compile.ts`): `#Service & {name: Name}`, as a pattern's value typically is, compiles to one
 * struct type that the definition closes.
 */

import type * as ast from "../syntax/ast.js";
import { compileExpr } from "./fast-compile.js";
import { BAD, type FastType, type StructT, type TypeScope, union, uses } from "./fast-types.js";

/**
 * `#D & {f: v}`: a definition unified with struct literals (in the order written). The definition
 * alone decides what is allowed (the literals' fields must be among its own); the literals' fields
 * keep the closedness of the use's context, as the evaluator's literal conjuncts do, while the
 * definition's fields and patterns are closed by it. A field both declare as structs merges the
 * same way, recursively. Undefined when no operand is a struct literal (the scalar forms below take
 * those); BAD for other combinations.
 */
export function compileAnd(e: ast.Binary, scope: TypeScope): FastType | undefined {
  const ops: ast.Expr[] = [];
  splitAnd(e, ops);
  if (!ops.some((x) => x.kind === "Struct")) return undefined;
  let def: StructT | undefined;
  let out: StructT | undefined;
  for (const op of ops) {
    const t = compileExpr(op, scope);
    if (t.k !== "struct") return BAD;
    if (op.kind === "Struct") {
      if (t.closes) return BAD;
      out = out === undefined ? t : merge(out, def !== undefined, t, false);
    } else {
      if (def !== undefined || t.def === undefined) return BAD;
      def = t;
      out = out === undefined ? pinClosed(t) : merge(out, false, pinClosed(t), true);
    }
    if (out === undefined) return BAD;
  }
  return def === undefined ? BAD : out;
}

/** A definition's type as part of a merged one: its fields and patterns closed by it. */
function pinClosed(t: StructT): StructT {
  return {
    ...t,
    fields: t.fields.map((f) => ({ ...f, uses: [f.uses[1], f.uses[1]] as const })),
    patterns: t.patterns.map((p) => ({ ...p, uses: [p.uses[1], p.uses[1]] as const })),
    def: undefined,
    closes: true,
  };
}

/**
 * `a & b` where exactly one side closes (`aCloses`: a; else b, already pinned). The other side must
 * only declare fields. Undefined when they do not combine this way.
 */
function merge(a: StructT, aCloses: boolean, b: StructT, bCloses: boolean): StructT | undefined {
  if (aCloses === bCloses) return undefined;
  const closing = aCloses ? a : b;
  const other = aCloses ? b : a;
  if (other.patterns.length > 0 || other.open || other.embeds || other.closes) return undefined;
  const fields = a.fields.slice();
  for (const f of b.fields) {
    const i = fields.findIndex((g) => g.label === f.label);
    const g = fields[i];
    const x = g?.uses[1].type;
    const y = f.uses[1].type;
    const m =
      g !== undefined && x?.k === "struct" && y.k === "struct"
        ? merge(aCloses ? pinClosed(x) : x, aCloses, bCloses ? pinClosed(y) : y, bCloses)
        : undefined;
    // Both declare a struct: one field whose type is both, in declaration order (else two fields,
    // whose closedness the fast path checks each on its own).
    if (g !== undefined && m !== undefined) {
      fields[i] = { label: f.label, ft: Math.min(g.ft, f.ft), uses: uses(g.uses[1].expr, m), declared: true };
    } else fields.push(f);
  }
  const labels = closing.labels;
  return {
    k: "struct",
    fields: fields.map((f) => (f.declared === labels.has(f.label) ? f : { ...f, declared: !f.declared })),
    patterns: closing.patterns,
    labels: closing.labels,
    open: closing.open,
    embeds: false,
    def: undefined,
    closes: true,
    free: union(a.free, b.free),
  };
}

function splitAnd(e: ast.Expr, out: ast.Expr[]): void {
  let x = e;
  while (x.kind === "Paren") x = x.expr;
  if (x.kind === "Binary" && x.op === "&") {
    splitAnd(x.left, out);
    splitAnd(x.right, out);
  } else out.push(x);
}
