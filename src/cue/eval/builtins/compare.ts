/**
 * Value equality for builtins (`list.Contains`, `list.UniqueItems`).
 */

import type * as ast from "../../syntax/ast.js";
import { binaryOp } from "../ops.js";
import type { Value } from "../values.js";

const noPos = { file: "", offset: -1, line: 0, column: 0 };
const fake = (op: ast.BinaryOp): ast.Binary => {
  const e: ast.Expr = { kind: "Null", pos: noPos, end: 0 };
  return { kind: "Binary", op, left: e, right: e, opPos: noPos, pos: noPos, end: 0 };
};

/** Whether `a op b` holds (false when it errors). */
export function binaryOpValues(op: "==" | "<", a: Value, b: Value): boolean {
  const r = binaryOp(op, a, b, fake(op));
  return r.t === "bool" && r.v;
}
