/**
 * Disjunctions on vertices. While collecting, a disjunction is flattened into terms (with default
 * marks per the spec's M/D rules) and left pending. After collection:
 *  - terms whose literal discriminator fields (e.g. `type: "http"`) conflict with a concrete field
 *    already present are dropped without evaluating them (the fast path for tagged unions);
 *  - if every pending disjunction has one term left, it is unified in place;
 *  - scalar-only disjunctions become a disjunction value;
 *  - otherwise each combination is evaluated in a clone of the vertex; failing clones are
 *    eliminated, and the vertex adopts the single survivor or becomes a disjunction of them.
 */

import type * as ast from "../syntax/ast.js";
import type { Pos } from "../syntax/position.js";
import { addConjunct, appendTo, inDefinition, meetScalar, scalarValueOf, setErr } from "./collect.js";
import { combineStep, IS, MAYBE, NOT } from "./default-modes.js";
import { discriminated } from "./discriminator.js";
import { engine } from "./engine.js";
import { equalVertex } from "./equal.js";
import type { ErrCode } from "./errors.js";
import { evaluate, firstError, firstErrorPath } from "./evaluate.js";
import { disjunctsInProgress, evalExpr, resolveRef } from "./expr.js";
import { makeDisj } from "./meet.js";
import { type BottomV, bottom, type DisjV, type Value } from "./values.js";
import {
  CloseCtx,
  type CloseSet,
  type Conjunct,
  CYC_OPTIONAL,
  type EmbMark,
  EVALUATED,
  type Frame,
  NO_CLOSE,
  REGULAR,
  type RefLink,
  Vertex,
} from "./vertex.js";

/** One alternative of a flattened disjunction. */
export interface Term {
  readonly expr: ast.Expr | undefined;
  readonly env: Frame;
  readonly def: boolean;
  /**
   * The term's conjunct when it is not the usual one (`expr` in `env` with the disjunction's own
   * contexts): alternatives reached through a reference to another disjunction, and value terms.
   */
  readonly c: Conjunct | undefined;
  /** The term's discriminator literals, cached by the discriminator (null: none). */
  lits: ReadonlyMap<string, Value> | null | undefined;
  /**
   * For a term of a nested disjunction with defaults of its own that is a marked alternative of
   * the outer one (`*(*"a" | string) | string`): that nested disjunction. See DisjV.groups.
   */
  readonly group?: object;
}

/** A disjunction met while collecting a vertex. */
export interface PendingDisj {
  readonly node: ast.Node;
  readonly occ: number;
  readonly terms: readonly Term[];
  readonly hasDefault: boolean;
  /** The closedness contexts of the conjunct the disjunction came from. */
  readonly ctx: CloseSet;
  /** The cycle history of that conjunct (see Conjunct.refs): a chosen term continues it. */
  readonly refs: RefLink | undefined;
  readonly cyc: number | undefined;
  /** The environment the disjunction was written in (twins share it). */
  readonly env: Frame;
  /** Set when the disjunction was embedded (`{name: string, #A | #B}`): its terms are embedded too. */
  readonly embed?: boolean;
  readonly emb?: EmbMark;
  /**
   * The same disjunction reached again at this vertex in the same environment (`{#ref, #ref}`, or
   * a definition reached through two references): it takes the choice this one takes (see
   * {@link addDisjunction}).
   */
  twins?: PendingDisj[];
}

/** The conjunct to unify for a chosen term. */
export function termConj(p: PendingDisj, t: Term): Conjunct {
  // A disjunct is an optional position for cycle detection (cue's setOptional).
  const cyc = p.cyc === undefined || p.cyc === 0 ? CYC_OPTIONAL : p.cyc;
  if (t.c !== undefined)
    return p.embed === true
      ? { ...t.c, refs: p.refs, cyc, embed: true, emb: p.emb }
      : { ...t.c, refs: p.refs, cyc };
  const out: Conjunct = {
    expr: t.expr,
    env: t.env,
    ctx: p.ctx,
    value: undefined,
    pos: termPos(t),
    embed: false,
    refs: p.refs,
    cyc,
  };
  return p.embed === true ? { ...out, embed: true, emb: p.emb } : out;
}

function termPos(t: Term): Pos {
  return t.c?.pos ?? (t.expr as ast.Expr).pos;
}

interface Flat {
  readonly terms: Term[];
  readonly hasDefault: boolean;
  /** Every term uses the disjunction's own contexts (`c` unset), so the result can be cached. */
  uniform: boolean;
  /** The vertices references resolved to, with their conjuncts then: a cached result is reused only while they are unchanged. */
  readonly deps: (Vertex | Conjunct[])[];
}

function splitAlts(e: ast.Expr, out: { expr: ast.Expr; marked: boolean }[]): void {
  if (e.kind === "Binary" && e.op === "|") {
    splitAlts(e.left, out);
    splitAlts(e.right, out);
    return;
  }
  if (e.kind === "Unary" && e.op === "*") {
    out.push({ expr: e.expr, marked: true });
    return;
  }
  out.push({ expr: e, marked: false });
}

function isDisjExpr(e: ast.Expr | undefined): boolean {
  if (e === undefined) return false;
  if (e.kind === "Paren") return isDisjExpr(e.expr);
  return e.kind === "Binary" && e.op === "|";
}

function unparen(e: ast.Expr): ast.Expr {
  return e.kind === "Paren" ? unparen(e.expr) : e;
}

/**
 * Adds the terms of one alternative to `out`. A reference to a disjunction is expanded in place,
 * unless it refers to a vertex already on the expansion chain (`c: c | c`): such a term is a self
 * reference, which contributes nothing (`_`), so expanding it again would only multiply identical
 * terms.
 */
function expandAlt(
  e: ast.Expr,
  env: Frame,
  ctx: CloseSet,
  depth: number,
  out: Flat,
  marked: boolean,
  anyMarked: boolean,
  chain: readonly Vertex[],
): void {
  const x = unparen(e);
  if (x.kind === "Binary" && x.op === "|") {
    addSub(out, flattenInner(x, env, ctx, depth + 1, out.deps, chain), ctx, ctx, marked, anyMarked);
    return;
  }
  if ((x.kind === "Ident" || x.kind === "Selector") && depth < 20) {
    const r = resolveRef(x, env);
    if (r.t === "vertex") {
      out.deps.push(r.v, r.v.conjuncts);
      // The result depends on the chain (the vertex being evaluated): not cached.
      if (chain.includes(r.v)) out.uniform = false;
      else if (r.v.conjuncts.length === 1) {
        const rc = r.v.conjuncts[0];
        if (rc !== undefined && rc.value === undefined && isDisjExpr(rc.expr)) {
          let nctx: CloseSet = rc.ctx.length === 0 ? ctx : ctx.concat(rc.ctx);
          if (!r.v.isLet && inDefinition(r.v)) nctx = [...nctx, new CloseCtx(true)];
          const sub = flattenInner(
            unparen(rc.expr as ast.Expr),
            rc.env,
            nctx,
            depth + 1,
            out.deps,
            chain.concat([r.v]),
          );
          addSub(out, sub, nctx, ctx, marked, anyMarked);
          return;
        }
      }
    }
  }
  out.terms.push({ expr: x, env, def: marked, c: undefined, lits: undefined });
}

/** Adds the terms of a nested disjunction, with the default rules (spec: M and D). */
function addSub(
  out: Flat,
  sub: Flat,
  subCtx: CloseSet,
  ctx: CloseSet,
  marked: boolean,
  anyMarked: boolean,
): void {
  if (!sub.uniform || subCtx !== ctx) out.uniform = false;
  // A nested disjunction with defaults of its own, one alternative of a marked outer one.
  const grouped = sub.hasDefault && sub.terms.length > 1 && marked;
  for (const t of sub.terms) {
    let def: boolean;
    if (marked) def = sub.hasDefault ? t.def : true;
    else if (anyMarked) def = false;
    else def = sub.hasDefault ? t.def : false;
    const c =
      t.c ??
      (subCtx === ctx
        ? undefined
        : { expr: t.expr, env: t.env, ctx: subCtx, value: undefined, pos: termPos(t), embed: false });
    if (grouped || t.group !== undefined) {
      out.terms.push({
        expr: t.expr,
        env: t.env,
        def,
        c,
        lits: undefined,
        group: t.group ?? sub,
      });
    } else out.terms.push({ expr: t.expr, env: t.env, def, c, lits: undefined });
  }
}

const altCache = new WeakMap<ast.Expr, { expr: ast.Expr; marked: boolean }[]>();

function flattenInner(
  e: ast.Expr,
  env: Frame,
  ctx: CloseSet,
  depth: number,
  deps: Flat["deps"],
  chain: readonly Vertex[],
): Flat {
  let alts = altCache.get(e);
  if (alts === undefined) {
    alts = [];
    splitAlts(e, alts);
    altCache.set(e, alts);
  }
  let anyMarked = false;
  for (const a of alts) if (a.marked) anyMarked = true;
  const out: Flat = { terms: [], hasDefault: false, uniform: true, deps };
  for (const a of alts) expandAlt(a.expr, env, ctx, depth, out, a.marked, anyMarked, chain);
  let hasDefault = false;
  for (const t of out.terms) if (t.def) hasDefault = true;
  return { ...out, hasDefault };
}

/**
 * Flattened disjunctions are cached per syntax node and environment when every term uses the
 * disjunction's own contexts: `check: #Check` then costs no allocation per use beyond the pending
 * record. The cache entry is checked against the vertices its references resolved to (and is not
 * used for one of them, whose self references would not be expanded).
 */
const flatCache = new WeakMap<ast.Expr, { env: Frame; flat: Flat }>();

function flattenExpr(e: ast.Expr, env: Frame, ctx: CloseSet, v: Vertex): Flat {
  const hit = flatCache.get(e);
  if (hit !== undefined && hit.env === env && depsUnchanged(hit.flat.deps, v)) return hit.flat;
  // A disjunct of `v` flattens as `v` did: a term naming `v` stays a self reference there too.
  const flat = flattenInner(e, env, ctx, 0, [], v.cloneOf === undefined ? [v] : [v, v.cloneOf]);
  if (flat.uniform) flatCache.set(e, { env, flat });
  return flat;
}

function depsUnchanged(deps: Flat["deps"], self: Vertex): boolean {
  for (let i = 0; i < deps.length; i += 2) {
    const v = deps[i] as Vertex;
    if (v === self || v.conjuncts !== deps[i + 1]) return false;
    if (v.parent !== undefined && !v.isLet && v.parent.arcs?.get(v.label) !== v) return false;
  }
  return true;
}

function nextOcc(v: Vertex, node: ast.Node): number {
  const seen = v.seen;
  let n = 0;
  if (seen === undefined) v.seen = [node];
  else {
    for (const x of seen) if (x === node) n++;
    v.seen = seen.concat([node]);
  }
  return n;
}

/** Records a disjunction expression met while collecting `v`. */
export function addDisjunction(v: Vertex, c: Conjunct): void {
  const node = c.expr as ast.Expr;
  const occ = nextOcc(v, node);
  const flat = flattenExpr(node, c.env, c.ctx, v);
  const p0: PendingDisj = {
    node,
    occ,
    terms: flat.terms,
    hasDefault: flat.hasDefault,
    ctx: c.ctx,
    refs: c.refs,
    cyc: c.cyc,
    env: c.env,
  };
  const p: PendingDisj = c.embed ? { ...p0, embed: true, emb: c.emb } : p0;
  // The same disjunction met again in the same environment is the same value unified again: cue
  // unifies a vertex into a node once (adt/conjunct.go), so it takes the same alternative rather
  // than multiplying (`{#ref, #ref}` with `#ref: {a: 1} | {b: 2}` has no `{a: 1, b: 2}`).
  const twin = twinChoice(v, node, c.env, flat.terms.length);
  if (twin !== undefined) {
    addTerm(v, p, twin);
    return;
  }
  const forced = v.choices?.get(node)?.[occ];
  if (forced !== undefined) {
    recordChoice(v, node, c.env, flat.terms.length, forced);
    if (deferring === v && namedByConjunct(v, p.terms[forced])) later.push([p, forced]);
    else addTerm(v, p, forced);
    return;
  }
  if (v.pending !== undefined) {
    for (const q of v.pending) {
      if (q.node === node && q.env === c.env && q.terms.length === flat.terms.length) {
        q.twins = appendTo(q.twins, p);
        return;
      }
    }
  }
  v.pending = appendTo(v.pending, p);
}

let deferring: Vertex | undefined;
let later: [PendingDisj, number][] = [];

/**
 * Collects the conjuncts of a disjunct with `add`, then unifies the alternatives it was made with
 * that refer to a vertex one of its conjuncts refers to as well (`sub: Foo | {…}` next to `sub:
 * Foo`): after the other conjuncts, as a vertex's own disjunctions are resolved after collection
 * (and as cue does), so that the expansion below is the conjunct's own (see expandVertex). Other
 * alternatives keep their place (field and message order).
 */
export function withChosenTermsLast(v: Vertex, add: () => void): void {
  if (v.choices === undefined) {
    add();
    return;
  }
  const outerV = deferring;
  const outerL = later;
  deferring = v;
  later = [];
  let mine: [PendingDisj, number][];
  try {
    add();
  } finally {
    mine = later;
    deferring = outerV;
    later = outerL;
  }
  for (const [p, i] of mine) addTerm(v, p, i);
}

/** The alternatives taken in a disjunct, per written disjunction and environment (see twinChoice). */
const taken = new WeakMap<Vertex, { node: ast.Node; env: Frame; n: number; i: number }[]>();

/** Forgets the alternatives `v` took: it is collected again from the start. */
export function clearTaken(v: Vertex): void {
  taken.delete(v);
}

function recordChoice(v: Vertex, node: ast.Node, env: Frame, n: number, i: number): void {
  const list = taken.get(v);
  if (list === undefined) taken.set(v, [{ node, env, n, i }]);
  else list.push({ node, env, n, i });
}

/** The alternative a twin of this disjunction took in this disjunct (see addDisjunction). */
function twinChoice(v: Vertex, node: ast.Node, env: Frame, n: number): number | undefined {
  const list = taken.get(v);
  if (list === undefined) return undefined;
  for (const x of list) if (x.node === node && x.env === env && x.n === n) return x.i;
  return undefined;
}

/** Unifies alternative `i` of a pending disjunction and of its twins. */
function addTerm(v: Vertex, p: PendingDisj, i: number): void {
  const t = p.terms[i];
  if (t !== undefined) addConjunct(v, termConj(p, t));
  if (p.twins === undefined) return;
  for (const q of p.twins) {
    const u = q.terms[i];
    if (u !== undefined) addConjunct(v, termConj(q, u));
  }
}

/** Whether a term is a reference to a vertex that one of `v`'s conjuncts refers to directly. */
function namedByConjunct(v: Vertex, t: Term | undefined): boolean {
  const x = t?.expr;
  if (
    t === undefined ||
    t.c !== undefined ||
    x === undefined ||
    (x.kind !== "Ident" && x.kind !== "Selector")
  )
    return false;
  let r: Vertex | undefined;
  for (const c of v.conjuncts) {
    const e = c.expr;
    if (c.value !== undefined || e === undefined || (e.kind !== "Ident" && e.kind !== "Selector")) continue;
    if (r === undefined) {
      const rr = resolveRef(x, t.env);
      if (rr.t !== "vertex") return false;
      r = rr.v;
    }
    const q = resolveRef(e, c.env);
    if (q.t === "vertex" && q.v === r) return true;
  }
  return false;
}

/** Records a disjunction value containing structs (e.g. from `or([...])`). */
export function addValueDisjunction(v: Vertex, d: DisjV, c: Conjunct): void {
  const node = (c.expr ?? c.env.vertex) as unknown as ast.Node;
  const occ = nextOcc(v, node);
  const terms: Term[] = d.values.map((x, i) => ({
    expr: undefined,
    env: c.env,
    def: d.defaults[i] ?? false,
    c: { ...c, value: x, expr: undefined },
    lits: undefined,
  }));
  const p: PendingDisj = {
    node,
    occ,
    terms,
    hasDefault: d.hasDefault,
    ctx: c.ctx,
    refs: c.refs,
    cyc: c.cyc,
    env: c.env,
  };
  const forced = v.choices?.get(node)?.[occ];
  if (forced !== undefined) {
    const t = terms[forced];
    if (t !== undefined) addConjunct(v, termConj(p, t));
    return;
  }
  v.pending = appendTo(v.pending, p);
}

function isScalarExpr(e: ast.Expr, env: Conjunct["env"]): boolean {
  switch (e.kind) {
    case "String":
    case "Int":
    case "Float":
    case "Bool":
    case "Null":
    case "Bytes":
    case "Interpolation":
      return true;
    case "Unary":
      return e.op !== "*" && isScalarExpr(e.expr, env);
    case "Paren":
      return isScalarExpr(e.expr, env);
    case "Binary":
      return e.op !== "|" && isScalarExpr(e.left, env) && isScalarExpr(e.right, env);
    case "Ident":
    case "Selector": {
      const r = resolveRef(e, env);
      if (r.t === "value") return r.v.t !== "vertex" && r.v.t !== "disj";
      const sv = scalarValueOf(r.v);
      return sv !== undefined && sv.t !== "disj";
    }
    default:
      return false;
  }
}

// ---------------------------------------------------------------------------------------------
// Resolution

/**
 * Resolves the pending disjunctions of `v`. Returns true when `v` is complete (it adopted a clone,
 * became a disjunction, or failed); false when evaluation should continue in place.
 */
export function resolveDisjunctions(v: Vertex): boolean {
  for (let round = 0; round < 100 && v.pending !== undefined; round++) {
    const pend = v.pending;
    v.pending = undefined;
    // The usual case, a tagged union with its tag set: one disjunction, one term left.
    if (pend.length === 1) {
      const p = pend[0] as PendingDisj;
      let only = -1;
      let n = 0;
      for (let i = 0; i < p.terms.length; i++) {
        if (!discriminated(v, p.terms[i] as Term)) {
          n++;
          only = i;
        }
      }
      if (n === 1 || p.terms.length === 1) {
        addTerm(v, p, n === 1 ? only : 0);
        continue;
      }
    }
    const alive: number[][] = [];
    for (const p of pend) {
      let idx: number[] = [];
      for (let i = 0; i < p.terms.length; i++) {
        const t = p.terms[i];
        if (t !== undefined && !discriminated(v, t)) idx.push(i);
      }
      if (idx.length === 0) idx = p.terms.map((_, i) => i);
      alive.push(idx);
    }
    if (alive.every((a) => a.length === 1)) {
      for (let i = 0; i < pend.length; i++) {
        const p = pend[i] as PendingDisj;
        addTerm(v, p, alive[i]?.[0] ?? 0);
      }
      continue;
    }
    if (
      v.structMark === 0 &&
      !v.isList &&
      v.arcs === undefined &&
      pend.every((p, i) =>
        (alive[i] ?? []).every((j) => {
          const t = p.terms[j];
          return t !== undefined && t.expr !== undefined && isScalarExpr(t.expr, t.env);
        }),
      )
    ) {
      for (let i = 0; i < pend.length; i++) {
        const p = pend[i];
        if (p === undefined) continue;
        const vals: Value[] = [];
        const defs: boolean[] = [];
        let groups: (object | undefined)[] | undefined;
        for (const j of alive[i] ?? []) {
          const t = p.terms[j];
          if (t === undefined || t.expr === undefined) continue;
          if (t.group !== undefined) {
            groups ??= vals.map(() => undefined);
            groups[vals.length] = t.group;
          }
          vals.push(evalExpr(t.expr, t.env));
          defs.push(t.def);
        }
        const t0 = p.terms[0];
        const pos = t0 === undefined ? (p.node as ast.Expr).pos : termPos(t0);
        const d = makeDisj(
          vals,
          defs,
          p.hasDefault,
          undefined,
          t0 === undefined ? [] : [pos],
          undefined,
          groups,
        );
        meetScalar(v, d, pos);
      }
      continue;
    }
    cloneResolve(v, pend, alive);
    return true;
  }
  return false;
}

/**
 * The value a disjunction of scalars written in `env` contributes to a scalar vertex when it is
 * resolved after collection (the path `resolveDisjunctions` takes when no term is discriminated
 * and every term is a scalar expression); undefined when it would take another path. Used by the
 * fast export path, which computes it once per declaration.
 */
export function scalarDisjunction(e: ast.Expr, env: Frame): Value | undefined {
  const flat = flattenInner(e, env, NO_CLOSE, 0, [], []);
  if (flat.terms.length < 2) return undefined;
  const vals: Value[] = [];
  const defs: boolean[] = [];
  for (const t of flat.terms) {
    if (t.c !== undefined || t.expr === undefined || !isScalarExpr(t.expr, t.env)) return undefined;
  }
  for (const t of flat.terms) {
    vals.push(evalExpr(t.expr as ast.Expr, t.env));
    defs.push(t.def);
  }
  const t0 = flat.terms[0] as Term;
  return makeDisj(vals, defs, flat.hasDefault, undefined, [termPos(t0)]);
}

function cloneResolve(v: Vertex, pend: readonly PendingDisj[], alive: number[][]): void {
  const max = engine().limits.maxDisjuncts;
  let combos = 1;
  for (const a of alive) combos *= a.length;
  if (combos > max) {
    setErr(v, bottom("limit", `disjunction expands to ${combos} combinations (limit ${max})`));
    return;
  }
  const values: Vertex[] = [];
  const defaults: boolean[] = [];
  const picks: number[][] = [];
  const inner: boolean[] = [];
  const failures: BottomV[] = [];
  const failurePaths: string[][] = [];
  const choice = new Array<number>(pend.length).fill(0);
  const run = (k: number): void => {
    if (k === pend.length) {
      const w = new Vertex(v.parent, v.label);
      w.cloneOf = v.cloneOf ?? v;
      w.fieldType = v.fieldType;
      w.declPos = v.declPos;
      w.depth = v.depth;
      w.isLet = v.isLet;
      w.conjuncts = v.conjuncts;
      w.choices = new Map(v.choices);
      const def = true;
      for (let i = 0; i < pend.length; i++) {
        const p = pend[i] as PendingDisj;
        const ti = choice[i] ?? 0;
        const arr = [...(w.choices.get(p.node) ?? [])];
        arr[p.occ] = ti;
        w.choices.set(p.node, arr);
      }
      const pick = [...choice];
      // A disjunct that is itself an error (even an incomplete one, like `x.a` of an open
      // struct) is eliminated; incomplete errors below it are not.
      disjunctsInProgress.push(w);
      let deep: BottomV | undefined;
      try {
        deep = firstError(w);
      } finally {
        disjunctsInProgress.pop();
      }
      const child = deep === undefined && w.err === undefined ? incompleteChild(w) : undefined;
      const err = deep ?? w.err ?? child?.err;
      if (err !== undefined) {
        failures.push(err);
        failurePaths.push(
          deep !== undefined ? firstErrorPath() : child !== undefined ? child.path() : w.path(),
        );
        return;
      }
      if (w.disj !== undefined) {
        for (let i = 0; i < w.disj.values.length; i++) {
          values.push(w.disj.values[i] as Vertex);
          picks.push(pick);
          inner.push(!w.disj.hasDefault || (w.disj.defaults[i] ?? false));
          defaults.push(def);
        }
        return;
      }
      if (w.scalar.t === "disj" && w.arcs === undefined && w.structMark === 0 && !w.isList) {
        const d = w.scalar;
        for (let i = 0; i < d.values.length; i++) {
          values.push(leafVertex(w, d.values[i] as Value));
          picks.push(pick);
          inner.push(!d.hasDefault || (d.defaults[i] ?? false));
          defaults.push(def);
        }
        return;
      }
      values.push(w);
      picks.push(pick);
      inner.push(true);
      defaults.push(def);
      return;
    }
    for (const ti of alive[k] ?? []) {
      choice[k] = ti;
      run(k + 1);
      if (engine().limitErr !== undefined) return;
    }
  };
  run(0);
  const lim = engine().limitErr;
  if (lim !== undefined) {
    setErr(v, lim);
    return;
  }
  // The pending disjunctions' defaults combine step by step as in cue's cross product
  // (default-modes.ts): a disjunction whose default terms were all eliminated drops them.
  const modes = values.map(() => MAYBE);
  const last = values.map(() => false);
  for (let i = 0; i < pend.length; i++) {
    const p = pend[i] as PendingDisj;
    const right = picks.map((pk) => (!p.hasDefault ? MAYBE : p.terms[pk[i] ?? 0]?.def ? IS : NOT));
    combineStep(modes, last, right);
  }
  const decided = modes.some((m) => m !== MAYBE);
  for (let k = 0; k < values.length; k++) {
    defaults[k] = (inner[k] ?? true) && (!decided || modes[k] === IS);
  }
  // A disjunction whose defaults conflicted (all NOT) keeps `hasDefault` without a default term.
  const anyDefault = decided || inner.some((x) => !x);
  dedupe(values, defaults);
  if (values.length === 0) {
    // Alternatives written as error("…") replace the generic message (cue's custom errors); the
    // code stays incomplete when every other alternative was merely incomplete.
    // Only `error(…)` alternatives count: an explicit `_|_` inside a struct alternative is an
    // ordinary failure of that alternative.
    const own = v.path().length;
    const isCustom = (f: BottomV, i: number): boolean =>
      f.err.custom === true && (failurePaths[i]?.length ?? own) === own;
    // Each custom message once: combinations that fail on the same error(…) term repeat it.
    const custom = failures
      .filter(isCustom)
      .filter((f, i, all) => all.findIndex((g) => g.err.message === f.err.message) === i);
    if (custom.length > 0) {
      const others = failures.filter((f, i) => !isCustom(f, i));
      const code =
        others.length > 0 && others.every((f) => f.err.code === "incomplete" || f.err.code === "cycle")
          ? "incomplete"
          : "eval";
      if (custom.length === 1 && custom[0] !== undefined) {
        setErr(v, bottom(code, custom[0].err.message, custom[0].err.positions));
        return;
      }
      const e = bottom(code, `${custom.length} errors in empty disjunction:`, []);
      e.err.sub = custom.map((f) => ({
        code: "eval" as const,
        message: f.err.message,
        positions: f.err.positions,
      }));
      setErr(v, e);
      return;
    }
    if (failures.length === 1 && failures[0] !== undefined) {
      const info = failures[0].err;
      const path = failurePaths[0];
      setErr(v, {
        t: "bottom",
        err: {
          code: info.code,
          get message() {
            return info.message;
          },
          positions: info.positions,
          path,
          sub: info.sub,
        },
      });
      return;
    }
    // As cue prints it: a header line without positions, then each alternative's error.
    const code = emptyDisjunctionCode(failures);
    const sub = failures.map((f, i) => {
      const info = f.err;
      const path = failurePaths[i] ?? [];
      return {
        code: info.code,
        get message() {
          return info.message;
        },
        positions: info.positions,
        path,
        sub: info.sub,
      };
    });
    // cue counts every error it lists, those of nested empty disjunctions included.
    const e = bottom(code, `${countErrors(sub)} errors in empty disjunction:`, []);
    e.err.sub = sub;
    setErr(v, e);
    return;
  }
  if (values.length === 1) {
    adopt(v, values[0] as Vertex);
    return;
  }
  v.disj = { values, defaults: anyDefault ? defaults : defaults.map(() => false), hasDefault: anyDefault };
}

function countErrors(errs: readonly import("./errors.js").ErrInfo[]): number {
  let n = 0;
  for (const e of errs) n += 1 + (e.sub === undefined ? 0 : countErrors(e.sub));
  return n;
}

/**
 * A regular field of a disjunct whose own value is an incomplete error (`{a: struct.MinFields(2)}`
 * with one field): like cue, the disjunct is eliminated. Incomplete errors deeper down are not.
 */
function incompleteChild(w: Vertex): Vertex | undefined {
  if (w.arcs === undefined || w.disj !== undefined) return undefined;
  for (const a of w.arcs.values()) {
    if (a.fieldType !== REGULAR || a.label.startsWith("#") || a.label.startsWith("_")) continue;
    if (a.status === EVALUATED && a.err?.err.code === "incomplete") return a;
  }
  return undefined;
}

function leafVertex(w: Vertex, v: Value): Vertex {
  const x = new Vertex(w.parent, w.label);
  x.fieldType = w.fieldType;
  x.declPos = w.declPos;
  x.depth = w.depth;
  x.scalar = v;
  x.scalarPos = w.scalarPos;
  x.status = EVALUATED;
  if (v.t === "vertex") {
    return v.v;
  }
  return x;
}

function dedupe(values: Vertex[], defaults: boolean[]): void {
  for (let i = 1; i < values.length; i++) {
    for (let j = 0; j < i; j++) {
      if (!equalVertex(values[i] as Vertex, values[j] as Vertex, 0)) continue;
      defaults[j] = (defaults[j] ?? false) || (defaults[i] ?? false);
      values.splice(i, 1);
      defaults.splice(i, 1);
      i--;
      break;
    }
  }
}

/** Makes `v` take over the evaluated state of a clone. */
export function adopt(v: Vertex, w: Vertex): void {
  evaluate(w);
  v.arcs = w.arcs;
  v.borrowed = w.borrowed;
  if (v.arcs !== undefined && !w.borrowed) for (const a of v.arcs.values()) if (!a.isShared) a.parent = v;
  v.scalar = w.scalar;
  v.scalarPos = w.scalarPos;
  v.structMark = w.structMark;
  v.isList = w.isList;
  v.listLen = w.listLen;
  v.listOpen = w.listOpen;
  v.listParts = w.listParts;
  v.patterns = w.patterns;
  v.patternsApplied = w.patternsApplied;
  v.closeItems = w.closeItems;
  v.err = w.err;
  v.disj = w.disj;
}

/** How an alternative's error weighs on an empty disjunction's code: the highest wins. */
const CODE_RANK: Partial<Record<ErrCode, number>> = {
  eval: 0,
  user: 0,
  "structural cycle": 0,
  incomplete: 3,
  cycle: 3,
};

/**
 * The code of an empty disjunction, as cue's evaluator gives it: one alternative still waiting for
 * a value (incomplete, or a cycle) leaves the whole disjunction incomplete; otherwise it is an
 * evaluation error (a structural cycle or an explicit `_|_` among conflicts included, as the corpus
 * says). An alternative with another code (unsupported, a limit) makes it an evaluation error.
 */
function emptyDisjunctionCode(failures: readonly BottomV[]): ErrCode {
  // Only all-cycle alternatives make a cycle here: a cycle next to a conflict is not retried as one.
  if (failures.every((f) => f.err.code === "cycle")) return "cycle";
  let best: ErrCode = "eval";
  for (const f of failures) {
    const r = CODE_RANK[f.err.code];
    if (r === undefined) return "eval";
    if (r > (CODE_RANK[best] ?? 0)) best = f.err.code === "cycle" ? "incomplete" : f.err.code;
  }
  return best;
}
