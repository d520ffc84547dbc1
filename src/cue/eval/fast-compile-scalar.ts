/**
 * Scalar constraints for the fast export path's compiled types (`fast-compile.ts`): which values a
 * compiled type may hold, and the parts a conjunct unified in the evaluator's second pass
 * contributes, in its order (`&` split into operands, references giving their evaluated scalar,
 * disjunctions left pending).
 */

import type * as ast from "../syntax/ast.js";
import { scalarValueOf } from "./collect.js";
import { constValue } from "./const-cache.js";
import { scalarDisjunction } from "./disjunction.js";
import { evaluate } from "./evaluate.js";
import { evalExpr, resolveRef } from "./expr.js";
import { part, type ScalarPart } from "./fast-types.js";
import type { Value } from "./values.js";
import type { Frame } from "./vertex.js";

/** Whether a value can be a compiled scalar constraint: top, an atom, a basic type, a scalar disjunction. */
export function scalarOk(v: Value): boolean {
  switch (v.t) {
    case "top":
    case "null":
    case "bool":
    case "int":
    case "float":
    case "string":
    case "bytes":
    case "basic":
      return true;
    case "disj":
      return v.values.every(scalarOk);
    default:
      return false;
  }
}

/**
 * Evaluates the definitions a constant expression names first, so that `constValue` treats it the
 * same way at every use (it only takes definitions that are already evaluated).
 */
export function settleRefs(e: ast.Expr, env: Frame): void {
  switch (e.kind) {
    case "Ident":
      if (e.name.startsWith("#")) {
        const r = resolveRef(e, env);
        if (r.t === "vertex") evaluate(r.v);
      }
      return;
    case "Paren":
    case "Unary":
      settleRefs(e.expr, env);
      return;
    case "Binary":
      settleRefs(e.left, env);
      settleRefs(e.right, env);
      return;
    default:
      return;
  }
}

/**
 * The scalar parts a conjunct unified in the second pass contributes, in the evaluator's order:
 * `&` is split into its operands, references give their evaluated scalar. False when some part is
 * not a scalar this path handles.
 */
export function scalarParts(e: ast.Expr, env: Frame, out: ScalarPart[]): boolean {
  if (e.kind === "Binary" || e.kind === "Unary") {
    const k = constValue(e, env);
    if (k !== undefined) {
      out.push(part(k, 1));
      return scalarOk(k);
    }
  }
  switch (e.kind) {
    case "Paren":
      return scalarParts(e.expr, env, out);
    case "Binary":
      if (e.op === "&") return scalarParts(e.left, env, out) && scalarParts(e.right, env, out);
      if (e.op === "|") {
        const d = scalarDisjunction(e, env);
        if (d === undefined) return false;
        out.push(part(d, 2));
        return scalarOk(d);
      }
      break;
    case "Unary":
      if (e.op === "*") return false;
      break;
    case "Ident":
    case "Selector":
    case "Index": {
      const r = resolveRef(e, env);
      const v = r.t === "value" ? r.v : r.v.conjuncts.length === 0 ? undefined : scalarValueOf(r.v);
      if (v === undefined || !scalarOk(v)) return false;
      out.push(part(v, 1));
      return true;
    }
    case "Int":
    case "Float":
    case "String":
    case "Bytes":
    case "Bool":
    case "Null":
    case "Interpolation":
      break;
    default:
      return false;
  }
  const v = evalExpr(e, env);
  out.push(part(v, 1));
  return scalarOk(v);
}
