/**
 * Expressions printed back as CUE source, for messages that name what the user wrote rather than
 * its value (`cannot range over tail != null`, `top.foo undefined as top is incomplete`,
 * `index n out of range [-1]`). Compact: structs and lists inside are abbreviated.
 */

import type * as ast from "../syntax/ast.js";
import { quoteString } from "./values.js";

/** The source form of an expression, as `cue` prints it in messages. */
export function exprText(e: ast.Expr, depth = 0): string {
  if (depth > 20) return "…";
  const sub = (x: ast.Expr): string => exprText(x, depth + 1);
  switch (e.kind) {
    case "Ident":
      return e.name;
    case "Int":
      return e.raw;
    case "Float":
      return e.raw;
    case "String":
      return quoteString(e.value);
    case "Bytes":
      return "'…'";
    case "Interpolation":
      return `"${e.parts.map((p) => (typeof p === "string" ? p : `\\(${sub(p)})`)).join("")}"`;
    case "Bool":
      return String(e.value);
    case "Null":
      return "null";
    case "Bottom":
      return "_|_";
    case "Struct":
      return e.decls.length === 0 ? "{}" : "{...}";
    case "List":
      return e.elems.length === 0 && e.ellipsis === undefined ? "[]" : "[...]";
    case "Paren":
      // A disjunction prints its own parentheses.
      return e.expr.kind === "Binary" && e.expr.op === "|" ? sub(e.expr) : `(${sub(e.expr)})`;
    case "Unary":
      return `${e.op}${sub(e.expr)}`;
    case "Binary":
      // cue prints a disjunction as one compact term: `(a|b|c)`.
      if (e.op === "|") return `(${disjuncts(e).map(sub).join("|")})`;
      return `${sub(e.left)} ${e.op} ${sub(e.right)}`;
    case "Selector":
      return `${sub(e.expr)}.${e.sel.kind === "Ident" ? e.sel.name : quoteString(e.sel.value)}`;
    case "Index":
      return `${sub(e.expr)}[${sub(e.index)}]`;
    case "Slice":
      return `${sub(e.expr)}[${e.low ? sub(e.low) : ""}:${e.high ? sub(e.high) : ""}]`;
    case "Call":
      return `${sub(e.fn)}(${e.args.map(sub).join(", ")})`;
    case "Postfix":
      return `${sub(e.expr)}${e.op}`;
    case "Alias":
      return `${e.ident.name}=${sub(e.expr)}`;
    case "BadExpr":
      return "_|_";
    default: {
      const never: never = e;
      return String(never);
    }
  }
}

/** The terms of a disjunction written `a | b | c` (a parenthesised one stays one term, as in cue). */
function disjuncts(e: ast.Expr): ast.Expr[] {
  if (e.kind !== "Binary" || e.op !== "|") return [e];
  return [...disjuncts(e.left), ...disjuncts(e.right)];
}
