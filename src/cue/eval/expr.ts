/**
 * Evaluating expressions to values (operands of operators, builtin arguments, labels, conditions),
 * and resolving references (identifiers, selectors, index expressions) to vertices.
 */

import type * as ast from "../syntax/ast.js";
import { makeList } from "./builtins/make.js";
import { callBuiltin, lookupPackageMember, predeclared } from "./builtins/registry.js";
import { closedByContext } from "./closedness.js";
import { addConjunct, inDefinition } from "./collect.js";
import { resolveDefaultValue } from "./defaults.js";
import { engine, step } from "./engine.js";
import { evaluate, firstError, refresh, vertexValue } from "./evaluate.js";
import { meet } from "./meet.js";
import { binaryOp, unaryOp } from "./ops.js";
import { resolveName } from "./scope.js";
import { bottom, formatValue, isAtom, typeName, type Value } from "./values.js";
import {
  CloseCtx,
  COLLECTING,
  displayLabel,
  EVALUATED,
  type Frame,
  NO_CLOSE,
  OPTIONAL,
  strLabel,
  Vertex,
} from "./vertex.js";

export type RefResult =
  | { readonly t: "vertex"; readonly v: Vertex }
  | { readonly t: "value"; readonly v: Value };

function ready(v: Vertex): void {
  const p = v.parent;
  if (p !== undefined && !v.isLet) {
    if (p.status !== COLLECTING) evaluate(p);
    else engine().cycles++;
  }
  if (v.lateConjuncts && v.status === EVALUATED) refresh(v);
}

/** The vertex a struct/list-valued operand denotes, choosing defaults of disjunctions. */
function baseVertex(x: ast.Expr, env: Frame): RefResult {
  const r =
    x.kind === "Ident" || x.kind === "Selector" || x.kind === "Index" ? resolveRef(x, env) : undefined;
  if (r !== undefined && r.t === "value") return r;
  if (r !== undefined) {
    const v = r.v;
    ready(v);
    if (v.status === COLLECTING) {
      engine().cycles++;
      return { t: "vertex", v };
    }
    evaluate(v);
    if (v.err !== undefined) return { t: "value", v: v.err };
    if (v.disj !== undefined) return { t: "value", v: vertexValue(v) };
    if (!v.isList && v.structMark === 0 && v.arcs === undefined) return { t: "value", v: vertexValue(v) };
    return { t: "vertex", v };
  }
  const val = evalExpr(x, env);
  if (val.t === "vertex") return { t: "vertex", v: val.v };
  return { t: "value", v: val };
}

function pickVertex(val: Value): Vertex | undefined {
  const d = resolveDefaultValue(val);
  return d.t === "vertex" ? d.v : undefined;
}

/** Resolves a reference expression to a vertex (fields) or a value (builtins, bindings, errors). */
export function resolveRef(x: ast.Ident | ast.Selector | ast.Index, env: Frame): RefResult {
  switch (x.kind) {
    case "Ident": {
      if (x.name === "_") return { t: "value", v: { t: "top" } };
      const r = resolveName(x.name, env);
      if (r === undefined) {
        const p = predeclared(x.name);
        if (p !== undefined) return { t: "value", v: p };
        return { t: "value", v: bottom("eval", `reference "${x.name}" not found`, [x.pos]) };
      }
      if (r.t === "import") {
        return { t: "value", v: bottom("eval", `cannot use package ${x.name} as value`, [x.pos]) };
      }
      if (r.t === "vertex") {
        ready(r.v);
        const o = optionalRef(r.v, x);
        if (o !== undefined) return o;
      }
      return r;
    }
    case "Selector": {
      const sel = x.sel.kind === "Ident" ? x.sel.name : strLabel(x.sel.value);
      if (x.expr.kind === "Ident") {
        const r = resolveName(x.expr.name, env);
        if (r !== undefined && r.t === "import") {
          return { t: "value", v: lookupPackageMember(r.path, sel, x.sel.pos) };
        }
      }
      const b = baseVertex(x.expr, env);
      if (b.t === "value") {
        let vv = b.v;
        if (vv.t === "disj") {
          const pv = pickVertex(vv);
          if (pv !== undefined) return selectArc(pv, sel, x);
          vv = resolveDefaultValue(vv);
        }
        if (vv.t === "bottom") return b;
        if (vv.t === "top" || vv.t === "basic" || vv.t === "disj") {
          return {
            t: "value",
            v: bottom("incomplete", `${formatValue(vv)} is not a struct (selecting ${sel})`, [x.sel.pos]),
          };
        }
        return {
          t: "value",
          v: bottom(
            "eval",
            `invalid selector ${sel}: ${formatValue(vv)} (type ${typeName(vv)}) is not a struct`,
            [x.pos],
          ),
        };
      }
      return selectArc(b.v, sel, x);
    }
    case "Index": {
      const b = baseVertex(x.expr, env);
      const iv = resolveDefaultValue(evalExpr(x.index, env));
      if (iv.t === "bottom") return { t: "value", v: iv };
      if (b.t === "value") {
        const pv = pickVertex(b.v);
        if (pv === undefined) {
          if (b.v.t === "bottom") return b;
          if (!isAtom(b.v))
            return { t: "value", v: bottom("incomplete", `incomplete value ${formatValue(b.v)}`, [x.pos]) };
          return {
            t: "value",
            v: bottom(
              "eval",
              `invalid operand ${formatValue(b.v)} (found ${typeName(b.v)}, want list or struct)`,
              [x.pos],
            ),
          };
        }
        return indexVertex(pv, iv, x);
      }
      return indexVertex(b.v, iv, x);
    }
    default: {
      const never: never = x;
      return never;
    }
  }
}

function indexVertex(v: Vertex, iv: Value, x: ast.Index): RefResult {
  if (!isAtom(iv))
    return { t: "value", v: bottom("incomplete", `non-concrete index ${formatValue(iv)}`, [x.index.pos]) };
  if (v.isList) {
    if (iv.t === "string") {
      return { t: "value", v: bottom("eval", `undefined field: ${JSON.stringify(iv.v)}`, [x.index.pos]) };
    }
    if (iv.t !== "int") {
      return {
        t: "value",
        v: bottom("eval", `invalid index ${formatValue(iv)} (invalid type ${typeName(iv)})`, [x.index.pos]),
      };
    }
    const i = Number(iv.v);
    if (i < 0) {
      return {
        t: "value",
        v: bottom("eval", `invalid index ${iv.v} (index must be non-negative)`, [x.index.pos]),
      };
    }
    if (i >= v.listLen) {
      return {
        t: "value",
        v: bottom("eval", `index out of range [${iv.v}] with length ${v.listLen}`, [x.index.pos]),
      };
    }
    return selectArc(v, String(i), x);
  }
  if (iv.t !== "string") {
    return {
      t: "value",
      v: bottom("eval", `invalid index ${formatValue(iv)} (found struct, want list)`, [x.index.pos]),
    };
  }
  return selectArc(v, strLabel(iv.v), x);
}

function selectArc(v: Vertex, sel: string, x: ast.Expr): RefResult {
  const a = v.arcs?.get(sel);
  if (a === undefined || a.notAllowed) {
    if (v.status === COLLECTING) {
      engine().cycles++;
      return { t: "vertex", v: v.arc(sel) };
    }
    if (v.isList) {
      return { t: "value", v: bottom("eval", `invalid selector ${sel} for list`, [x.pos]) };
    }
    const closed = closedByContext(v) || ((v.borrowed || inDefinition(v)) && !v.hasEllipsis);
    return { t: "value", v: bottom(closed ? "eval" : "incomplete", `undefined field: ${sel}`, [x.pos]) };
  }
  return optionalRef(a, x) ?? { t: "vertex", v: a };
}

/** A reference to an optional field that is not set is an (incomplete) error, as in cue. */
function optionalRef(a: Vertex, x: ast.Expr): RefResult | undefined {
  if (a.fieldType !== OPTIONAL || a.isLet || a.conjuncts.length === 0 || a.label.startsWith("#"))
    return undefined;
  if (a.parent !== undefined && a.parent.status === COLLECTING) return undefined;
  return {
    t: "value",
    v: bottom("incomplete", `cannot reference optional field: ${displayLabel(a.label)}`, [x.pos]),
  };
}

/** Evaluates an expression to a value in `env`. */
export function evalExpr(x: ast.Expr, env: Frame): Value {
  const lim = step();
  if (lim !== undefined) return lim;
  switch (x.kind) {
    case "Int":
      return { t: "int", v: x.value };
    case "Float":
      return { t: "float", v: x.value, text: x.text };
    case "String":
      return { t: "string", v: x.value };
    case "Bytes":
      return { t: "bytes", v: x.value };
    case "Bool":
      return { t: "bool", v: x.value };
    case "Null":
      return { t: "null" };
    case "Bottom":
      return bottom("user", "explicit error (_|_ literal) in source", [x.pos]);
    case "Ident":
    case "Selector":
    case "Index": {
      const r = resolveRef(x, env);
      if (r.t === "value") return r.v;
      return vertexValue(r.v);
    }
    case "Struct":
    case "List":
      return anonymous(env, [{ expr: x, env, ctx: NO_CLOSE, value: undefined, pos: x.pos, embed: false }]);
    case "Paren":
      return evalExpr(x.expr, env);
    case "Alias":
      return evalExpr(x.expr, env);
    case "Unary": {
      if (x.op === "*") return evalExpr(x.expr, env);
      return unaryOp(x.op, evalExpr(x.expr, env), x);
    }
    case "Binary": {
      if (x.op === "&") {
        const a = evalExpr(x.left, env);
        const b = evalExpr(x.right, env);
        if (a.t === "vertex" || b.t === "vertex" || hasVertex(a) || hasVertex(b)) {
          return anonymous(env, [
            { expr: x.left, env, ctx: NO_CLOSE, value: undefined, pos: x.left.pos, embed: false },
            { expr: x.right, env, ctx: NO_CLOSE, value: undefined, pos: x.right.pos, embed: false },
          ]);
        }
        return meet(a, b, [x.left.pos, x.right.pos]);
      }
      if ((x.op === "==" || x.op === "!=") && (x.left.kind === "Bottom" || x.right.kind === "Bottom")) {
        const other = x.left.kind === "Bottom" ? x.right : x.left;
        const isErr = isBottom(evalExpr(other, env));
        return (x.op === "==") === isErr ? { t: "bool", v: true } : { t: "bool", v: false };
      }
      if (x.op === "|")
        return anonymous(env, [{ expr: x, env, ctx: NO_CLOSE, value: undefined, pos: x.pos, embed: false }]);
      return binaryOp(x.op, evalExpr(x.left, env), evalExpr(x.right, env), x);
    }
    case "Call":
      return evalCall(x, env);
    case "Interpolation":
      return interpolate(x, env);
    case "Slice":
      return evalSlice(x, env);
    case "BadExpr":
      return bottom("syntax", "invalid expression", [x.pos]);
    default: {
      const never: never = x;
      return never;
    }
  }
}

/** Whether a value is an error for `x == _|_`: bottom, or a struct with a permanent error inside. */
function isBottom(v: Value): boolean {
  if (v.t === "bottom") return true;
  if (v.t === "vertex") {
    const e = firstError(v.v);
    return e !== undefined;
  }
  return false;
}

function sliceIndex(e: ast.Expr | undefined, env: Frame, dflt: number, x: ast.Slice): number | Value {
  if (e === undefined) return dflt;
  const v = resolveDefaultValue(evalExpr(e, env));
  if (v.t === "bottom") return v;
  if (v.t === "int") {
    if (v.v < 0n) return bottom("eval", "cannot convert negative number to uint64", [x.pos]);
    return Number(v.v);
  }
  if (!isAtom(v)) return bottom("incomplete", `non-concrete slice index ${formatValue(v)}`, [x.pos]);
  return bottom("eval", `cannot use ${formatValue(v)} (type ${typeName(v)}) as type int in slice index`, [
    x.pos,
    e.pos,
  ]);
}

/** `x[lo:hi]` on lists, strings (by bytes) and bytes. */
function evalSlice(x: ast.Slice, env: Frame): Value {
  const subject = resolveDefaultValue(evalExpr(x.expr, env));
  if (subject.t === "bottom") return subject;
  let len: number;
  if (subject.t === "vertex" && subject.v.isList) len = subject.v.listLen;
  else if (subject.t === "string") len = Buffer.byteLength(subject.v, "utf8");
  else if (subject.t === "bytes") len = subject.v.length;
  else if (!isAtom(subject) && subject.t !== "vertex") {
    return bottom("incomplete", `non-concrete slice subject ${formatValue(subject)}`, [x.pos]);
  } else return bottom("eval", `cannot slice ${formatValue(subject)} (type ${typeName(subject)})`, [x.pos]);
  const lo = sliceIndex(x.low, env, 0, x);
  if (typeof lo !== "number") return lo;
  const hi = sliceIndex(x.high, env, len, x);
  if (typeof hi !== "number") return hi;
  if (lo > hi) return bottom("eval", `invalid slice index: ${lo} > ${hi}`, [x.pos]);
  if (hi > len) return bottom("eval", `index ${hi} out of range`, [x.pos]);
  if (lo > len) return bottom("eval", `index ${lo} out of range`, [x.pos]);
  if (subject.t === "string") {
    return { t: "string", v: Buffer.from(subject.v, "utf8").subarray(lo, hi).toString("utf8") };
  }
  if (subject.t === "bytes") return { t: "bytes", v: subject.v.slice(lo, hi) };
  const items: Value[] = [];
  for (let i = lo; i < hi; i++) {
    const a = (subject as { v: Vertex }).v.arcs?.get(String(i));
    if (a !== undefined) items.push({ t: "vertex", v: a });
  }
  return makeList(items);
}

function hasVertex(v: Value): boolean {
  return v.t === "disj" && v.values.some((x) => x.t === "vertex");
}

/** Evaluates conjuncts in a fresh vertex that is not part of the tree. */
export function anonymous(env: Frame, conjuncts: import("./vertex.js").Conjunct[]): Value {
  const w = new Vertex(env.vertex, "");
  w.isLet = true;
  w.fieldType = 0;
  w.conjuncts = conjuncts;
  return vertexValue(w);
}

function evalCall(x: ast.Call, env: Frame): Value {
  const fnExpr = x.fn;
  if (fnExpr.kind === "Ident" && resolveName(fnExpr.name, env) === undefined) {
    switch (fnExpr.name) {
      case "close": {
        const a = x.args[0];
        if (a === undefined || x.args.length !== 1) return bottom("eval", "close takes 1 argument", [x.pos]);
        return anonymous(env, [
          { expr: a, env, ctx: [new CloseCtx(false)], value: undefined, pos: a.pos, embed: false },
        ]);
      }
      case "and": {
        const a = x.args[0];
        if (a === undefined || x.args.length !== 1) return bottom("eval", "and takes 1 argument", [x.pos]);
        const lst = resolveDefaultValue(evalExpr(a, env));
        if (lst.t === "bottom") return lst;
        if (lst.t !== "vertex" || !lst.v.isList) {
          return bottom(
            "eval",
            `cannot use ${formatValue(lst)} (type ${typeName(lst)}) as list in argument 1 to and`,
            [a.pos],
          );
        }
        evaluate(lst.v);
        const conjs: import("./vertex.js").Conjunct[] = [];
        for (let i = 0; i < lst.v.listLen; i++) {
          const el = lst.v.arcs?.get(String(i));
          if (el !== undefined) {
            conjs.push({
              expr: undefined,
              env,
              ctx: NO_CLOSE,
              value: { t: "vertex", v: el },
              pos: a.pos,
              embed: false,
            });
          }
        }
        if (conjs.length === 0) return { t: "top" };
        return anonymous(env, conjs);
      }
      default:
        break;
    }
  }
  const fn = evalExpr(fnExpr, env);
  if (fn.t === "bottom") return fn;
  if (fn.t !== "func") {
    return bottom("eval", `cannot call non-function ${formatValue(fn)} (type ${typeName(fn)})`, [x.fn.pos]);
  }
  const args = x.args.map((a) => evalExpr(a, env));
  return callBuiltin(fn, args, x);
}

function interpolate(x: ast.Interpolation, env: Frame): Value {
  let out = "";
  for (const p of x.parts) {
    if (typeof p === "string") {
      out += p;
      continue;
    }
    const v = resolveDefaultValue(evalExpr(p, env));
    switch (v.t) {
      case "string":
        out += v.v;
        break;
      case "int":
        out += String(v.v);
        break;
      case "float":
        out += formatValue(v);
        break;
      case "bool":
        out += String(v.v);
        break;
      case "bytes":
        out += x.bytes ? Buffer.from(v.v).toString("latin1") : Buffer.from(v.v).toString("utf8");
        break;
      case "bottom":
        return v;
      case "null":
      case "vertex":
      case "func":
        return bottom(
          "eval",
          `invalid interpolation: cannot use ${formatValue(v)} (type ${typeName(v)}) as type string`,
          [p.pos],
        );
      default:
        return bottom(
          "incomplete",
          `invalid interpolation: non-concrete value ${formatValue(v)} (type ${typeName(v)})`,
          [p.pos],
        );
    }
  }
  if (x.bytes) return { t: "bytes", v: Uint8Array.from(Buffer.from(out, "latin1")) };
  return { t: "string", v: out };
}

export { addConjunct };
