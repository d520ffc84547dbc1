/**
 * Collecting conjuncts into a vertex: struct literals become arcs (with closedness bookkeeping),
 * list literals become indexed arcs, references re-add the referenced vertex's conjuncts, and
 * everything else is evaluated to a scalar and unified with the vertex's scalar part.
 */

import type * as ast from "../syntax/ast.js";
import { identKind, isDefinitionName } from "../syntax/ast.js";
import { identLabel } from "../syntax/index.js";
import type { Pos } from "../syntax/position.js";
import { closeExtra, closeLit, closeOpen, closePattern } from "./closedness.js";
import { runComprehension } from "./comprehension.js";
import { constValue } from "./const-cache.js";
import { resolveDefaultValue } from "./defaults.js";
import { addDisjunction, addValueDisjunction } from "./disjunction.js";
import { engine, step } from "./engine.js";
import { applyPatternsToArc, evaluate } from "./evaluate.js";
import { isExplicitOpen, usesAliasV2 } from "./experiments.js";
import { evalExpr, resolveRef } from "./expr.js";
import { meet } from "./meet.js";
import { addClosingCall, isClosingBuiltin } from "./reclose.js";
import { bindFrame, lookupDecl, newFrame } from "./scope.js";
import { borrow, namesDefinition } from "./share.js";
import { type BottomV, bottom, type Value } from "./values.js";
import {
  appendPos,
  CloseCtx,
  type CloseSet,
  COLLECTING,
  type Conjunct,
  CYC_CYCLIC,
  CYC_MAYBE,
  CYC_OPTIONAL,
  type EmbMark,
  EVALUATED,
  NEW,
  NO_CLOSE,
  OPTIONAL,
  posArray,
  prependPos,
  REGULAR,
  REQUIRED,
  type RefLink,
  staticLabels,
  strLabel,
  Vertex,
} from "./vertex.js";

/** Records an error on a vertex (the first one wins). */
/** Appends to a small array, keeping it exact-size (push over-allocates). */
export function appendTo<T>(arr: T[] | undefined, x: T): T[] {
  return arr === undefined ? [x] : arr.concat([x]);
}

export function setErr(v: Vertex, e: BottomV): void {
  // The first error stays, except that a conflict replaces an incomplete one: cue reports the
  // final error, not the wait (a struct that embeds a list while its `if` waits for a value).
  if (v.err === undefined || (v.err.err.code === "incomplete" && e.err.code === "eval")) v.err = e;
}

/**
 * The closedness contexts a field inherits. A context is identified by the definition reference
 * that created it; below it, each vertex keeps its own group for it, so the same object serves
 * every level (conjuncts only flow from a vertex to its arcs).
 */
export function childCtx(ctx: CloseSet, _label: string): CloseSet {
  if (ctx.length === 0) return NO_CLOSE;
  if (ctx === lastCtxIn) return lastCtxOut;
  let all = true;
  for (const c of ctx) if (!c.recursive) all = false;
  if (all) return ctx;
  const f = ctx.filter((c) => c.recursive);
  const out = f.length === 0 ? NO_CLOSE : f;
  // The fields of one struct literal share their context set: remember the last answer.
  lastCtxIn = ctx;
  lastCtxOut = out;
  return out;
}

let lastCtxIn: CloseSet | undefined;
let lastCtxOut: CloseSet = NO_CLOSE;

/** `ctx` with `cc` added (exact-size arrays; no temporary). */
function withCtx(ctx: CloseSet, cc: CloseCtx): CloseSet {
  switch (ctx.length) {
    case 0:
      return [cc];
    case 1:
      return [ctx[0] as CloseCtx, cc];
    case 2:
      return [ctx[0] as CloseCtx, ctx[1] as CloseCtx, cc];
    default:
      return [...ctx, cc];
  }
}

/** Whether a vertex label or reference names a definition (or lives inside one). */
export function inDefinition(v: Vertex): boolean {
  for (let x: Vertex | undefined = v; x !== undefined; x = x.parent) {
    if (x.label.startsWith("#") || x.label.startsWith("_#")) return true;
  }
  return false;
}

/** Unifies one conjunct into `v`. */
export function addConjunct(v: Vertex, c: Conjunct): void {
  const lim = step();
  if (lim !== undefined) {
    setErr(v, lim);
    return;
  }
  if (c.value !== undefined) {
    addValue(v, c.value, c);
    return;
  }
  const x = c.expr;
  if (x === undefined) return;
  if (x.kind === "Binary" || x.kind === "Unary") {
    const k = constValue(x, c.env);
    if (k !== undefined) {
      addValue(v, k, c);
      return;
    }
  }
  switch (x.kind) {
    case "Struct": {
      const only = soleClosingAnd(x, c);
      if (only !== undefined) {
        addConjunct(v, { ...c, expr: only, pos: only.pos });
        return;
      }
      addStruct(v, x, c);
      return;
    }
    case "List":
      addList(v, x, c);
      return;
    case "Paren":
      addConjunct(v, { ...c, expr: x.expr });
      return;
    case "Binary":
      if (x.op === "&") {
        // An embedded conjunction is checked as a whole: its definitions close what its other
        // operands declare (cue's embedding scopes), though not the embedding struct's own fields.
        const scoped = c.embed && c.andScope === undefined ? { ...c, andScope: { lits: [] } } : c;
        addConjunct(v, { ...scoped, expr: x.left, pos: x.left.pos });
        addConjunct(v, { ...scoped, expr: x.right, pos: x.right.pos });
        return;
      }
      if (x.op === "|") {
        addDisjunction(v, c);
        return;
      }
      break;
    case "Unary":
      if (x.op === "*") {
        addConjunct(v, { ...c, expr: x.expr });
        return;
      }
      break;
    case "Postfix":
      if (x.op === "?") break;
      // `x...` unifies x the way an embedding does without explicitopen: what x's definitions
      // close applies below this vertex, not to it.
      if (!isExplicitOpen(c.env)) {
        setErr(v, postfixWithoutExperiment(x));
        return;
      }
      addConjunct(v, { ...c, expr: x.expr, open: true });
      return;
    case "Ident":
    case "Selector":
    case "Index": {
      const r = resolveRef(x, c.env);
      if (r.t === "vertex") expandVertex(v, r.v, c);
      else addValue(v, r.v, c);
      return;
    }
    case "Alias": {
      const f = bindFrame(c.env, new Map([[x.ident.name, { t: "vertex", v }]]));
      addConjunct(v, { ...c, expr: x.expr, env: f });
      return;
    }
    case "Call":
      if (
        x.fn.kind === "Ident" &&
        x.fn.name === "close" &&
        x.args.length === 1 &&
        isPredeclared("close", c)
      ) {
        const a = x.args[0];
        if (a !== undefined) {
          let ctx = c.ctx;
          if (c.open !== true) {
            const cc = new CloseCtx(false);
            // An embedded close() closes what it declares, not the fields of the embedding struct.
            if (c.embed) cc.skipAt = v;
            if (c.emb?.e !== undefined) cc.embIn = c.emb;
            ctx = [...c.ctx, cc];
          }
          // Like every builtin, close() takes the default of a disjunction (`close(*{} | 0)`).
          addConjunct(v, { ...c, expr: markedDefault(a) ?? a, ctx });
          return;
        }
      }
      if (x.fn.kind === "Ident" && isClosingBuiltin(x.fn.name) && isPredeclared(x.fn.name, c)) {
        addClosingCall(v, x, c);
        return;
      }
      if (x.fn.kind === "Ident" && x.fn.name === "and" && x.args.length === 1 && isPredeclared("and", c)) {
        const lst = resolveDefaultValue(evalExpr(x.args[0] as ast.Expr, c.env));
        if (lst.t === "vertex" && lst.v.isList) {
          for (let i = 0; i < lst.v.listLen; i++) {
            const el = lst.v.arcs?.get(String(i));
            if (el !== undefined) expandVertex(v, el, c);
          }
          return;
        }
      }
      // matchN and matchIf decide which fields a struct may have: the contexts they came through
      // do not close it (cue's open validators, typocheck.go filterTop).
      if (
        x.fn.kind === "Ident" &&
        (x.fn.name === "matchN" || x.fn.name === "matchIf") &&
        c.ctx.length > 0 &&
        isPredeclared(x.fn.name, c)
      )
        closeOpen(v, c.ctx);
      break;
    default:
      break;
  }
  addValue(v, evalExpr(x, c.env), c);
}

/** The one alternative marked `*` in a written disjunction, if there is exactly one. */
function markedDefault(e: ast.Expr): ast.Expr | undefined {
  if (e.kind !== "Binary" || e.op !== "|") return undefined;
  const marked: ast.Expr[] = [];
  const walk = (x: ast.Expr): void => {
    if (x.kind === "Binary" && x.op === "|") {
      walk(x.left);
      walk(x.right);
    } else if (x.kind === "Unary" && x.op === "*") marked.push(x.expr);
  };
  walk(e);
  return marked.length === 1 ? marked[0] : undefined;
}

function isPredeclared(name: string, c: Conjunct): boolean {
  for (let f: typeof c.env | undefined = c.env; f !== undefined; f = f.up) {
    if (f.binds?.has(name) || f.scope?.has(name) || f.imports?.has(name)) return false;
    if (f.lit !== undefined && lookupDecl(f.lit, name) !== undefined) return false;
  }
  return true;
}

/**
 * Conjuncts of a vertex that referred to a field not yet collected (see expandVertex): the
 * evaluator adds them again once the vertex's other conjuncts are in (evaluate.ts).
 */
export const emptyRefs = new WeakMap<Vertex, Conjunct[]>();
/** The struct still being collected that the last of `emptyRefs`' references pointed into. */
export const emptyRefAt = new WeakMap<Vertex, Vertex>();

/** Embedded conjuncts of a vertex that were incomplete while it was collected (see addValue). */
export const incompleteEmbeds = new WeakMap<Vertex, [Conjunct, BottomV][]>();

/**
 * The vertex whose own conjuncts are being added (evaluate.ts, `collectConjuncts`): only there is
 * an incomplete embedding deferred, so that comprehensions and later passes keep their errors.
 */
let collectingConjuncts: Vertex | undefined;

/**
 * Adds `v`'s conjuncts with `add`, then evaluates again the embedded expressions that were
 * incomplete meanwhile, now that every conjunct is in: an error that remains is `v`'s.
 */
export function collectConjuncts(v: Vertex, add: (v: Vertex) => void): void {
  const outer = collectingConjuncts;
  collectingConjuncts = v;
  try {
    add(v);
    // Embeddings that read the struct's own fields, now that every conjunct gave those fields
    // theirs (see `waitsForStruct`); what they add may embed such a reference again.
    for (let xs = ownFieldEmbeds.get(v); xs !== undefined; xs = ownFieldEmbeds.get(v)) {
      ownFieldEmbeds.delete(v);
      for (const c of xs) addConjunct(v, c);
    }
  } finally {
    collectingConjuncts = outer;
  }
  const xs = incompleteEmbeds.get(v);
  if (xs === undefined) return;
  incompleteEmbeds.delete(v);
  for (const [c, first] of xs) {
    if (c.expr === undefined) continue;
    const val = evalExpr(c.expr, c.env);
    if (mayFeedBack(v, val)) {
      // A struct computed from the struct's fields that gives some of those fields again
      // (`{t: x}.t.y` beside `x: y: x: y: a: 1`) adds to what it was computed from: cue takes that
      // to a fixpoint, which one more evaluation does not reach. It stays the incomplete error it
      // was, never a value short of cue's.
      setErr(v, first);
      v.scalar = first;
      continue;
    }
    addValue(v, val, c);
  }
}

/** Embeddings of a struct being collected that wait for all its conjuncts (see `waitsForStruct`). */
const ownFieldEmbeds = new WeakMap<Vertex, Conjunct[]>();

/**
 * Whether an embedding of `lit`, unified into `v`, waits until all of `v`'s conjuncts are in: one
 * that names a field (or let) the literal declares reads that field of `v`, and the struct's other
 * conjuncts may still add to it (spec: the embedded value is unified with the struct's result;
 * `x: {#n + 1, #n: int} & {#n: 5, _}` is 6, `{#a, #a: _} & {#a: "s", _}` is "s").
 */
function waitsForStruct(v: Vertex, e: ast.Expr, lit: ast.StructLit): boolean {
  return collectingConjuncts === v && namesOwnDecl(e, lit);
}

/** Whether an expression refers to a name `lit` declares (nested structs and comprehensions aside). */
function namesOwnDecl(e: ast.Expr, lit: ast.StructLit): boolean {
  switch (e.kind) {
    case "Ident":
      return lookupDecl(lit, e.name) !== undefined;
    case "Paren":
    case "Unary":
    case "Postfix":
      return namesOwnDecl(e.expr, lit);
    case "Binary":
      return namesOwnDecl(e.left, lit) || namesOwnDecl(e.right, lit);
    case "Selector":
      return namesOwnDecl(e.expr, lit);
    case "Index":
      return namesOwnDecl(e.expr, lit) || namesOwnDecl(e.index, lit);
    case "Slice":
      return namesOwnDecl(e.expr, lit);
    case "Call":
      return namesOwnDecl(e.fn, lit) || e.args.some((x) => namesOwnDecl(x, lit));
    case "Interpolation":
      return e.parts.some((x) => typeof x !== "string" && namesOwnDecl(x, lit));
    case "List":
      return e.elems.some((x) => x.kind !== "Comprehension" && namesOwnDecl(x, lit));
    default:
      return false;
  }
}

/** Adds an embedding of `lit` to `v`, or keeps it for the end of `v`'s collection. */
function addEmbedding(v: Vertex, lit: ast.StructLit, c: Conjunct): void {
  if (c.expr === undefined || !waitsForStruct(v, c.expr, lit)) {
    addConjunct(v, c);
    return;
  }
  const xs = ownFieldEmbeds.get(v);
  if (xs === undefined) ownFieldEmbeds.set(v, [c]);
  else xs.push(c);
}

/** Whether an embedded value re-evaluated in `collectConjuncts` gives fields `v` already has. */
function mayFeedBack(v: Vertex, val: Value): boolean {
  if (val.t === "disj") return val.values.some((x) => mayFeedBack(v, x));
  if (val.t !== "vertex") return false;
  const arcs = val.v.arcs;
  if (arcs === undefined || v.arcs === undefined) return arcs === undefined && val.v.conjuncts.length > 0;
  for (const k of arcs.keys()) if (v.arcs.has(k)) return true;
  return false;
}

/** Embedded conjuncts of a vertex that met a cycle through `self` (see retrySelf). */
export const selfRetries = new WeakMap<Vertex, Conjunct[]>();

/** Whether an expression names `self` (the aliasv2 experiment), outside nested structs. */
function mentionsSelf(e: ast.Expr): boolean {
  switch (e.kind) {
    case "Ident":
      return e.name === "self";
    case "Paren":
    case "Unary":
      return mentionsSelf(e.expr);
    case "Binary":
      return mentionsSelf(e.left) || mentionsSelf(e.right);
    case "Selector":
      return mentionsSelf(e.expr);
    case "Index":
      return mentionsSelf(e.expr) || mentionsSelf(e.index);
    case "Call":
      return mentionsSelf(e.fn) || e.args.some(mentionsSelf);
    case "List":
      return e.elems.some((x) => x.kind !== "Comprehension" && mentionsSelf(x));
    default:
      return false;
  }
}

/** Unifies an evaluated value into `v`. */
export function addValue(v: Vertex, val: Value, c: Conjunct): void {
  switch (val.t) {
    case "top":
      v.hasTop = true;
      return;
    case "vertex":
      expandVertex(v, val.v, c);
      return;
    case "disj":
      if (val.values.some((x) => x.t === "vertex")) {
        addValueDisjunction(v, val, c);
        return;
      }
      break;
    case "func":
      if (val.asValidator !== undefined) {
        meetScalar(v, { t: "basic", k: 255, bounds: [], validators: [val.asValidator] }, c.pos);
        return;
      }
      // A function is a value too (`f: error`, later called as `f("msg")`).
      if (v.scalar.t === "top") {
        v.scalar = val;
        return;
      }
      setErr(v, bottom("eval", `cannot use function ${val.name} as value`, [c.pos]));
      return;
    case "bottom":
      if (val.err.code === "cycle") {
        // Resolved later if the vertex turns out concrete anyway.
        v.cycleErr ??= val;
        // An embedded expression about the struct itself (`{list.Repeat(x, len(self))}`) is
        // evaluated again once the struct is known (evaluate.ts, retrySelf).
        // So is any expression that read this vertex's own value (`a: [k=string]: _Q[0:len(a[k])]`).
        if (c.expr !== undefined && ((c.embed && mentionsSelf(c.expr)) || val.err.cycleAt === v)) {
          const xs = selfRetries.get(v);
          if (xs === undefined) selfRetries.set(v, [c]);
          else xs.push(c);
        }
        return;
      }
      // An embedded expression that is incomplete while the struct is being collected
      // (`{#a + #b, #a: int}` unified with `{#a: 1, #b: 3}`) may be resolved by conjuncts not yet
      // added: it is evaluated again once they all are (evaluate.ts, retryIncompleteEmbeds).
      if (val.err.code === "incomplete" && c.embed && c.expr !== undefined && collectingConjuncts === v) {
        const xs = incompleteEmbeds.get(v);
        if (xs === undefined) incompleteEmbeds.set(v, [[c, val]]);
        else xs.push([c, val]);
        return;
      }
      setErr(v, val);
      v.scalar = val;
      return;
    default:
      break;
  }
  meetScalar(v, val, c.pos);
}

export function meetScalar(v: Vertex, val: Value, pos: Pos): void {
  const r = meet(v.scalar, val);
  if (r.t === "bottom") {
    if (v.scalar.t !== "bottom" && r !== val) {
      const where = [...posArray(v.scalarPos), pos];
      if (r.err.sub !== undefined) for (const e of r.err.sub) e.positions.push(...where);
      else r.err.positions.push(...where);
    }
    setErr(v, r);
  }
  v.scalar = r;
  v.scalarPos = appendPos(v.scalarPos, pos);
}

/**
 * Re-adds the conjuncts of a referenced vertex. A reference into a definition closes the result.
 * Self references and reference cycles contribute nothing (`a: a` is `_`).
 */
export function expandVertex(v: Vertex, r: Vertex, c: Conjunct): void {
  if (r === v || isExpanding(v, r)) {
    // A cyclic embedding contributes the whole vertex: it allows every label.
    closeOpen(v, c.ctx);
    return;
  }
  for (let a = v.parent; a !== undefined; a = a.parent) {
    if (a === r || a.cloneOf === r) {
      setErr(v, bottom("structural cycle", "structural cycle", [c.pos]));
      return;
    }
  }
  if (reentersInProgress(v, r)) {
    if (projectedBy(v, r)) {
      closeOpen(v, c.ctx);
      return;
    }
    setErr(v, bottom("structural cycle", "structural cycle", [c.pos]));
    return;
  }
  if (isInline(v) && c.expr !== undefined && !iterating(c.env) && inlineRecursion(v, c.expr)) {
    setErr(v, bottom("structural cycle", "structural cycle", [c.pos]));
    return;
  }
  if (r.conjuncts.length === 0) {
    // A field of a struct still being collected that has no conjunct yet (`d: d.a` before
    // `d: a: …`) may get them from the conjuncts still to come: expanded again after them.
    if (r.status === NEW && r.parent?.status === COLLECTING && !r.isLet) {
      const xs = emptyRefs.get(v);
      if (xs === undefined) emptyRefs.set(v, [c]);
      else xs.push(c);
      emptyRefAt.set(v, r.parent);
      return;
    }
    copyEvaluated(v, r, c);
    return;
  }
  // A reference to a scalar (`#Duration: string & =~re`) unifies its value: re-evaluating its
  // conjuncts here would give the same result at a much higher cost.
  const sv = scalarValueOf(r);
  if (sv !== undefined) {
    // A field of the struct itself (`{#a, #a: _}` given `#a: "s"` later) is read again too.
    if (v.status === COLLECTING) noteSelfExpansion(v, r, c);
    addValue(v, sv, c);
    return;
  }
  let refs: RefLink | undefined;
  let cyc = c.cyc;
  const earlier = cyc !== undefined && cyc !== 0 ? earlierExpansion(v, r) : undefined;
  if (earlier !== undefined) {
    // `r` was unified into `v` already in this pass (`sub: Foo` and the disjunct `Foo` of
    // `sub: Foo | {…}`): cue unifies a vertex into a node once, so below it is that expansion,
    // with its history; this conjunct only adds its closedness contexts.
    refs = earlier.refs;
    cyc = earlier.cyc;
  } else if (cyc !== undefined && cyc !== 0) {
    // A conjunct in an optional position: cue's per-conjunct rule (optionalCycle).
    const h = optionalCycle(v, r, c);
    if (h === SKIP) {
      closeOpen(v, c.ctx);
      return;
    }
    if (h === CYCLE) {
      setErr(v, bottom("structural cycle", "structural cycle", [c.pos]));
      return;
    }
    refs = h.refs;
    cyc = h.cyc;
  } else {
    refs = { arc: r.cloneOf ?? r, node: v, next: c.refs };
  }
  if (sharesRef(v, r, c)) {
    // cue shares `r` here: below is `r`'s own evaluation, with a history of its own.
    refs = { arc: r.cloneOf ?? r, node: v, next: undefined, shared: true };
    cyc = 0;
  }
  if ((cyc === undefined || cyc === 0) && !sharedFromField(v, c) && v.conjuncts.length === 1) {
    // A vertex whose only content is a reference its ancestor already expanded repeats forever.
    // In an alternative of a disjunction (`tail: #List | *null`), only an ancestor that had
    // nothing else either counts: data given for the levels above keeps their expansion finite.
    // The reference must be in the conjunct's history (cue's reoccurring reference): one a sibling
    // brought (`C: {x: T} & T`, `y: x` in T) is new content.
    const alt = v.cloneOf !== undefined;
    let n = 0;
    for (let a = v.parent; a !== undefined && n < 16; a = a.parent, n++) {
      if (hasExpanded(a, r) && (!alt || a.conjuncts.length === 1) && repeatsHistory(v, c.refs, r)) {
        setErr(v, bottom("structural cycle", "structural cycle", [c.pos]));
        return;
      }
    }
  }
  if (expandedAlready(v, r, c, refs, cyc)) return;
  if (v.status === COLLECTING) noteSelfExpansion(v, r, c);
  noteForeignRead(v, r, c);
  const ex = v.expanded;
  if (ex === undefined) v.expanded = r;
  else if (ex !== r && !(Array.isArray(ex) && ex.includes(r)))
    v.expanded = Array.isArray(ex) ? ex.concat([r]) : [ex, r];
  let ctx = c.ctx;
  // An embedded definition inside a closed (definition) context merges into that context;
  // elsewhere it closes what it defines below the embedding struct.
  const embedLike = c.embed || c.open === true;
  if (
    !r.isLet &&
    ((inDefinition(r) && refNamesDefinition(c.expr, r)) || embedsDefinition(r)) &&
    !(embedLike && (c.ctx.some((x) => x.recursive) || inDefinition(v))) &&
    (embedLike || !nakedTop(r))
  ) {
    const cc = new CloseCtx(true);
    cc.def = r;
    cc.defAt = v;
    if (embedLike) cc.skipAt = v;
    if (c.embed) cc.andScope = c.andScope;
    if (c.emb?.e !== undefined) cc.embIn = c.emb;
    ctx = withCtx(ctx, cc);
  } else if (c.embed && c.andScope !== undefined && !r.isLet && (inDefinition(r) || embedsDefinition(r))) {
    // `#D: {#A & #B}`: the definitions merge into #D's context, but only where both allow.
    const cc = new CloseCtx(true);
    cc.def = r;
    cc.defAt = v;
    cc.andMember = c.andScope;
    ctx = withCtx(ctx, cc);
  }
  const depth = expStackV.length;
  expStackV.push(v);
  expStackR.push(r);
  // The rare `open` / `andScope` marks only when set: the common conjunct keeps one shape.
  const marked = c.open !== undefined || c.andScope !== undefined;
  try {
    for (const rc of r.conjuncts) {
      const merged = rc.ctx.length === 0 ? ctx : ctx.length === 0 ? rc.ctx : ctx.concat(rc.ctx);
      const nc: Conjunct = marked
        ? {
            expr: rc.expr,
            env: rc.env,
            ctx: merged,
            value: rc.value,
            pos: rc.pos,
            embed: c.embed,
            refs,
            cyc,
            open: c.open,
            andScope: c.andScope,
            emb: c.emb,
          }
        : {
            expr: rc.expr,
            env: rc.env,
            ctx: merged,
            value: rc.value,
            pos: rc.pos,
            embed: c.embed,
            refs,
            cyc,
            emb: c.emb,
          };
      addConjunct(v, nc);
    }
  } finally {
    expStackV.length = depth;
    expStackR.length = depth;
  }
}

const SKIP = 0;
const CYCLE = 1;

/** Forgets `v`'s expansions: its conjuncts are collected (again) from the start. */
export function clearExpansions(v: Vertex): void {
  v.expansions = undefined;
}

/** Forgets the expansions conjunct `c` made into `v`: it is expanded again (a self-reference's fixpoint). */
export function forgetExpansionsOf(v: Vertex, c: Conjunct): void {
  const list = v.expansions;
  if (list === undefined) return;
  const kept = list.filter((x) => x.c !== c);
  v.expansions = kept.length === 0 ? undefined : kept;
}

/** The first expansion of `r` into `v` in its current collection pass, if any. */
function earlierExpansion(
  v: Vertex,
  r: Vertex,
): { refs: RefLink | undefined; cyc: number | undefined } | undefined {
  const list = v.expansions;
  if (list === undefined) return undefined;
  for (const x of list) if (x.r === r) return x;
  return undefined;
}

/**
 * Whether `r` was expanded into `v` already in this pass by an equivalent conjunct (the same
 * closedness contexts and marks): unification is idempotent, so it adds nothing, as in cue (a
 * vertex is unified into a node once, adt/conjunct.go). `{#ref, #ref}` with `#ref: {a: 1} | {b: 2}`
 * is then one disjunction of two alternatives, not a product with `{a: 1, b: 2}` in it. Records the
 * expansion otherwise.
 */
function expandedAlready(
  v: Vertex,
  r: Vertex,
  c: Conjunct,
  refs: RefLink | undefined,
  cyc: number | undefined,
): boolean {
  const list = v.expansions;
  if (list !== undefined) {
    for (const x of list) {
      const d = x.c;
      if (
        x.r === r &&
        d.ctx === c.ctx &&
        d.embed === c.embed &&
        d.open === c.open &&
        d.andScope === c.andScope &&
        d.cyc === c.cyc
      )
        return true;
    }
    list.push({ r, c, refs, cyc });
  } else v.expansions = [{ r, c, refs, cyc }];
  return false;
}

/**
 * cue's cycle rule for a conjunct in an optional position (adt/cycle.go, detectCycle): the
 * references it was expanded through are its history. Meeting one of them again the first time
 * clears the history and allows one more round (`a?: null | #S` inside #S expands #S twice more
 * below the first use); the next repetition is a structural cycle, unless other conjuncts of the
 * vertex are not cyclic (then it goes on, marked cyclic). A repetition into the same vertex is a
 * reference cycle (nothing added). While the vertex has non-cyclic conjuncts, a conjunct that has
 * repeated once goes on unchecked.
 */
function optionalCycle(
  v: Vertex,
  r: Vertex,
  c: Conjunct,
): typeof SKIP | typeof CYCLE | { refs: RefLink | undefined; cyc: number } {
  const cyc = c.cyc ?? 0;
  if (cyc === CYC_MAYBE && hasNonCyclic(v)) return { refs: c.refs, cyc };
  const k = r.cloneOf ?? r;
  for (let l = c.refs; l !== undefined; l = l.next) {
    if (l.arc !== k) continue;
    if (l.shared === true) return CYCLE;
    if (l.node === v) return SKIP;
    if (cyc === CYC_OPTIONAL) return { refs: undefined, cyc: CYC_MAYBE };
    if (!hasNonCyclic(v)) return CYCLE;
    return { refs: c.refs, cyc: CYC_CYCLIC };
  }
  return { refs: { arc: k, node: v, next: c.refs }, cyc };
}

/**
 * Whether cue would share `r` at `v` (adt/share.go, shareIfPossible): the reference is `v`'s only
 * conjunct, `v` is no disjunct, and neither a let nor a closed vertex taking an open one is involved.
 */
function sharesRef(v: Vertex, r: Vertex, c: Conjunct): boolean {
  if (v.conjuncts.length !== 1 || v.cloneOf !== undefined || v.arcs !== undefined) return false;
  if (v.conjuncts[0]?.expr !== c.expr || c.expr === undefined || r.isLet || isInline(r)) return false;
  return !inDefinition(v) || inDefinition(r);
}

/**
 * Whether `c` comes in an optional position of a field or pattern constraint (not of a disjunct).
 * Where such a reference is shared, below is the referenced vertex's own, finite evaluation
 * (`#D: [string]: x: #D` used by `a: #D` gives `a.b.x.c.x` the value of #D): an ancestor that
 * expanded the same reference makes no cycle of it.
 */
function sharedFromField(v: Vertex, c: Conjunct): boolean {
  if ((c.cyc ?? 0) === 0) return false;
  for (let a: Vertex | undefined = v; a !== undefined; a = a.parent)
    if (a.cloneOf !== undefined) return false;
  return true;
}

/**
 * Whether `r` is in the history `refs` of the conjunct expanding it (cue's reoccurring reference,
 * adt/cycle.go): a conjunct that reached `v` through a sibling's own expansion (`C: {x: T} & T`
 * with `y: x` in T) does not repeat what an ancestor expanded.
 */
function repeatsHistory(v: Vertex, refs: RefLink | undefined, r: Vertex): boolean {
  const k = r.cloneOf ?? r;
  for (let l = refs; l !== undefined; l = l.next) if (l.arc === k) return true;
  // Within a disjunct the history is not cue's, nor in a value written in an expression that
  // brought none (a builtin's argument, `matchN(1, [#c])` inside #c): the ancestor rule holds.
  for (let a: Vertex | undefined = v; a !== undefined; a = a.parent)
    if (a.cloneOf !== undefined || (a.isLet && refs === undefined)) return true;
  return false;
}

/** Whether one of `v`'s conjuncts is not (yet) cyclic: cue's hasNonCyclic. */
function hasNonCyclic(v: Vertex): boolean {
  for (const x of v.conjuncts) if ((x.cyc ?? 0) <= CYC_OPTIONAL) return true;
  return false;
}

/** `cyc` for a conjunct placed in an optional position (cue's setOptional). */
export function optionalCyc(cyc: number | undefined): number {
  return cyc === undefined || cyc === 0 ? CYC_OPTIONAL : cyc;
}

/**
 * Whether a field inside a definition (not a definition itself) is declared `_` (or
 * `_ | close({…})`, whose other alternatives close themselves): cue does not check a reference to
 * it for fields its struct does not declare.
 */
function nakedTop(r: Vertex): boolean {
  if (r.label.startsWith("#") || r.label.startsWith("_#")) return false;
  for (const rc of r.conjuncts) {
    const e = rc.expr;
    if (e === undefined) continue;
    if (isTopIdent(e)) return true;
    if (e.kind === "Binary" && e.op === "|" && topOrClosing(e, true)) return true;
  }
  return false;
}

function isTopIdent(e: ast.Expr): boolean {
  return e.kind === "Ident" && e.name === "_";
}

/** A disjunction of `_` and alternatives that close themselves (close() calls, definitions). */
function topOrClosing(e: ast.Expr, root: boolean): boolean {
  if (e.kind === "Paren") return topOrClosing(e.expr, false);
  if (e.kind === "Binary" && e.op === "|") {
    const l = topOrClosing(e.left, false);
    const r = topOrClosing(e.right, false);
    return l && r && (!root || hasTop(e));
  }
  return isTopIdent(e) || isClosingEmbed(e);
}

function hasTop(e: ast.Expr): boolean {
  if (e.kind === "Paren") return hasTop(e.expr);
  if (e.kind === "Binary" && e.op === "|") return hasTop(e.left) || hasTop(e.right);
  return isTopIdent(e);
}

/**
 * A reference from a struct being collected to a vertex inside it (`t: {c: d: {…}, c.d}`, `a:
 * a.b`): what it adds to the struct may add to the vertices between them (`c.d` gives `c: …`),
 * which changes the referenced vertex in turn. `path` holds those vertices (from the struct's arc
 * down to the referenced vertex) and `lens` their conjunct counts when the reference was expanded:
 * the evaluator takes the struct to a fixpoint (evaluate.ts, `settleSelfExpansions`).
 */
export interface SelfExpansion {
  readonly c: Conjunct;
  readonly path: Vertex[];
  readonly lens: number[];
}

/** The self expansions of each vertex being collected (see SelfExpansion). */
export const selfExpansions = new WeakMap<Vertex, SelfExpansion[]>();

function noteSelfExpansion(v: Vertex, r: Vertex, c: Conjunct): void {
  // Found first without allocating: most references point outside the struct.
  let a: Vertex | undefined = r;
  while (a !== undefined && a !== v) a = a.parent;
  if (a === undefined) return;
  const path: Vertex[] = [];
  for (let p: Vertex | undefined = r; p !== v && p !== undefined; p = p.parent) path.push(p);
  path.reverse();
  const x: SelfExpansion = { c, path, lens: path.map((p) => p.conjuncts.length) };
  const xs = selfExpansions.get(v);
  if (xs === undefined) selfExpansions.set(v, [x]);
  else xs.push(x);
}

/**
 * A reference from `reader` to a vertex inside a struct still being collected (`x: y.a` read while
 * `y` is collected, as in `y: x.a, x: y.a`): when the vertices on the way get more conjuncts before
 * that struct is done, the reader holds less than they do (see evaluate.ts, `checkForeignReads`).
 */
export interface ForeignRead extends SelfExpansion {
  readonly reader: Vertex;
}

/** The foreign reads of each struct being collected (see ForeignRead). */
export const foreignReads = new WeakMap<Vertex, ForeignRead[]>();

function noteForeignRead(v: Vertex, r: Vertex, c: Conjunct): void {
  // Found first without allocating: most expansions read no struct still being collected.
  let a = r.parent;
  while (a !== undefined && a.status !== COLLECTING) a = a.parent;
  if (a === undefined || a === v) return;
  // A reader inside that struct is evaluated with it (a sibling read while it is collected).
  for (let p = v.parent; p !== undefined; p = p.parent) if (p === a) return;
  const path: Vertex[] = [];
  for (let p: Vertex | undefined = r; p !== a && p !== undefined; p = p.parent) path.push(p);
  path.reverse();
  const x: ForeignRead = { c, path, lens: path.map((p) => p.conjuncts.length), reader: v };
  const xs = foreignReads.get(a);
  if (xs === undefined) foreignReads.set(a, [x]);
  else xs.push(x);
}

/**
 * Whether a regular field's own struct literal embeds a definition (`a: {x: q: 2, #D}`): such a
 * struct is closed like a definition, so a reference to it closes recursively (cue's
 * ClosedRecursive), though the field itself keeps its nested structs open.
 */
/**
 * Whether a reference names a definition (cue's IsDef): `#A`, `#A.b`, `x.#B`, or resolves to a
 * definition's own vertex. A reference to a plain field inside a definition (`b` beside it) does
 * not.
 */
function refNamesDefinition(e: ast.Expr | undefined, r: Vertex): boolean {
  if (r.isDefinition()) return true;
  for (let x = e; x !== undefined; ) {
    switch (x.kind) {
      case "Ident":
        return isDefinitionName(x.name);
      case "Selector":
        if (x.sel.kind === "Ident" && isDefinitionName(x.sel.name)) return true;
        x = x.expr;
        break;
      case "Index":
        x = x.expr;
        break;
      default:
        return false;
    }
  }
  return true;
}

function embedsDefinition(r: Vertex): boolean {
  const cs = r.conjuncts;
  for (let i = 0; i < cs.length; i++) {
    const e = (cs[i] as Conjunct).expr;
    if (e !== undefined && e.kind === "Struct" && (infoOf(e) & CLOSING_EMBED) !== 0) return true;
  }
  return false;
}

// The expansions in progress, innermost last: (vertex, referenced vertex) pairs. A reference cycle
// re-enters an expansion of the same pair.
const expStackV: Vertex[] = [];
const expStackR: Vertex[] = [];

function isExpanding(v: Vertex, r: Vertex): boolean {
  for (let i = expStackV.length - 1; i >= 0; i--) if (expStackV[i] === v && expStackR[i] === r) return true;
  return false;
}

/**
 * Whether `r` is being expanded into a value written inside an expression (a list or struct
 * argument, `a: list.Concat([["3"], a])`) while an outer expansion of `r` is still running: each
 * expansion evaluates the expression that makes the next one, so the value contains itself (cue: a
 * structural cycle). This holds whether `r` is itself being evaluated or was evaluated already
 * (`b: and([for x in a {x}])` expanded into another field re-runs its call each time). A let
 * clause's value counts as written inside the expression too.
 */
function reentersInProgress(v: Vertex, r: Vertex): boolean {
  if (r.status === NEW || !expStackR.includes(r)) return false;
  for (let a: Vertex | undefined = v; a !== undefined; a = a.parent) if (a.isLet) return true;
  return false;
}

/**
 * Whether `v` is the field that a conjunct of `r` selects from the inline struct `v` is in
 * (`x: {a: x}.a`): `v` is `r`'s own value, so a reference to `r` there is a reference cycle (cue: `_`).
 */
function projectedBy(v: Vertex, r: Vertex): boolean {
  const w = v.parent;
  if (w === undefined || !isInline(w) || w.conjuncts.length !== 1) return false;
  const lit = w.conjuncts[0]?.expr;
  for (const x of r.conjuncts) {
    const e = x.expr;
    if (e?.kind === "Selector" && e.expr === lit && e.sel.kind === "Ident" && e.sel.name === v.label)
      return true;
  }
  return false;
}

/** A struct written in an expression (`(f & {n: 1}).out`), evaluated where the expression is. */
function isInline(v: Vertex): boolean {
  return v.isLet && v.label === "";
}

/**
 * Whether a reference is written in the body of a `for` comprehension: a template applied to each
 * element of the data it walks (`for v in param {(#Copy & {param: v}).result}`) recurses as deep
 * as the data, which cue evaluates.
 */
function iterating(env: import("./vertex.js").Frame): boolean {
  for (let f: import("./vertex.js").Frame | undefined = env; f !== undefined; f = f.up) {
    if (f.binds !== undefined && f.binds.size > 0) return true;
  }
  return false;
}

// The references each inline struct expanded (only inline structs are recorded).
const inlineRefs = new WeakMap<Vertex, ast.Expr[]>();

/**
 * Whether an inline struct expands a reference that an enclosing inline struct expanded already,
 * with another one in between: the same written reference, reached again through the bodies it
 * brought in (`fib: {out: (fibRec & {…}).out}`, `fibRec: {out: (fib & {…}).out}`), which cue
 * reports as a structural cycle. Records the reference otherwise.
 */
function inlineRecursion(v: Vertex, ref: ast.Expr): boolean {
  // Only through another reference in between: a template applied to its own parts directly
  // (`(#Copy & {param: v}).result` inside #Copy) recurses as deep as the data, as in cue.
  let other = false;
  for (let a = v.parent; a !== undefined; a = a.parent) {
    if (!isInline(a)) continue;
    const refs = inlineRefs.get(a);
    if (refs === undefined) continue;
    if (refs.includes(ref)) {
      if (other) return true;
    } else other = true;
  }
  const list = inlineRefs.get(v);
  if (list === undefined) inlineRefs.set(v, [ref]);
  else if (!list.includes(ref)) list.push(ref);
  return false;
}

/** Whether `a` has expanded a reference to `r` (structural cycle detection). */
export function hasExpanded(a: Vertex, r: Vertex): boolean {
  const ex = a.expanded;
  return ex === r || (Array.isArray(ex) && ex.includes(r));
}

/** The value of `r` if it is (or evaluates to) a plain scalar, else undefined. */
export function scalarValueOf(r: Vertex): Value | undefined {
  if (r.status === COLLECTING) {
    engine().cycles++;
    engine().refCycles++;
    return undefined;
  }
  evaluate(r);
  // A value computed while a field it refers to was in progress (a reference cycle) is
  // provisional: the conjuncts are unified instead (`b: (0 | *1) & a` keeps its default mark).
  if (r.refCyclic) return undefined;
  if (
    r.status !== EVALUATED ||
    r.isList ||
    r.structMark !== 0 ||
    r.arcs !== undefined ||
    r.disj !== undefined
  ) {
    return undefined;
  }
  for (const c of r.conjuncts) if (c.expr?.kind === "Alias") return undefined;
  return r.err ?? r.scalar;
}

/** Unifies a vertex that has no conjuncts (built by a builtin) by copying its evaluated state. */
function copyEvaluated(v: Vertex, r: Vertex, c: Conjunct): void {
  if (r.err !== undefined) setErr(v, r.err);
  if (r.isList) {
    v.isList = true;
    v.listParts = appendTo(v.listParts, {
      len: r.listLen,
      open: r.listOpen,
      rest: undefined,
      env: c.env,
      ctx: NO_CLOSE,
      pos: c.pos,
    });
  } else if (r.structMark > 0) {
    v.structMark = Math.max(v.structMark, r.structMark);
  } else if (r.scalar.t !== "top") {
    meetScalar(v, r.scalar, c.pos);
  }
  if (r.arcs === undefined) return;
  for (const [label, a] of r.arcs) {
    const dst = newArc(v, label);
    if (a.fieldType < dst.fieldType) dst.fieldType = a.fieldType;
    dst.addConj({
      expr: undefined,
      env: c.env,
      ctx: NO_CLOSE,
      value: { t: "vertex", v: a },
      pos: c.pos,
      embed: false,
    });
    if (a.conjuncts.length === 0 && !(a.isList || a.structMark > 0)) {
      dst.conjuncts.pop();
      dst.addConj({ expr: undefined, env: c.env, ctx: NO_CLOSE, value: a.scalar, pos: c.pos, embed: false });
    }
  }
}

/** The arc `label` of `v`, applying pattern constraints if they were already applied to others. */
export function newArc(v: Vertex, label: string): Vertex {
  const existing = v.arcs?.get(label);
  if (existing !== undefined) return existing.isShared ? unshare(v, existing) : existing;
  const a = v.arc(label);
  if (v.patternsApplied) applyPatternsToArc(v, a);
  return a;
}

/** Replaces a shared leaf arc of `v` by a private copy that may be modified. */
export function unshare(v: Vertex, s: Vertex): Vertex {
  const a = new Vertex(v, s.label);
  a.conjuncts = s.conjuncts;
  a.fieldType = s.fieldType;
  a.declPos = s.declPos;
  v.arcs?.set(s.label, a);
  return a;
}

// Separate caches for fields reached through a definition reference (closedness contexts) and
// fields used directly: the conjunct keeps telling which one it was (user positions come first).
// Entries remember the root vertex (one per compile or unify) they were made under: a leaf is only
// shared within one evaluation, so that a long-lived schema does not keep old documents alive.
// A null leaf: the field can never be shared (under that root).
const sharedLeaves = new WeakMap<ast.Field, { top: WeakRef<Vertex>; leaf: Vertex | null }>();
const sharedClosedLeaves = new WeakMap<ast.Field, { top: WeakRef<Vertex>; leaf: Vertex | null }>();

function rootOf(v: Vertex): Vertex {
  let r = v;
  while (r.parent !== undefined) r = r.parent;
  return r;
}

/**
 * A shared, already evaluated leaf for a regular field whose value is a constant expression, or
 * undefined when the field cannot be shared (bindings in scope, non-constant or erroneous value).
 */
function sharedLeaf(
  d: ast.Field,
  env: import("./vertex.js").Frame,
  label: string,
  ctx: CloseSet,
): Vertex | undefined {
  if (d.constraint !== "regular") return undefined;
  const x = d.value;
  const isRef = x.kind === "Ident" || x.kind === "Selector";
  if (isRef ? !namesDefinition(x) : x.kind !== "Binary" && x.kind !== "Unary") return undefined;
  const cache = ctx.length === 0 ? sharedLeaves : sharedClosedLeaves;
  const top = rootOf(env.vertex);
  const cached = cache.get(d);
  if (cached !== undefined && cached.top.deref() === top) {
    return cached.leaf !== null && cached.leaf.label === label ? cached.leaf : undefined;
  }
  for (let f: import("./vertex.js").Frame | undefined = env; f !== undefined; f = f.up) {
    if (f.binds !== undefined) return undefined;
  }
  if (isRef) {
    const r = definitionLeaf(d, x as ast.Ident | ast.Selector, env, label, ctx);
    if (r !== undefined) cache.set(d, { top: new WeakRef(top), leaf: r });
    return r ?? undefined;
  }
  const k = constValue(x, env);
  if (k === undefined || k.t === "bottom" || k.t === "vertex") return undefined;
  const s = new Vertex(undefined, label);
  s.fieldType = REGULAR;
  s.conjuncts = [{ expr: x, env, ctx: childCtx(ctx, label), value: undefined, pos: x.pos, embed: false }];
  s.declPos = d.label.pos;
  s.scalar = k;
  s.scalarPos = x.pos;
  s.status = EVALUATED;
  s.isShared = true;
  cache.set(d, { top: new WeakRef(top), leaf: s });
  return s;
}

/**
 * A field whose value is a reference to a top-level definition (`flap: #Flap`): one shared vertex
 * that borrows the definition's evaluated arcs (see share.ts), for every instance. Only once the
 * definition has been evaluated and found shareable (the first use evaluates it the ordinary way);
 * null when it never can be, undefined when not yet.
 */
function definitionLeaf(
  d: ast.Field,
  x: ast.Ident | ast.Selector,
  env: import("./vertex.js").Frame,
  label: string,
  ctx: CloseSet,
): Vertex | null | undefined {
  if (x.kind !== "Ident") return null;
  const def = topLevelArc(x.name, env);
  if (def === null || def === undefined) return def;
  if (def.isLet || !inDefinition(def)) return null;
  if (def.status !== EVALUATED || def.shareState === 0) return undefined;
  if (def.shareState !== 1 || def.isList || def.structMark !== 2 || def.disj !== undefined) return null;
  const s = new Vertex(undefined, label);
  s.fieldType = REGULAR;
  s.conjuncts = [{ expr: x, env, ctx: childCtx(ctx, label), value: undefined, pos: x.pos, embed: false }];
  s.declPos = d.label.pos;
  borrow(s, def);
  s.status = EVALUATED;
  s.isShared = true;
  return s;
}

/**
 * The field `name` refers to from `env` when that is a field of an evaluated root (a definition of
 * the file, the same for every instance); null when the name is declared closer or by a binding;
 * undefined when the root is still being evaluated. Looks only: creates no arc.
 */
function topLevelArc(name: string, env: import("./vertex.js").Frame): Vertex | null | undefined {
  for (let f: import("./vertex.js").Frame | undefined = env; f !== undefined; f = f.up) {
    if (f.binds?.has(name)) return null;
    let label: string | undefined;
    if (f.lit !== undefined) {
      const decl = lookupDecl(f.lit, name);
      if (decl !== undefined) label = typeof decl === "string" ? decl : undefined;
      if (decl !== undefined && label === undefined) return null;
    }
    if (label === undefined) {
      const e = f.scope?.get(name);
      if (e !== undefined) {
        if (e.t !== "field") return null;
        label = e.label;
      }
    }
    if (label !== undefined) {
      if (f.vertex.parent !== undefined) return null;
      if (f.vertex.status !== EVALUATED) return undefined;
      return f.vertex.arcs?.get(label) ?? null;
    }
    if (f.imports?.has(name)) return null;
  }
  return null;
}

function isClosingEmbed(e: ast.Expr): boolean {
  switch (e.kind) {
    case "Ident":
      return isDefinitionName(e.name);
    case "Selector":
      return e.sel.kind === "Ident" && e.sel.name.startsWith("#");
    case "Call":
      return e.fn.kind === "Ident" && e.fn.name === "close";
    case "Paren":
      return isClosingEmbed(e.expr);
    default:
      return false;
  }
}

/**
 * A struct literal that only embeds a conjunction of definitions (`{#A & #B}`) is that
 * conjunction, as in cue: each definition closes the struct, so it allows only what all of them
 * do (as one embedding among others, they would only add to what the struct allows).
 */
function soleClosingAnd(lit: ast.StructLit, c: Conjunct): ast.Expr | undefined {
  if (lit.decls.length !== 1 || c.open === true) return undefined;
  const d = lit.decls[0] as ast.Decl;
  if (d.kind !== "Embed") return undefined;
  let e = d.expr;
  while (e.kind === "Paren") e = e.expr;
  if (e.kind !== "Binary" || e.op !== "&" || !andOfDefinitions(e)) return undefined;
  return isExplicitOpen(c.env) ? undefined : e;
}

function andOfDefinitions(e: ast.Expr): boolean {
  if (e.kind === "Paren") return andOfDefinitions(e.expr);
  if (e.kind === "Binary" && e.op === "&") return andOfDefinitions(e.left) || andOfDefinitions(e.right);
  return isClosingEmbed(e);
}

/** Embeddings that contribute fields are unified in declaration order (it decides field order). */
function isStructural(e: ast.Expr): boolean {
  switch (e.kind) {
    case "Struct":
    case "Ident":
    case "Selector":
      return true;
    case "Call":
      return e.fn.kind === "Ident" && e.fn.name === "close";
    case "Paren":
      return isStructural(e.expr);
    default:
      return false;
  }
}

// What a struct literal is, as bits: STRONG (it declares a regular field, `...`, or nothing but
// is not only embeddings), CLOSING_EMBED (it embeds a definition or `close()`), EMBEDS (it embeds
// an expression).
const STRONG = 1;
const CLOSING_EMBED = 2;
const EMBEDS = 4;

// Only large literals are cached: for the small ones that make up most documents, scanning the
// declarations is cheaper than a WeakMap lookup (and the insertion it needs the first time).
const litInfo = new WeakMap<ast.StructLit, number>();

function infoOf(lit: ast.StructLit): number {
  const decls = lit.decls;
  const big = decls.length > 12;
  if (big) {
    const known = litInfo.get(lit);
    if (known !== undefined) return known;
  }
  let embeds = 0;
  let fields = 0;
  let closingEmbed = false;
  let embedDecls = false;
  for (let i = 0; i < decls.length; i++) {
    const d = decls[i] as ast.Decl;
    switch (d.kind) {
      case "Embed":
        embeds++;
        embedDecls = true;
        if (isClosingEmbed(d.expr)) closingEmbed = true;
        else if (d.expr.kind === "Struct" && (infoOf(d.expr) & CLOSING_EMBED) !== 0) closingEmbed = true;
        break;
      case "Comprehension":
        embeds++;
        break;
      case "Ellipsis":
        // `{..., #foo: string, _}` embeds a value: like a definition, `...` does not make it a
        // struct (cue: unified with `{string, #foo: "bar"}` it is that string).
        break;
      case "Field": {
        const name = identLabel(d);
        if (name === undefined || fields > 0) fields++;
        else if (identKind(name) === "regular") fields++;
        break;
      }
      default:
        break;
    }
  }
  const info =
    (fields > 0 || embeds === 0 ? STRONG : 0) |
    (closingEmbed ? CLOSING_EMBED : 0) |
    (embedDecls ? EMBEDS : 0);
  if (big) litInfo.set(lit, info);
  return info;
}

/**
 * Where a field's label starts: the field's own position unless an alias comes first (reading
 * `label` of a `name: value` field makes a node, which a position would keep alive).
 */
function labelPos(d: ast.Field): Pos {
  return d.alias === undefined ? d.pos : d.label.pos;
}

function fieldType(d: ast.Field): number {
  return d.constraint === "optional" ? OPTIONAL : d.constraint === "required" ? REQUIRED : REGULAR;
}

/** Adds a field declaration `label: value` to `v`. */
/**
 * Structs whose own fields are all collected while their comprehensions run: an optional field of
 * theirs that has no regular conjunct by then is absent (`if a != _|_` on `a?: int` is false).
 */
export const fieldsCollected = new Set<Vertex>();

/**
 * Fields that a dynamic label or a comprehension added to after they were evaluated: evaluating
 * them again (not only referencing them) redoes them (see `evaluate`).
 */
export const lateFields = new WeakSet<Vertex>();

/** Above 0 while the output of a struct's comprehension is being added (see `addField`). */
let comprehensionOutput = 0;

/** Runs `f` as the addition of a comprehension's output. */
export function asComprehensionOutput(f: () => void): void {
  comprehensionOutput++;
  try {
    f();
  } finally {
    comprehensionOutput--;
  }
}

export function addField(
  v: Vertex,
  name: string,
  d: ast.Field,
  env: import("./vertex.js").Frame,
  ctx: CloseSet,
  dynamic = false,
  from?: Conjunct,
  emb: EmbMark | undefined = from?.emb,
): void {
  if (!dynamic && v.arcs?.get(name) === undefined && !v.patternsApplied) {
    const s = sharedLeaf(d, env, name, ctx);
    if (s !== undefined) {
      v.arcs ??= new Map();
      v.arcs.set(name, s);
      return;
    }
  }
  const a = newArc(v, name);
  const ft = fieldType(d);
  if (ft < a.fieldType) a.fieldType = ft;
  a.addConj({
    expr: d.value,
    env,
    ctx: childCtx(ctx, name),
    value: undefined,
    pos: d.value.pos,
    embed: false,
    refs: from?.refs,
    cyc: ft === OPTIONAL ? optionalCyc(from?.cyc) : from?.cyc,
    emb,
  });

  // A dynamic label or a comprehension may add to a field that was already evaluated (its value
  // decided the label, or the comprehension read it): it is evaluated again with the new conjunct.
  // So is a field embedded into its own struct (`foo: {…}, foo`), which gains what it embeds.
  // (Other embeddings that add late keep the earlier value: their closedness is not redone by a
  // refresh.)
  if (
    a.status === EVALUATED &&
    (dynamic || comprehensionOutput > 0 || expStackR.includes(a) || incompleteEmbeds.has(v))
  ) {
    a.lateConjuncts = true;
    lateFields.add(a);
  }
  // Declarations outside definitions (the user's) come first in positions.
  const pos = labelPos(d);
  a.declPos = ctx.length === 0 ? prependPos(a.declPos, pos) : appendPos(a.declPos, pos);
  if (dynamic) closeExtra(v, ctx, name);
}

function addStruct(v: Vertex, lit: ast.StructLit, c: Conjunct): void {
  const frame = newFrame(c.env, v, lit);
  const info = infoOf(lit);
  // With explicitopen, embedding is unification: an embedded definition closes this struct
  // itself (through its own context), and the embedding keeps the embed mark of the struct.
  const explicit = isExplicitOpen(c.env);
  let ctx = c.ctx;
  if ((info & CLOSING_EMBED) !== 0 && !c.embed && !explicit && c.open !== true) {
    const cc = new CloseCtx(false);
    cc.fromEmbed = true;
    ctx = withCtx(ctx, cc);
  }
  const embed = explicit ? c.embed : true;
  if (c.andScope !== undefined && !c.andScope.lits.includes(lit)) c.andScope.lits.push(lit);
  const mark = (info & STRONG) !== 0 ? 2 : 1;
  if (mark > v.structMark) v.structMark = mark;
  closeLit(v, ctx, lit);
  let hasEmbed = false;
  // Where this literal's fields and embeddings stand among embeddings (see EmbMark).
  const ownEmb = c.emb ?? ((info & EMBEDS) !== 0 && !explicit ? { s: lit, e: undefined } : undefined);
  for (const d of lit.decls) {
    switch (d.kind) {
      case "Field": {
        // The name without making a label node (`name: value` fields make one per read).
        const name = identLabel(d);
        if (name !== undefined) {
          addField(v, name, d, frame, ctx, false, c, ownEmb);
          break;
        }
        const l = d.label;
        switch (l.kind) {
          case "String":
            addField(v, strLabel(l.value), d, frame, ctx, false, c, ownEmb);
            break;
          case "PatternLabel": {
            const p = { field: d, label: l, env: frame, ctx, refs: c.refs, cyc: c.cyc, pattern: undefined };
            v.patterns = appendTo(v.patterns, p);
            closePattern(v, ctx, p);
            if (v.patternsApplied && v.arcs !== undefined) {
              for (const a of v.arcs.values()) applyPatternsToArc(v, a, p);
            }
            break;
          }
          default:
            v.deferred = appendTo(v.deferred, { decl: d, env: frame, ctx });
            break;
        }
        break;
      }
      case "Embed":
        if (isStructural(d.expr) && !namesLaterField(d.expr, lit, d)) {
          addEmbedding(v, lit, embedded(d.expr, frame, ctx, embed, c.open, c, ownEmb));
        } else hasEmbed = true;
        break;
      case "Comprehension":
        v.deferred = appendTo(v.deferred, { decl: d, env: frame, ctx });
        break;
      case "Ellipsis":
        v.hasEllipsis = true;
        closeOpen(v, ctx);
        break;
      case "BadDecl":
        setErr(v, bottom("syntax", "invalid declaration", [d.pos]));
        break;
      case "Let":
      case "Attribute":
        break;
      default: {
        const never: never = d;
        throw new Error(`unexpected declaration ${String(never)}`);
      }
    }
  }
  if (hasEmbed) {
    // Embeddings after the fields: they may refer to fields declared later in the literal.
    for (const d of lit.decls) {
      if (d.kind === "Embed" && (!isStructural(d.expr) || namesLaterField(d.expr, lit, d))) {
        addEmbedding(v, lit, embedded(d.expr, frame, ctx, embed, c.open, c, ownEmb));
      }
    }
  }
}

/**
 * Whether an embedded reference names a field its own literal declares after it (`{#S, #S: {…}}`):
 * it is unified once the literal's fields are in, or it would find the field still empty.
 */
function namesLaterField(e: ast.Expr, lit: ast.StructLit, at: ast.Decl): boolean {
  let x = e;
  while (x.kind === "Selector") x = x.expr;
  if (x.kind !== "Ident" || !staticLabels(lit).has(x.name)) return false;
  for (const d of lit.decls) {
    if (d === at) return true;
    if (d.kind === "Field" && identLabel(d) === x.name) return false;
  }
  return false;
}

/** The conjunct of an embedding (`open` only when set, so that the common shape stays one). */
function embedded(
  expr: ast.Expr,
  env: import("./vertex.js").Frame,
  ctx: CloseSet,
  embed: boolean,
  open: boolean | undefined,
  from: Conjunct,
  m: EmbMark | undefined,
): Conjunct {
  const refs = from.refs;
  const cyc = from.cyc;
  // An embedding of a struct: a new scope inside the struct's (see EmbMark).
  const emb = m === undefined || !embed ? undefined : { s: m.s, e: { parent: m.e } };
  return open === undefined
    ? { expr, env, ctx, value: undefined, pos: expr.pos, embed, refs, cyc, emb }
    : { expr, env, ctx, value: undefined, pos: expr.pos, embed, refs, cyc, open, emb };
}

/** The error for `x...` in a file that does not enable the experiment. */
export function postfixWithoutExperiment(x: ast.Postfix): BottomV {
  return bottom("eval", "postfix ... requires @experiment(explicitopen)", [x.pos]);
}

function addList(v: Vertex, lit: ast.ListLit, c0: Conjunct): void {
  v.isList = true;
  // With aliasv2, a list literal is a block: `self` in its elements is the list.
  const c: Conjunct = usesAliasV2(c0.env)
    ? {
        ...c0,
        env: {
          up: c0.env,
          vertex: v,
          scope: undefined,
          lit: undefined,
          binds: undefined,
          lets: undefined,
          imports: undefined,
          list: true,
        },
      }
    : c0;
  let idx = 0;
  for (const el of lit.elems) {
    if (el.kind === "Comprehension") {
      runComprehension(v, el, c.env, (f, body) => {
        const a = newArc(v, String(idx));
        a.fieldType = REGULAR;
        a.addConj({
          expr: body,
          env: f,
          ctx: childCtx(c.ctx, String(idx)),
          value: undefined,
          pos: body.pos,
          embed: false,
          refs: c.refs,
          cyc: c.cyc,
        });
        idx++;
      });
      continue;
    }
    const a = newArc(v, String(idx));
    a.fieldType = REGULAR;
    a.addConj({
      expr: el,
      env: c.env,
      ctx: childCtx(c.ctx, String(idx)),
      value: undefined,
      pos: el.pos,
      embed: false,
      refs: c.refs,
      cyc: c.cyc,
    });
    a.declPos = appendPos(a.declPos, el.pos);
    idx++;
  }
  v.listParts = appendTo(v.listParts, {
    len: idx,
    open: lit.ellipsis !== undefined,
    rest: lit.ellipsis?.type,
    env: c.env,
    ctx: c.ctx,
    pos: lit.pos,
    refs: c.refs,
    cyc: c.cyc,
  });
}
