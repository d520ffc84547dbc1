/**
 * Evaluating expressions to values (operands of operators, builtin arguments, labels, conditions),
 * and resolving references (identifiers, selectors, index expressions) to vertices.
 */

import type * as ast from "../syntax/ast.js";
import { makeList } from "./builtins/make.js";
import { bareValidatorFunc, callBuiltin, lookupPackageMember, predeclared } from "./builtins/registry.js";
import { addConjunct, fieldsCollected, postfixWithoutExperiment } from "./collect.js";
import { resolveDefaultValue } from "./defaults.js";
import { engine, step } from "./engine.js";
import { evaluate, firstError, refresh, retryAfter, vertexValue } from "./evaluate.js";
import { isExplicitOpen, selfVertex, usesTesting } from "./experiments.js";
import { allows } from "./inspect.js";
import { LIST, STRUCT } from "./kinds.js";
import { meet } from "./meet.js";
import { binaryOp, unaryOp, unresolved } from "./ops.js";
import { mayStillAdd } from "./pending-fields.js";
import { exprText } from "./print-expr.js";
import { resolveName } from "./scope.js";
import { validUtf8 } from "./valid-utf8.js";
import { bottom, formatValue, isAtom, literalAtom, typeName, type Value } from "./values.js";
import {
  CloseCtx,
  COLLECTING,
  displayLabel,
  EVALUATED,
  type Frame,
  NO_CLOSE,
  OPTIONAL,
  REGULAR,
  REQUIRED,
  soleDefault,
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

/**
 * A name for a field whose disjunction is being resolved, used inside one of its disjuncts
 * (`x: {b: 2, c: x.b} | {b: 3}`): it denotes that disjunct, as in cue.
 */
function inDisjunct(r: ReturnType<typeof resolveName>, env: Frame): ReturnType<typeof resolveName> {
  if (r === undefined || r.t !== "vertex" || r.v.status !== COLLECTING) return r;
  const target = r.v;
  for (let f: Frame | undefined = env; f !== undefined; f = f.up) {
    for (let a: Vertex | undefined = f.vertex; a !== undefined; a = a.parent) {
      if (a === target) return r;
      if (a.cloneOf === target) return { t: "vertex", v: a };
    }
  }
  // A term written beside the field (`x: #A | #B, x: *d[x.kind] | _`) sits in the enclosing
  // struct's scope; while one of the field's disjuncts is evaluated, the field denotes it there too.
  for (let i = disjunctsInProgress.length - 1; i >= 0; i--) {
    const w = disjunctsInProgress[i] as Vertex;
    if (w.cloneOf === target) return { t: "vertex", v: w };
  }
  return r;
}

/** The disjunct clones being evaluated (disjunction.ts, cloneResolve), innermost last. */
export const disjunctsInProgress: Vertex[] = [];

/** The vertex a struct/list-valued operand denotes, choosing defaults of disjunctions. */
function baseVertex(x: ast.Expr, env: Frame): RefResult {
  const r =
    x.kind === "Ident" || x.kind === "Selector" || x.kind === "Index" ? resolveRef(x, env) : undefined;
  if (r !== undefined && r.t === "value") return r;
  if (r !== undefined) {
    const v = r.v.isLet ? (letAncestor(r.v) ?? r.v) : r.v;
    ready(v);
    if (v.status === COLLECTING) {
      engine().cycles++;
      return { t: "vertex", v };
    }
    evaluate(v);
    if (v.err !== undefined) return { t: "value", v: v.err };
    if (v.disj !== undefined) {
      // The default a scalar embedded beside definitions (`*{"d", #m: 1} | "e"`): its fields
      // are selected from it, not from the scalar alone.
      const d = soleDefault(v.disj);
      if (d !== undefined) evaluate(d);
      if (d !== undefined && d.err === undefined && !d.isList && d.structMark === 0 && d.arcs !== undefined)
        return { t: "vertex", v: d };
      return { t: "value", v: vertexValue(v) };
    }
    if (!v.isList && v.structMark === 0 && v.arcs === undefined) return { t: "value", v: vertexValue(v) };
    return { t: "vertex", v };
  }
  const val = evalExpr(x, env);
  if (val.t === "vertex") return { t: "vertex", v: val.v };
  return { t: "value", v: val };
}

/**
 * The enclosing struct a let names by its alias (`X={let this = X, for h, _ in this.hosts {…}}`),
 * or embeds alone (`p: {let P = {p}, P.x}`): cue selects from it there, where the let's whole
 * value is a structural cycle.
 */
function letAncestor(v: Vertex): Vertex | undefined {
  if (v.label === "" || v.conjuncts.length !== 1) return undefined;
  const c = v.conjuncts[0];
  let e = c?.expr;
  // `let P = {p}`: a struct that only embeds the name is that name.
  while (e?.kind === "Struct" && e.decls.length === 1 && e.decls[0]?.kind === "Embed") e = e.decls[0].expr;
  if (c === undefined || e?.kind !== "Ident" || e.name === v.label) return undefined;
  const r = resolveName(e.name, c.env);
  if (r?.t !== "vertex" || r.v.isLet) return undefined;
  for (let a = v.parent; a !== undefined; a = a.parent) if (a === r.v) return a;
  return undefined;
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
      const r = x.name === "__self" ? undefined : inDisjunct(resolveName(x.name, env), env);
      if (r === undefined) {
        if (x.name === "self" || x.name === "__self") {
          const sv = selfVertex(env);
          if (sv !== undefined) return { t: "vertex", v: sv };
        }
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
        if (vv.t === "top") {
          const base = exprText(x.expr);
          return {
            t: "value",
            v: bottom("incomplete", `${base}.${sel} undefined as ${base} is incomplete`, [x.pos]),
          };
        }
        if (vv.t === "disj") return { t: "value", v: unresolved(vv, x.expr) };
        if (vv.t === "basic") {
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
      // A struct written in place (`({x: 1} & {x: 2}).y`) is evaluated whole: an error in any of
      // its fields makes the struct, and what is selected from it, an error.
      if (!isReference(x.expr)) {
        const e = firstError(b.v);
        if (e !== undefined) return { t: "value", v: e };
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
          if (b.v.t === "top") {
            const base = exprText(x.expr);
            const msg = `${base}[${exprText(x.index)}] undefined as ${base} is incomplete`;
            return { t: "value", v: bottom("incomplete", msg, [x.pos]) };
          }
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
  if (iv.t === "top" && v.isList) {
    const msg = `invalid index ${exprText(x.index)} (invalid type _)`;
    return { t: "value", v: bottom("eval", msg, [x.index.pos]) };
  }
  if (iv.t === "disj") return { t: "value", v: unresolved(iv, x.index) };
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
      // A literal index is named by its value, a computed one by its expression (as cue does).
      const lit = x.index.kind === "Int" || (x.index.kind === "Unary" && x.index.expr.kind === "Int");
      const msg = lit
        ? `invalid index ${iv.v} (index must be non-negative)`
        : `index ${exprText(x.index)} out of range [${iv.v}]`;
      return { t: "value", v: bottom("eval", msg, [x.index.pos]) };
    }
    if (i >= v.listLen) {
      // An open list may still grow: then the element is only absent so far.
      const b = bottom(
        v.listOpen ? "incomplete" : "eval",
        `index out of range [${iv.v}] with length ${v.listLen}`,
        [x.index.pos],
      );
      if (v.listOpen) b.err.absent = true;
      return { t: "value", v: b };
    }
    return selectArc(v, String(i), x);
  }
  if (iv.t !== "string") {
    return {
      t: "value",
      // A struct still being collected (`self` inside it) may turn out to be a list.
      v: bottom(
        v.status === COLLECTING ? "incomplete" : "eval",
        `invalid index ${formatValue(iv)} (found struct, want list)`,
        [x.index.pos],
      ),
    };
  }
  return selectArc(v, strLabel(iv.v), x);
}

/**
 * The struct whose comprehension condition is being evaluated. Its static fields are all known, so
 * a label it lacks is absent so far (the condition is checked again once the struct is complete);
 * another struct still collecting may yet gain it.
 */
export const conditionOwner: { v: Vertex | undefined; nesting: number } = { v: undefined, nesting: -1 };

function selectArc(v: Vertex, sel: string, x: ast.Expr): RefResult {
  const a = v.arcs?.get(sel);
  if (a === undefined || a.notAllowed) {
    const own = a === undefined && v === conditionOwner.v && engine().nesting === conditionOwner.nesting;
    if (v.status === COLLECTING && !(own && fieldsCollected.has(v))) {
      engine().cycles++;
      // Read while a condition is evaluated, a field this struct's running comprehensions may
      // still add: the condition depends on them (a cycle). One none of them can add is absent.
      const known = a === undefined && conditionOwner.v !== undefined && fieldsCollected.has(v);
      if (!known && a === undefined && callPending(v, own)) {
        // A condition testing a field of a builtin's result while that call waits on this very
        // condition (`if #m.port != _|_` with `#m: regexp.FindNamedSubmatch(re, #x.port)` and #x
        // the struct being decided): cue cannot decide it either, in any order.
        const b = bottom("cycle", `cycle with field: ${displayLabel(sel)}`, [x.pos]);
        b.err.cycleAt = v;
        return { t: "value", v: b };
      }
      if (!known) return { t: "vertex", v: v.arc(sel) };
      if (mayStillAdd(v, sel)) {
        const b = bottom("cycle", `cycle with field: ${displayLabel(sel)}`, [x.pos]);
        b.err.cycleAt = v;
        return { t: "value", v: b };
      }
    }
    if (v.isList) {
      return { t: "value", v: bottom("eval", `invalid selector ${sel} for list`, [x.pos]) };
    }
    // A label the struct could still gain (open, or matched by a pattern) is only incomplete.
    const closed = !allows(v, { kind: "label", name: sel });
    const b = bottom(closed ? "eval" : "incomplete", `undefined field: ${displayLabel(sel)}`, [x.pos]);
    if (!closed) b.err.absent = true;
    return { t: "value", v: b };
  }
  return optionalRef(a, x) ?? { t: "vertex", v: a };
}

/** Whether a comprehension condition reads `v`, a builtin call's result still being computed. */
function callPending(v: Vertex, own: boolean): boolean {
  if (own || conditionOwner.v === undefined || engine().nesting !== conditionOwner.nesting) return false;
  return callsOnly(v);
}

/**
 * `b.foo` tested against `_|_` by a condition of `owner`, where `b`'s own conditions read a field
 * `owner`'s comprehensions may still add (a cycle back to `owner`): a field `b` declares with a
 * value is there whatever `b`'s comprehensions decide, so the test does not depend on them (cue
 * resolves such one-directional dependencies in any order). `b` is evaluated again once `owner`
 * is done. Undefined when the test cannot be decided so.
 */
function declaredDespiteCycle(e: ast.Expr, env: Frame, owner: Vertex): boolean | undefined {
  if (e.kind !== "Selector" || e.sel.kind !== "Ident") return undefined;
  if (e.expr.kind !== "Ident" && e.expr.kind !== "Selector") return undefined;
  const base = resolveRef(e.expr, env);
  if (base.t !== "vertex") return undefined;
  const b = base.v;
  const err = b.err?.err;
  if (b.status !== EVALUATED || err?.code !== "cycle" || err.cycleAt !== owner) return undefined;
  const a = b.arcs?.get(e.sel.name);
  if (a === undefined || a.fieldType !== REGULAR || a.conjuncts.length === 0) return undefined;
  const val = vertexValue(a);
  if (val.t === "bottom") return undefined;
  retryAfter(b, owner);
  return true;
}

/** Whether every conjunct of `v` is a call (its fields come from a builtin's result). */
export function callsOnly(v: Vertex): boolean {
  if (v.conjuncts.length === 0) return false;
  for (const c of v.conjuncts) if (c.expr?.kind !== "Call") return false;
  return true;
}

/** A reference to an optional field that is not set is an (incomplete) error, as in cue. */
function optionalRef(a: Vertex, x: ast.Expr): RefResult | undefined {
  if (a.fieldType === REGULAR || a.isLet || a.conjuncts.length === 0) return undefined;
  // A definition is only "missing" when required (`#D!: …`); `#d?: x` stays a reference to x.
  if (a.fieldType !== REQUIRED && a.label.startsWith("#")) return undefined;
  if (a.parent !== undefined && a.parent.status === COLLECTING && !fieldsCollected.has(a.parent))
    return undefined;
  if (a.fieldType === REQUIRED) {
    // A required field no regular field has given yet is not a value (cue: "required field
    // missing", at the name that refers to it).
    const at = x.kind === "Selector" ? x.sel.pos : x.kind === "Index" ? x.index.pos : x.pos;
    return { t: "value", v: bottom("incomplete", `required field missing: ${displayLabel(a.label)}`, [at]) };
  }
  const b = bottom("incomplete", `cannot reference optional field: ${displayLabel(a.label)}`, [x.pos]);
  b.err.absent = true;
  return { t: "value", v: b };
}

/** Evaluates an expression to a value in `env`. */
export function evalExpr(x: ast.Expr, env: Frame): Value {
  const lim = step();
  if (lim !== undefined) return lim;
  switch (x.kind) {
    case "Int":
    case "Float":
    case "String":
    case "Bytes":
    case "Bool":
    case "Null":
      return literalAtom(x);
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
        const val = evalExpr(other, env);
        // A field that a struct's running comprehensions may still add cannot be tested yet:
        // the test is part of the cycle.
        const at = val.t === "bottom" && val.err.code === "cycle" ? val.err.cycleAt : undefined;
        if (at !== undefined && (fieldsCollected.has(at) || (at.status === COLLECTING && callsOnly(at)))) {
          const has = at === conditionOwner.v ? declaredDespiteCycle(other, env, at) : undefined;
          if (has === undefined) return val;
          return { t: "bool", v: (x.op === "==") !== has };
        }
        const isErr = isBottom(val);
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
    case "Postfix":
      if (x.op === "?") return optionalReference(x, env);
      if (!isExplicitOpen(env)) return postfixWithoutExperiment(x);
      return anonymous(env, [{ expr: x, env, ctx: NO_CLOSE, value: undefined, pos: x.pos, embed: false }]);
    case "BadExpr":
      return bottom("syntax", "invalid expression", [x.pos]);
    default: {
      const never: never = x;
      return never;
    }
  }
}

/** Whether a value is an error for `x == _|_`: bottom, or a struct with a permanent error inside. */
/**
 * `x?` (the try experiment): x, or an absence marker when x does not exist, which makes the
 * enclosing try produce nothing. Only valid inside a try clause.
 */
function optionalReference(x: ast.Postfix, env: Frame): Value {
  let inTry = false;
  for (let f: Frame | undefined = env; f !== undefined && !inTry; f = f.up) inTry = f.tryScope === true;
  if (!inTry) return bottom("eval", "optional marker (?) is only valid within a try clause", [x.pos]);
  const inner = x.expr;
  if (inner.kind === "Ident" || inner.kind === "Selector" || inner.kind === "Index") {
    const r = resolveRef(inner, env);
    if (r.t === "vertex" && r.v.fieldType === REQUIRED) {
      return bottom("incomplete", `required field missing: ${displayLabel(r.v.label)}`, [x.pos]);
    }
    // An optional field that is not set is absent, even while its struct is being collected.
    if (r.t === "vertex" && r.v.fieldType === OPTIONAL && !r.v.isLet && !r.v.label.startsWith("#")) {
      return absentMarker(x);
    }
    const v = r.t === "value" ? r.v : vertexValue(r.v);
    if (v.t === "bottom" && v.err.absent === true) return absentMarker(x);
    return v;
  }
  const v = evalExpr(inner, env);
  if (v.t === "bottom" && v.err.absent === true) return absentMarker(x);
  return v;
}

function absentMarker(x: ast.Postfix): Value {
  const b = bottom("incomplete", `${exprText(x.expr)} is absent`, [x.pos]);
  b.err.absent = true;
  b.err.tryAbsent = true;
  return b;
}

function isReference(e: ast.Expr): boolean {
  return e.kind === "Ident" || e.kind === "Selector" || e.kind === "Index";
}

function isBottom(v0: Value): boolean {
  const v = resolveDefaultValue(v0);
  if (v.t === "bottom") return true;
  // As cue's validate: a scalar that is not concrete (`string`, `>0`, a disjunction of scalars
  // without a default) compares as `_|_` too; what may be a struct or list (`_` included) is
  // checked for errors inside.
  if (v.t === "basic" && (v.k & (LIST | STRUCT)) === 0) return true;
  if (
    v.t === "disj" &&
    v.values.every(
      (x) => x.t !== "vertex" && x.t !== "top" && (x.t !== "basic" || (x.k & (LIST | STRUCT)) === 0),
    )
  )
    return true;
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
      case "error": {
        // A failing part of the message is shown as what it is (or as written), so that the
        // custom error survives its own interpolation (`error("bad: \(x.missing)")`).
        const a = x.args[0];
        if (a?.kind === "Interpolation" && x.args.length === 1) {
          const b = bottom("user", errorMessage(a, env), [x.pos]);
          b.err.custom = true;
          return b;
        }
        break;
      }
      case "__test_experiment": {
        // cue's predeclared check of a file's `@experiment(testing)`.
        const a = x.args[0];
        if (a === undefined || x.args.length !== 1)
          return bottom("eval", "__test_experiment takes 1 argument", [x.pos]);
        if (usesTesting(env)) return evalExpr(a, env);
        return bottom("eval", "error in call to testExperiment: testing experiment disabled", [x.pos]);
      }
      case "__closeAll":
      case "__reclose":
        return anonymous(env, [{ expr: x, env, ctx: NO_CLOSE, value: undefined, pos: x.pos, embed: false }]);
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
  // A field holding a bare builtin validator (`a: json.Valid`) is that builtin: `a("3")` calls it.
  const bare = bareValidatorFunc(fn);
  if (bare !== undefined)
    return callBuiltin(
      bare,
      x.args.map((a) => evalExpr(a, env)),
      x,
    );
  if (fn.t === "basic" && fn.k === 255 && fn.bounds.length === 0 && fn.validators.length > 0) {
    return bottom("eval", `cannot call previously called validator ${exprText(fnExpr)}`, [x.fn.pos]);
  }
  if (fn.t === "top" || fn.t === "basic") {
    const name = fnExpr.kind === "Ident" ? fnExpr.name : formatValue(fn);
    return bottom("incomplete", `cannot call non-concrete value ${name} (type ${typeName(fn)})`, [x.fn.pos]);
  }
  if (fn.t !== "func") {
    return bottom("eval", `cannot call non-function ${formatValue(fn)} (type ${typeName(fn)})`, [x.fn.pos]);
  }
  const args = x.args.map((a) => evalExpr(a, env));
  // cue's `or` reads the elements of its list itself: an error inside a list literal (a
  // comprehension over a missing field) surfaces from the call (`error in call to or: …`).
  if (fn.name === "or" && x.args[0]?.kind === "List" && args[0]?.t === "bottom") {
    const e = args[0].err;
    const b = bottom(e.code, `error in call to or: ${e.message}`, [x.pos, ...e.positions]);
    b.err.sub = e.sub;
    return b;
  }
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
    const text = interpolationText(v, x.bytes);
    if (typeof text === "string") {
      out += text;
      continue;
    }
    if (v.t === "bottom") {
      const e = v.err;
      if ((e.code !== "incomplete" && e.code !== "eval") || e.message.startsWith("invalid interpolation"))
        return v;
      return bottom(e.code, `invalid interpolation: ${e.message}`, e.positions);
    }
    if (v.t === "null" || v.t === "vertex" || v.t === "func") {
      return bottom(
        "eval",
        `invalid interpolation: cannot use ${formatValue(v)} (type ${typeName(v)}) as type (bool|string|bytes|number)`,
        [p.pos],
      );
    }
    return bottom(
      "incomplete",
      `invalid interpolation: non-concrete value ${formatValue(v)} (type ${typeName(v)})`,
      [p.pos],
    );
  }
  if (x.bytes) return { t: "bytes", v: Uint8Array.from(Buffer.from(out, "latin1")) };
  return { t: "string", v: out };
}

/** The text of an `error("…")` message; parts that cannot be interpolated read as they are. */
function errorMessage(x: ast.Interpolation, env: Frame): string {
  let out = "";
  for (const p of x.parts) {
    if (typeof p === "string") {
      out += p;
      continue;
    }
    const v = resolveDefaultValue(evalExpr(p, env));
    const text = interpolationText(v, false);
    if (text !== undefined) out += text;
    else if (v.t === "bottom") out += p.kind === "Binary" ? `(${exprText(p)})` : exprText(p);
    else if (v.t === "vertex") {
      evaluate(v.v);
      if (v.v.arcs !== undefined) for (const arc of v.v.arcs.values()) evaluate(arc);
      out += v.v.shortText();
    } else out += formatValue(v);
  }
  return out;
}

/** How a concrete scalar reads inside `"\(…)"`, or undefined when it cannot be interpolated. */
function interpolationText(v: Value, bytes: boolean): string | undefined {
  switch (v.t) {
    case "string":
      return v.v;
    case "int":
      return String(v.v);
    case "float":
      return v.text !== undefined ? decimalText(v.text) : formatValue(v);
    case "bool":
      return String(v.v);
    case "bytes":
      return bytes ? Buffer.from(v.v).toString("latin1") : validUtf8(v.v);
    default:
      return undefined;
  }
}

/**
 * A float literal the way cue's decimals print: plain notation unless the exponent is positive or
 * the number is very small (`1e2` → `1E+2`, `1.50` → `1.50`, `1e-7` → `1E-7`).
 */
function decimalText(lit: string): string {
  const m = /^([+-]?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/.exec(lit.replace(/_/g, ""));
  if (m === null) return lit;
  const [, sign = "", int = "", frac = "", e = "0"] = m;
  let coeff = (int + frac).replace(/^0+(?=\d)/, "");
  if (coeff === "") coeff = "0";
  const exp = Number(e) - frac.length;
  const adj = exp + coeff.length - 1;
  if (exp <= 0 && adj >= -6) {
    const point = coeff.length + exp;
    const body =
      point > 0
        ? `${coeff.slice(0, point)}${exp < 0 ? `.${coeff.slice(point)}` : ""}`
        : `0.${"0".repeat(-point)}${coeff}`;
    return sign === "-" ? `-${body}` : body;
  }
  const mant = coeff.length > 1 ? `${coeff[0]}.${coeff.slice(1)}` : coeff;
  return `${sign === "-" ? "-" : ""}${mant}E${adj >= 0 ? "+" : ""}${adj}`;
}

export { addConjunct };
