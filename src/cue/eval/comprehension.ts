/**
 * Comprehensions (`for`, `if`, `let` clauses) and postponed dynamic fields: they run after a
 * vertex's static fields are collected, and add fields (or list elements) to it.
 */

import type * as ast from "../syntax/ast.js";
import { identLabel } from "../syntax/index.js";
import { predeclared } from "./builtins/registry.js";
import { addConjunct, addField, asComprehensionOutput, fieldsCollected, newArc, setErr } from "./collect.js";
import { resolveDefaultValue } from "./defaults.js";
import { engine } from "./engine.js";
import { evaluate } from "./evaluate.js";
import { conditionOwner, evalExpr, resolveRef } from "./expr.js";
import { conditionCycle, doneDeferred, runningDeferred } from "./pending-fields.js";
import { exprText } from "./print-expr.js";
import { bindFrame, lookupDecl, newFrame } from "./scope.js";
import { bottom, formatValue as fmt, isAtom, typeName as typeNameOf } from "./values.js";
import { displayLabel, NO_CLOSE, OPTIONAL, posArray, REGULAR, REQUIRED, strLabel, Vertex } from "./vertex.js";

/** Runs a comprehension's clauses, calling `yieldFn` with the environment of each result. */
export function runComprehension(
  v: Vertex,
  comp: ast.Comprehension,
  env: import("./vertex.js").Frame,
  yieldFn: (f: import("./vertex.js").Frame, body: ast.StructLit) => void,
  decided?: DecidedCondition[],
): void {
  const clauses = comp.clauses;
  const last = clauses[clauses.length - 1];
  const structTry = last?.kind === "Try" && last.expr === undefined;
  let produced = 0;
  let failed = false;
  const loop = (i: number, f: import("./vertex.js").Frame): void => {
    const cl = clauses[i];
    if (cl === undefined) {
      // `try { … }`: the body is produced only if none of its `x?` references is absent.
      if (structTry) {
        const tf = tryFrame(f);
        if (absentIn(v, comp.value, tf)) return;
        produced++;
        yieldFn(tf, comp.value);
        return;
      }
      produced++;
      yieldFn(f, comp.value);
      return;
    }
    const errBefore = v.err;
    const check = (): void => {
      if (v.err !== errBefore) failed = true;
    };
    switch (cl.kind) {
      case "Try": {
        if (cl.ident === undefined || cl.expr === undefined) {
          loop(i + 1, f);
          return;
        }
        const val = evalExpr(cl.expr, tryFrame(f));
        if (val.t === "bottom" && val.err.tryAbsent === true) return;
        // Any other error is the value of x: it shows where x is used.
        const b: import("./vertex.js").Binding =
          val.t === "vertex" ? { t: "vertex", v: val.v } : { t: "value", v: val };
        loop(i + 1, bindFrame(f, new Map([[cl.ident.name, b]])));
        return;
      }
      default:
        break;
    }
    loopClause(cl, i, f);
    check();
  };
  const loopClause = (
    cl: Exclude<ast.Clause, ast.TryClause>,
    i: number,
    f: import("./vertex.js").Frame,
  ): void => {
    switch (cl.kind) {
      case "If": {
        const owner = conditionOwner.v;
        const ownerNesting = conditionOwner.nesting;
        conditionOwner.v = v;
        conditionOwner.nesting = engine().nesting;
        let cond: import("./values.js").Value;
        try {
          cond = evalExpr(cl.condition, f);
        } finally {
          conditionOwner.v = owner;
          conditionOwner.nesting = ownerNesting;
        }
        const b = resolveDefaultValue(cond);
        if (b.t === "bool") {
          if (decided !== undefined) {
            const test = bottomTestOperand(cl.condition);
            const operand =
              test !== undefined
                ? refersInto(test, f, v)
                  ? test
                  : undefined
                : referenceInto(cl.condition, f, v);
            if (operand !== undefined)
              decided.push({
                comp,
                condition: cl.condition,
                operand,
                env: f,
                value: b.v,
                single: clauses.length === 1,
              });
          }
          if (b.v) loop(i + 1, f);
          return;
        }
        if (b.t === "bottom") {
          setErr(v, b);
          return;
        }
        if (isAtom(b) || b.t === "vertex") {
          setErr(
            v,
            bottom("eval", `cannot use ${fmt(b)} (type ${typeNameOf(b)}) as type bool`, [cl.condition.pos]),
          );
        } else if (b.t === "basic" && (b.k & 2) === 0) {
          setErr(
            v,
            bottom("eval", `cannot use ${fmt(b)} (type ${typeNameOf(b)}) as type bool`, [cl.condition.pos]),
          );
        } else setErr(v, bottom("incomplete", `incomplete bool: ${fmt(b)}`, [cl.condition.pos]));
        return;
      }
      case "Let": {
        const lv = new Vertex(f.vertex, cl.ident.name);
        lv.isLet = true;
        lv.fieldType = REGULAR;
        lv.addConj({
          expr: cl.expr,
          env: f,
          ctx: NO_CLOSE,
          value: undefined,
          pos: cl.expr.pos,
          embed: false,
        });
        loop(i + 1, bindFrame(f, new Map([[cl.ident.name, { t: "vertex", v: lv }]])));
        return;
      }
      case "For": {
        const src = resolveDefaultValue(evalExpr(cl.source, f));
        if (src.t === "bottom") {
          setErr(v, src);
          return;
        }
        if (src.t !== "vertex") {
          const concrete =
            (src.t !== "basic" && src.t !== "top" && src.t !== "disj") ||
            (src.t === "basic" && (src.k & (64 | 128)) === 0);
          setErr(
            v,
            concrete
              ? bottom(
                  "eval",
                  `cannot range over ${exprText(cl.source)} (found ${typeNameOf(src)}, want list or struct)`,
                  [cl.source.pos],
                )
              : bottom(
                  "incomplete",
                  `cannot range over ${exprText(cl.source)} (incomplete type ${typeNameOf(src)})`,
                  [cl.source.pos],
                ),
          );
          return;
        }
        const sv = src.v;
        if (sv.isList) {
          for (let k = 0; k < sv.listLen; k++) {
            const el = sv.arcs?.get(String(k));
            if (el === undefined) continue;
            const binds = new Map<string, import("./vertex.js").Binding>();
            if (cl.key !== undefined) binds.set(cl.key.name, { t: "value", v: { t: "int", v: BigInt(k) } });
            binds.set(cl.value.name, { t: "vertex", v: el });
            loop(i + 1, bindFrame(f, binds));
          }
          return;
        }
        if (sv.arcs === undefined) return;
        for (const [label, el] of [...sv.arcs]) {
          if (el.fieldType === REQUIRED && !label.startsWith("_") && !label.startsWith("#")) {
            // A required field not given is not a value to range over (cue: incomplete).
            setErr(
              v,
              bottom("incomplete", `missing required field in for comprehension: ${displayLabel(label)}`, [
                ...posArray(el.declPos),
                cl.source.pos,
              ]),
            );
            return;
          }
          if (el.fieldType !== REGULAR) continue;
          if (label.startsWith("_") || label.startsWith("#")) continue;
          const binds = new Map<string, import("./vertex.js").Binding>();
          if (cl.key !== undefined)
            binds.set(cl.key.name, { t: "value", v: { t: "string", v: displayLabel(label) } });
          binds.set(cl.value.name, { t: "vertex", v: el });
          loop(i + 1, bindFrame(f, binds));
        }
        return;
      }
      default: {
        const never: never = cl;
        throw new Error(`unexpected clause ${String(never)}`);
      }
    }
  };
  loop(0, env);
  // `else` / `fallback`: nothing was produced, and not because of an error.
  if (produced === 0 && !failed && comp.fallback !== undefined) yieldFn(env, comp.fallback);
  else if (comp.fallback !== undefined) unresolvedInBody(v, comp.fallback, env, NO_NAMES);
  // A body never produced (`for x in {} {a: E}`) is still compiled by cue too.
  if (produced === 0 && !failed) unresolvedInBody(v, comp.value, env, clauseNames(clauses));
}

const NO_NAMES: ReadonlySet<string> = new Set();

/** The names a comprehension's clauses bind (in scope in its body only). */
function clauseNames(clauses: readonly ast.Clause[]): ReadonlySet<string> {
  const out = new Set<string>();
  for (const cl of clauses) {
    if (cl.kind === "For") {
      if (cl.key !== undefined) out.add(cl.key.name);
      out.add(cl.value.name);
    } else if (cl.kind === "Let") out.add(cl.ident.name);
    else if (cl.kind === "Try" && cl.ident !== undefined) out.add(cl.ident.name);
  }
  return out;
}

/**
 * A comprehension body not produced, or a fallback not taken, is still compiled by cue: a name it
 * uses that no scope declares is an error (at its field; a fallback does not see the
 * comprehension's own `for` and `let` variables).
 */
function unresolvedInBody(
  v: Vertex,
  body: ast.StructLit,
  env: import("./vertex.js").Frame,
  bound: ReadonlySet<string>,
): void {
  for (const d of body.decls) {
    if (d.kind !== "Field") continue;
    const label = identLabel(d);
    if (label === undefined) continue;
    const missing = firstUndeclared(d.value, body, env, bound);
    if (missing === undefined) continue;
    const a = newArc(v, label);
    if (a.conjuncts.length === 0) a.fieldType = REGULAR;
    setErr(a, bottom("eval", `reference "${missing.name}" not found`, [missing.pos]));
  }
}

/** The first identifier of `e` (outside nested structs and comprehensions) no scope declares. */
function firstUndeclared(
  e: ast.Expr,
  body: ast.StructLit,
  env: import("./vertex.js").Frame,
  bound: ReadonlySet<string>,
): ast.Ident | undefined {
  switch (e.kind) {
    case "Ident":
      return bound.has(e.name) || declared(e.name, body, env) ? undefined : e;
    case "Paren":
    case "Unary":
      return firstUndeclared(e.expr, body, env, bound);
    case "Binary":
      return firstUndeclared(e.left, body, env, bound) ?? firstUndeclared(e.right, body, env, bound);
    case "Selector":
      return firstUndeclared(e.expr, body, env, bound);
    case "Index":
      return firstUndeclared(e.expr, body, env, bound) ?? firstUndeclared(e.index, body, env, bound);
    case "Call": {
      for (const a of e.args) {
        const m = firstUndeclared(a, body, env, bound);
        if (m !== undefined) return m;
      }
      return firstUndeclared(e.fn, body, env, bound);
    }
    case "Interpolation":
      for (const p of e.parts) {
        if (typeof p === "string") continue;
        const m = firstUndeclared(p, body, env, bound);
        if (m !== undefined) return m;
      }
      return undefined;
    default:
      return undefined;
  }
}

function declared(name: string, body: ast.StructLit, env: import("./vertex.js").Frame): boolean {
  if (name === "_" || name === "self" || name === "__self" || predeclared(name) !== undefined) return true;
  if (lookupDecl(body, name) !== undefined) return true;
  for (let f: import("./vertex.js").Frame | undefined = env; f !== undefined; f = f.up) {
    if (f.binds?.has(name) || f.scope?.has(name) || f.imports?.has(name)) return true;
    if (f.lit !== undefined && lookupDecl(f.lit, name) !== undefined) return true;
  }
  return false;
}

function tryFrame(f: import("./vertex.js").Frame): import("./vertex.js").Frame {
  return {
    up: f,
    vertex: f.vertex,
    scope: undefined,
    lit: undefined,
    binds: undefined,
    lets: undefined,
    imports: undefined,
    tryScope: true,
  };
}

/** Whether evaluating a try body (in a scratch vertex) meets an absent `x?` reference. */
function absentIn(v: Vertex, body: ast.StructLit, f: import("./vertex.js").Frame): boolean {
  const w = new Vertex(v, "");
  w.isLet = true;
  w.fieldType = REGULAR;
  w.conjuncts = [{ expr: body, env: f, ctx: NO_CLOSE, value: undefined, pos: body.pos, embed: true }];
  if (hasAbsent(w, 0)) return true;
  // A disjunction embedded in the body drops the alternative that met the absent reference; cue
  // discards the whole try when any alternative does.
  for (const d of body.decls) {
    if (d.kind !== "Embed") continue;
    const alts: ast.Expr[] = [];
    disjuncts(d.expr, alts);
    if (alts.length < 2) continue;
    const bodyEnv = newFrame(f, w, body);
    for (const alt of alts) {
      const t = new Vertex(v, "");
      t.isLet = true;
      t.fieldType = REGULAR;
      t.conjuncts = [{ expr: alt, env: bodyEnv, ctx: NO_CLOSE, value: undefined, pos: alt.pos, embed: true }];
      if (hasAbsent(t, 0)) return true;
    }
  }
  return false;
}

/** The alternatives of a written disjunction (`*` marks and parentheses removed). */
function disjuncts(e: ast.Expr, out: ast.Expr[]): void {
  if (e.kind === "Paren") disjuncts(e.expr, out);
  else if (e.kind === "Binary" && e.op === "|") {
    disjuncts(e.left, out);
    disjuncts(e.right, out);
  } else if (e.kind === "Unary" && e.op === "*") disjuncts(e.expr, out);
  else out.push(e);
}

function hasAbsent(w: Vertex, depth: number): boolean {
  evaluate(w);
  if (w.err?.err.tryAbsent === true) return true;
  if (w.arcs === undefined || depth > 50) return false;
  for (const a of w.arcs.values()) {
    if (a.fieldType === OPTIONAL) continue;
    if (hasAbsent(a, depth + 1)) return true;
  }
  return false;
}

/** Runs postponed comprehensions and dynamic fields of `v`. */
export function runDeferred(v: Vertex): void {
  if (v.deferred === undefined || v.deferred.length === 0) return;
  const added = !fieldsCollected.has(v);
  if (added) fieldsCollected.add(v);
  try {
    const circular = conditionCycle(v);
    if (circular !== undefined) setErr(v, circular);
    runDeferredInner(v);
  } finally {
    if (added) fieldsCollected.delete(v);
  }
}

function runDeferredInner(v: Vertex): void {
  let decided: DecidedCondition[] = [];
  let rerun = true;
  for (;;) {
    runDeferredList(v, decided);
    if (decided.length === 0 || v.err !== undefined || !rerun) return;
    // A condition that tests its own struct's fields against _|_ must hold once the struct is
    // complete (cue: "circular dependency in evaluation of conditionals"). One that became true
    // runs its comprehension now; one that became false cannot take back what it added.
    const checks = decided;
    decided = [];
    rerun = false;
    for (const d of checks) {
      const owner = conditionOwner.v;
      const ownerNesting = conditionOwner.nesting;
      conditionOwner.v = v;
      conditionOwner.nesting = engine().nesting;
      let now: import("./values.js").Value;
      try {
        now = resolveDefaultValue(evalExpr(d.condition, d.env));
      } finally {
        conditionOwner.v = owner;
        conditionOwner.nesting = ownerNesting;
      }
      if (now.t !== "bool" || now.v === d.value) {
        // Still to hold after what a comprehension run again adds.
        decided.push(d);
        continue;
      }
      if (now.v && d.single && d.deferred !== undefined) {
        v.deferred = [...(v.deferred ?? []), d.deferred];
        rerun = true;
        continue;
      }
      setErr(
        v,
        bottom(
          "cycle",
          `circular dependency in evaluation of conditionals: ${exprText(d.operand)} changed after evaluation`,
          [d.operand.pos],
        ),
      );
      return;
    }
  }
}

/** A comprehension's `if` condition that compared a field of its struct with `_|_`. */
interface DecidedCondition {
  readonly comp: ast.Comprehension;
  readonly condition: ast.Expr;
  readonly operand: ast.Expr;
  readonly env: import("./vertex.js").Frame;
  readonly value: boolean;
  /** The comprehension is this one `if` clause (it can run again without repeating outputs). */
  readonly single: boolean;
  /** The comprehension as it was deferred (set by the struct that runs it). */
  deferred?: import("./vertex.js").Deferred;
}

/** `x` of `x == _|_`, `x != _|_` (either side, or negated), else undefined. */
function bottomTestOperand(e: ast.Expr): ast.Expr | undefined {
  switch (e.kind) {
    case "Paren":
      return bottomTestOperand(e.expr);
    case "Unary":
      return e.op === "!" ? bottomTestOperand(e.expr) : undefined;
    case "Binary":
      if (e.op !== "==" && e.op !== "!=") return undefined;
      if (e.right.kind === "Bottom") return e.left;
      if (e.left.kind === "Bottom") return e.right;
      return undefined;
    default:
      return undefined;
  }
}

/**
 * A name or selector in a condition (`len(x) > 0`, `x.n == 1`) that refers into `v`: the
 * condition may change as later comprehensions add to `v`, so it is checked again (cue evaluates
 * comprehensions until nothing changes).
 */
function referenceInto(e: ast.Expr, f: import("./vertex.js").Frame, v: Vertex): ast.Expr | undefined {
  switch (e.kind) {
    case "Ident":
    case "Selector":
      return refersInto(e, f, v) ? e : undefined;
    case "Paren":
    case "Unary":
      return referenceInto(e.expr, f, v);
    case "Binary":
      return referenceInto(e.left, f, v) ?? referenceInto(e.right, f, v);
    case "Call":
      for (const a of e.args) {
        const r = referenceInto(a, f, v);
        if (r !== undefined) return r;
      }
      return undefined;
    default:
      return undefined;
  }
}

/** Whether `x` (a name or a selector) names a field of `v` or of a struct below it. */
function refersInto(x: ast.Expr, f: import("./vertex.js").Frame, v: Vertex): boolean {
  // `(foo | bar) == _|_`: any of the fields it names.
  if (x.kind === "Paren") return refersInto(x.expr, f, v);
  if (x.kind === "Binary") return refersInto(x.left, f, v) || refersInto(x.right, f, v);
  let base: Vertex | undefined;
  if (x.kind === "Selector" && (x.expr.kind === "Ident" || x.expr.kind === "Selector")) {
    const b = resolveRef(x.expr, f);
    if (b.t !== "vertex") return false;
    base = b.v;
  } else if (x.kind === "Ident") {
    const b = resolveRef(x, f);
    // An unset optional or required field of the struct reads as an error rather than as its vertex.
    if (b.t !== "vertex") {
      const ft = v.arcs?.get(x.name)?.fieldType;
      return ft === OPTIONAL || ft === REQUIRED;
    }
    base = b.v.parent;
  } else return false;
  for (let a = base; a !== undefined; a = a.parent) if (a === v) return true;
  return false;
}

function runDeferredList(v: Vertex, decided: DecidedCondition[]): void {
  while (v.deferred !== undefined && v.deferred.length > 0) {
    const list = v.deferred;
    v.deferred = undefined;
    const before = runningDeferred(v, list);
    // A dynamic label that names a field of this struct another dynamic field or comprehension of
    // it may still add (`(x.baz): "bar"` before `(x.foo): "baz"`) waits for them: cue resolves
    // such chains whatever the order they are written in.
    const waiting: import("./vertex.js").Deferred[] = [];
    let progress = false;
    for (const d of list) {
      if (d.decl.kind === "Comprehension") {
        progress = true;
        const comp = d.decl;
        const before = decided.length;
        runComprehension(
          v,
          comp,
          d.env,
          (f, body) => {
            asComprehensionOutput(() =>
              addConjunct(v, {
                expr: body,
                env: f,
                ctx: d.ctx,
                value: undefined,
                pos: body.pos,
                embed: true,
              }),
            );
          },
          decided,
        );
        for (let k = before; k < decided.length; k++) (decided[k] as DecidedCondition).deferred = d;
        continue;
      }
      const field = d.decl;
      // An identifier label is not computed (and reading `label` of a `name: value` field makes a node).
      if (identLabel(field) !== undefined) continue;
      const lbl = field.label;
      let labelExpr: ast.Expr;
      if (lbl.kind === "DynamicLabel") labelExpr = lbl.expr;
      else if (lbl.kind === "Interpolation") labelExpr = lbl;
      else continue;
      const lv = resolveDefaultValue(evalExpr(labelExpr, d.env));
      if (lv.t === "string") {
        let env = d.env;
        const labelAlias = lbl.kind === "DynamicLabel" ? lbl.alias : undefined;
        if (field.alias !== undefined || labelAlias !== undefined) {
          // The field alias names the field, the label alias (`(K=expr)`, `(expr)~(K,V)`) the key.
          const binds = new Map<string, import("./vertex.js").Binding>();
          if (labelAlias !== undefined) binds.set(labelAlias.name, { t: "value", v: lv });
          if (field.alias !== undefined)
            binds.set(field.alias.name, { t: "vertex", v: newArc(v, strLabel(lv.v)) });
          env = bindFrame(d.env, binds);
        }
        addField(v, strLabel(lv.v), field, env, d.ctx, true);
        progress = true;
        continue;
      }
      if (
        list.length > 1 &&
        !waitedLabels.has(d) &&
        labelMayWait(lv) &&
        labelExpr.kind === "Selector" &&
        refersInto(labelExpr, d.env, v)
      ) {
        waiting.push(d);
        continue;
      }
      if (lv.t === "bottom") {
        setErr(v, lv);
        continue;
      }
      if (lv.t === "basic" || lv.t === "top" || lv.t === "disj") {
        setErr(v, bottom("incomplete", `invalid non-concrete label ${fmt(lv)}`, [labelExpr.pos]));
        continue;
      }
      if (lv.t === "int") {
        setErr(v, bottom("eval", "integer fields not supported", [labelExpr.pos]));
        continue;
      }
      setErr(v, bottom("eval", `invalid label type ${typeNameOf(lv)}`, [labelExpr.pos]));
    }
    doneDeferred(v, before);
    if (waiting.length > 0) {
      // Without progress, the next round reports what the labels are.
      if (!progress) for (const d of waiting) waitedLabels.add(d);
      v.deferred = waiting.concat(v.deferred ?? []);
    }
  }
}

/** Dynamic fields that waited for the others without any of them adding a field. */
const waitedLabels = new WeakSet<import("./vertex.js").Deferred>();

/** A label value another dynamic field of the struct may still make concrete. */
function labelMayWait(lv: import("./values.js").Value): boolean {
  if (lv.t === "bottom") return lv.err.code === "incomplete" || lv.err.code === "cycle";
  return lv.t === "basic" || lv.t === "top" || lv.t === "disj";
}
