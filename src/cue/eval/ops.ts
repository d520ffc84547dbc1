/**
 * Arithmetic, comparison, logical and string operators, and unary bounds (`>=0`, `=~"re"`).
 * Operands are default-resolved; non-concrete operands make the result incomplete.
 */

import type * as ast from "../syntax/ast.js";
import { resolveDefaultValue } from "./defaults.js";
import { evaluate } from "./evaluate.js";
import { matchRegexp } from "./regex.js";
import {
  atomsEqual,
  type BoundOp,
  bottom,
  boundKind,
  compareAtoms,
  FALSE,
  type FloatV,
  formatValue,
  isAtom,
  kindOf,
  NUMBER,
  TRUE,
  typeName,
  type Value,
} from "./values.js";
import type { Vertex } from "./vertex.js";

function num(v: Value): number | undefined {
  if (v.t === "int") return Number(v.v);
  if (v.t === "float") return v.v;
  return undefined;
}

function float(n: number): FloatV {
  return { t: "float", v: n };
}

function incomplete(op: string, v: Value, pos: ast.Expr): Value {
  if (v.t === "disj") return unresolved(v, pos);
  return bottom("incomplete", `non-concrete value ${formatValue(v)} in operand to ${op}`, [pos.pos]);
}

/** A bound whose operand is not concrete (`<(i)` with `i: int`): cue names the operand as written. */
function boundIncomplete(op: string, v: Value, x: ast.Unary): Value {
  if (v.t === "disj") return unresolved(v, x.expr);
  let e = x.expr;
  while (e.kind === "Paren") e = e.expr;
  return bottom("incomplete", `non-concrete value ${exprText(e)} for bound ${op}`, [e.pos]);
}

/** A disjunction used where one value is needed and no default picks it. */
export function unresolved(v: Value, at: ast.Expr): Value {
  return bottom("incomplete", `unresolved disjunction ${formatValue(v)} (type ${typeName(v)})`, [at.pos]);
}

function isConcrete(v: Value): boolean {
  return isAtom(v) || v.t === "vertex";
}

/**
 * `==x` and `!=x` on a struct or list (cue's BoundValue): a validator of that kind comparing the
 * value with x. Other bounds cannot take a struct or list.
 */
function structBound(op: string, b: Vertex, x: ast.Unary): Value {
  evaluate(b);
  const kind = b.isList ? 64 : 128;
  if (op !== "==" && op !== "!=") {
    return bottom("eval", `cannot use ${b.isList ? "list" : "struct"} for bound ${op}`, [x.expr.pos]);
  }
  const name = `${op}${exprText(x.expr)}`;
  return {
    t: "basic",
    k: kind,
    bounds: [],
    validators: [
      {
        name,
        check: (val) => {
          if (val.t !== "vertex") return `out of bound ${name}`;
          return equalVertex(val.v, b, 0) === (op === "==") ? undefined : `out of bound ${name}`;
        },
      },
    ],
  };
}

/**
 * `==x` on a scalar (cue's BoundValue with EqualOp): a constraint of x's kind that only x meets, not
 * x itself (`a: ==1` alone is not concrete; `a: ==1, a: 2` is out of bound ==1).
 */
function equalBound(v: Value): Value {
  const name = `==${formatValue(v)}`;
  const k = kindOf(v);
  return {
    t: "basic",
    k: (k & NUMBER) !== 0 ? NUMBER : k,
    bounds: [],
    validators: [{ name, check: (val) => (deepEqual(val, v) === true ? undefined : `out of bound ${name}`) }],
  };
}

/** `-x`, `+x`, `!x`, and bounds `<x`, `>=x`, `!=x`, `=~x`... */
export function unaryOp(op: ast.UnaryOp | "==", raw: Value, x: ast.Unary): Value {
  const v = resolveDefaultValue(raw);
  if (v.t === "bottom") return v;
  switch (op) {
    case "-":
      if (v.t === "int") return { t: "int", v: -v.v };
      if (v.t === "float") return float(-v.v);
      break;
    case "+":
      if (v.t === "int" || v.t === "float") return v;
      break;
    case "!":
      if (v.t === "bool") return v.v ? FALSE : TRUE;
      if (v.t === "basic" && (v.k & 2) === 0) {
        return bottom("eval", `invalid operand ${formatValue(v)} ('!' requires concrete value)`, [x.pos]);
      }
      break;
    case "*":
      return v;
    case "==":
      if (isAtom(v)) return equalBound(v);
      if (v.t === "vertex") return structBound(op, v.v, x);
      return boundIncomplete(op, v, x);
    default: {
      if (!isAtom(v)) {
        if (v.t === "vertex") return structBound(op, v.v, x);
        return boundIncomplete(op, v, x);
      }
      const b = { op: op as BoundOp, v };
      // Bools and null have no order: cue refuses them as the operand of an ordering bound.
      if ((op === "<" || op === "<=" || op === ">" || op === ">=") && (v.t === "bool" || v.t === "null")) {
        return bottom("eval", `cannot use ${typeName(v)} for bound ${op}`, [x.expr.pos]);
      }
      if ((op === "=~" || op === "!~") && v.t !== "string") break;
      if (
        op !== "!=" &&
        op !== "=~" &&
        op !== "!~" &&
        v.t !== "int" &&
        v.t !== "float" &&
        v.t !== "string" &&
        v.t !== "bytes"
      ) {
        break;
      }
      return { t: "basic", k: boundKind(b), bounds: [b], validators: [] };
    }
  }
  if (!isConcrete(v)) {
    if (op === "+" || op === "-" || op === "!") {
      const msg = `operand ${exprText(x.expr)} of '${op}' not concrete (was ${typeName(v)})`;
      return bottom("incomplete", msg, [x.expr.pos]);
    }
    return incomplete(op, v, x.expr);
  }
  return bottom("eval", `invalid operation ${op}${formatValue(v)} (${op} ${typeName(v)})`, [x.pos]);
}

function arith(op: "+" | "-" | "*" | "/", a: Value, b: Value, x: ast.Binary): Value {
  if (op === "+" && a.t === "string" && b.t === "string") return { t: "string", v: a.v + b.v };
  if (op === "+" && a.t === "bytes" && b.t === "bytes") {
    const out = new Uint8Array(a.v.length + b.v.length);
    out.set(a.v);
    out.set(b.v, a.v.length);
    return { t: "bytes", v: out };
  }
  if (op === "*" && (a.t === "string" || a.t === "bytes") && b.t === "int") return repeat(a, b.v, x);
  if (op === "*" && (b.t === "string" || b.t === "bytes") && a.t === "int") return repeat(b, a.v, x);
  if (a.t === "int" && b.t === "int") {
    switch (op) {
      case "+":
        return { t: "int", v: a.v + b.v };
      case "-":
        return { t: "int", v: a.v - b.v };
      case "*":
        return { t: "int", v: a.v * b.v };
      case "/":
        if (b.v === 0n) return divZero(a, x);
        return decimalOp("/", a, b) ?? float(Number(a.v) / Number(b.v));
    }
  }
  const x1 = num(a);
  const y1 = num(b);
  if (x1 !== undefined && y1 !== undefined) {
    if (
      (op === "+" || op === "-" || op === "*" || op === "/") &&
      (a.t === "int" || a.t === "float") &&
      (b.t === "int" || b.t === "float")
    ) {
      const d = decimalOp(op, a, b);
      if (d !== undefined) return d;
    }
    switch (op) {
      case "+":
        return float(x1 + y1);
      case "-":
        return float(x1 - y1);
      case "*":
        return float(x1 * y1);
      case "/":
        if (y1 === 0) return divZero(a, x);
        return float(x1 / y1);
    }
  }
  // List arithmetic left the language in v0.11; cue names the builtin that replaces it, at the
  // expression.
  const ta = typeName(a);
  const tb = typeName(b);
  if (op === "+" && ta === "list" && tb === "list") {
    return bottom("eval", `Addition of lists is superseded by list.Concat; see ${LIST_ARITHMETIC}`, [
      x.left.pos,
    ]);
  }
  if (op === "*" && ((ta === "list" && tb === "int") || (ta === "int" && tb === "list"))) {
    return bottom("eval", `Multiplication of lists is superseded by list.Repeat; see ${LIST_ARITHMETIC}`, [
      x.left.pos,
    ]);
  }
  return bottom(
    "eval",
    `invalid operands ${formatValue(a)} and ${formatValue(b)} to '${op}' (type ${ta} and ${tb})`,
    [x.left.pos, x.right.pos],
  );
}

const LIST_ARITHMETIC = "https://cuelang.org/e/v0.11-list-arithmetic";

function divZero(a: Value, x: ast.Binary): Value {
  const zero = (a.t === "int" && a.v === 0n) || (a.t === "float" && a.v === 0);
  return bottom("eval", `failed arithmetic: division ${zero ? "undefined" : "by zero"}`, [x.pos]);
}

function repeat(s: Value, n: bigint, x: ast.Binary): Value {
  if (n < 0n || n > 10_000_000n) return bottom("eval", `invalid repeat count ${n}`, [x.pos]);
  if (s.t === "string") return { t: "string", v: s.v.repeat(Number(n)) };
  if (s.t === "bytes") {
    const out = new Uint8Array(s.v.length * Number(n));
    for (let i = 0; i < Number(n); i++) out.set(s.v, i * s.v.length);
    return { t: "bytes", v: out };
  }
  return bottom("eval", "invalid repeat", [x.pos]);
}

/** Structural equality for `==` on lists and structs. */
function deepEqual(a: Value, b: Value, op: "==" | "!=" = "=="): boolean | Value {
  if (isAtom(a) && isAtom(b)) {
    if (a.t !== b.t && !((a.t === "int" || a.t === "float") && (b.t === "int" || b.t === "float")))
      return false;
    return atomsEqual(a, b);
  }
  if (a.t === "vertex" && b.t === "vertex") return vertexEqual(a.v, b.v, op);
  return false;
}

/** A struct or list operand of `==` must be concrete all the way down. */
function concreteOperand(v: Vertex, side: string, op: string): Value | undefined {
  const errs: CueError[] = [];
  exportTree(v, [], errs);
  const e = errs[0];
  if (e === undefined) return undefined;
  const where = e.path.length > 0 ? `${e.path.join(".")}: ` : "";
  return bottom(
    e.code === "incomplete" ? "incomplete" : "eval",
    `invalid ${side} value to '${op}' (type ${v.isList ? "list" : "struct"}): ${where}${e.message}`,
  );
}

function vertexEqual(a: Vertex, b: Vertex, op: "==" | "!="): boolean | Value {
  evaluate(a);
  evaluate(b);
  const ea = concreteOperand(a, "left-hand", op);
  if (ea !== undefined) return ea;
  const eb = concreteOperand(b, "right-hand", op);
  if (eb !== undefined) return eb;
  if (a.isList !== b.isList) return false;
  if (a.isList && a.listLen !== b.listLen) return false;
  const la = [...(a.arcs ?? new Map<string, Vertex>())].filter(
    ([k, x]) => x.fieldType === 0 && !k.startsWith("_") && !k.startsWith("#"),
  );
  const lb = [...(b.arcs ?? new Map<string, Vertex>())].filter(
    ([k, x]) => x.fieldType === 0 && !k.startsWith("_") && !k.startsWith("#"),
  );
  if (la.length !== lb.length) return false;
  const mb = new Map(lb);
  for (const [k, x] of la) {
    const y = mb.get(k);
    if (y === undefined) return false;
    const r = deepEqual(resolveDefaultValue(vertexValueLazy(x)), resolveDefaultValue(vertexValueLazy(y)), op);
    if (r !== true) return r;
  }
  return true;
}

import { decimalOp } from "./decimal.js";
import { equalVertex } from "./equal.js";
import type { CueError } from "./errors.js";
import { vertexValue as vertexValueLazy } from "./evaluate.js";
import { exportTree } from "./export.js";
import { exprText } from "./print-expr.js";

/** Binary operators other than `&` and `|`. */
export function binaryOp(op: ast.BinaryOp, ra: Value, rb: Value, x: ast.Binary): Value {
  const a = resolveDefaultValue(ra);
  const b = resolveDefaultValue(rb);
  if (a.t === "bottom") return a;
  if (b.t === "bottom") return b;
  const ca = isConcrete(a);
  const cb = isConcrete(b);
  if (!ca || !cb) {
    if (a.t === "func" || b.t === "func") {
      return bottom("eval", `invalid operand to '${op}': cannot use function`, [x.pos]);
    }
    return !ca ? incomplete(op, a, x.left) : incomplete(op, b, x.right);
  }
  switch (op) {
    case "+":
    case "-":
    case "*":
    case "/":
      return arith(op, a, b, x);
    case "==":
    case "!=": {
      if (a.t === "vertex" || b.t === "vertex") {
        if (a.t !== b.t) return op === "==" ? FALSE : TRUE;
        const r = deepEqual(a, b, op);
        if (typeof r !== "boolean") return r;
        return (op === "==") === r ? TRUE : FALSE;
      }
      const eq = deepEqual(a, b, op);
      if (typeof eq !== "boolean") return eq;
      return (op === "==") === eq ? TRUE : FALSE;
    }
    case "<":
    case "<=":
    case ">":
    case ">=": {
      const c = compareAtoms(a, b);
      if (c === undefined) {
        return bottom(
          "eval",
          `invalid operands ${formatValue(a)} and ${formatValue(b)} to '${op}' (type ${typeName(a)} and ${typeName(b)})`,
          [x.left.pos, x.right.pos],
        );
      }
      const r = op === "<" ? c < 0 : op === "<=" ? c <= 0 : op === ">" ? c > 0 : c >= 0;
      return r ? TRUE : FALSE;
    }
    case "=~":
    case "!~": {
      if (b.t !== "string") {
        return bottom("eval", `cannot use ${formatValue(b)} (type ${typeName(b)}) as type string`, [
          x.right.pos,
        ]);
      }
      if (a.t !== "string" && a.t !== "bytes") {
        return bottom("eval", `cannot use ${formatValue(a)} (type ${typeName(a)}) as type string`, [
          x.left.pos,
        ]);
      }
      const s = a.t === "string" ? a.v : Buffer.from(a.v).toString("latin1");
      const m = matchRegexp(b.v, s);
      if (typeof m !== "boolean") return m;
      return (op === "=~") === m ? TRUE : FALSE;
    }
    case "&&":
    case "||": {
      if (a.t !== "bool" || b.t !== "bool") {
        return bottom(
          "eval",
          `invalid operands ${formatValue(a)} and ${formatValue(b)} to '${op}' (type ${typeName(a)} and ${typeName(b)})`,
          [x.left.pos, x.right.pos],
        );
      }
      return (op === "&&" ? a.v && b.v : a.v || b.v) ? TRUE : FALSE;
    }
    case "&":
    case "|":
      return bottom("eval", `unexpected operator ${op}`, [x.pos]);
    default: {
      const never: never = op;
      return never;
    }
  }
}
