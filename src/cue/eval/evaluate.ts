/**
 * Evaluating a vertex: collect its conjuncts, resolve disjunctions, apply pattern constraints, run
 * comprehensions, then check list lengths, closedness and kinds. Each vertex is evaluated once;
 * children are evaluated on demand (by references, by export, or by disjunct elimination).
 */

import {
  allows,
  andScopeRejects,
  closingContexts,
  closingDefinition,
  embedScopeRejects,
  embedScopeUnsure,
} from "./closedness.js";
import {
  addConjunct,
  childCtx,
  clearExpansions,
  collectConjuncts,
  emptyRefAt,
  emptyRefs,
  foreignReads,
  forgetExpansionsOf,
  inDefinition as inDefinitionV,
  lateFields,
  meetScalar,
  optionalCyc,
  type SelfExpansion,
  selfExpansions,
  selfRetries,
  setErr,
  unshare,
} from "./collect.js";
import { runDeferred } from "./comprehension.js";
import { constValue } from "./const-cache.js";
import { clearTaken, resolveDisjunctions, withChosenTermsLast } from "./disjunction.js";
import { engine, step } from "./engine.js";
import { exportTree } from "./export.js";
import { callsOnly, evalExpr, resolveRef } from "./expr.js";
import { conflict, meet } from "./meet.js";
import { matchRegexp } from "./regex.js";
import { bindFrame } from "./scope.js";
import { shareDefinition } from "./share.js";
import { type BottomV, bottom, formatValue, isAtom, type Value } from "./values.js";
import {
  type Binding,
  COLLECTING,
  type Conjunct,
  displayLabel,
  EVALUATED,
  type Frame,
  NEW,
  OPTIONAL,
  type PatternEntry,
  posArray,
  REGULAR,
  strLabel,
  type Vertex,
} from "./vertex.js";

/** Evaluates `v` (not its children). Re-entrant calls during collection return immediately. */
export function evaluate(v: Vertex): void {
  if (v.status !== NEW) {
    if (v.status === COLLECTING) engine().cycles++;
    else if (v.lateConjuncts && lateFields.has(v)) refresh(v);
    else if (v.cycleRetry) retryCycle(v);
    else if (callRetries.has(v)) retryCall(v);
    return;
  }
  const e = engine();
  if (e.nesting > MAX_NESTING) {
    e.limitErr ??= bottom("limit", `evaluation nested deeper than ${MAX_NESTING} levels`);
    setErr(v, e.limitErr);
    v.status = EVALUATED;
    return;
  }
  e.nesting++;
  const cycles = e.cycles;
  const refCycles = e.refCycles;
  try {
    evaluateInner(v);
  } finally {
    e.nesting--;
    if (e.cycles !== cycles) v.cyclic = true;
    if (e.refCycles !== refCycles) v.refCyclic = true;
  }
}

/** Bounds recursion so that no input can overflow the JavaScript stack. */
const MAX_NESTING = 1200;

function evaluateInner(v: Vertex): void {
  v.status = COLLECTING;
  clearExpansions(v);
  clearTaken(v);
  const lim = step();
  if (lim !== undefined) {
    setErr(v, lim);
    v.status = EVALUATED;
    return;
  }
  if (v.depth > engine().limits.maxDepth) {
    setErr(
      v,
      bottom("limit", `structure deeper than ${engine().limits.maxDepth} levels (structural cycle?)`),
    );
    v.status = EVALUATED;
    return;
  }
  if (v.conjuncts.length === 1 && shareDefinition(v)) {
    v.status = EVALUATED;
    return;
  }
  // Literal conjuncts first: a concrete value known early lets reference cycles resolve
  // (`x: y + 1, y: x - 1, x: 2`).
  collectConjuncts(v, addConjuncts);
  const emptyAt = emptyRefAt.get(v);
  if (emptyAt !== undefined) {
    // A field of a struct still being collected elsewhere (a builtin's result read back through
    // a cycle: `host: #c.host` while `#c: regexp.FindNamedSubmatch(…, X)` waits on X) had no
    // conjunct yet: the value is provisional, evaluated again once that struct is done.
    emptyRefAt.delete(v);
    if (
      emptyAt.status === COLLECTING &&
      v.cycleErr === undefined &&
      emptyAt.conjuncts.every((c) => c.expr?.kind === "Call")
    ) {
      const b = bottom("cycle", `cycle with field: ${displayLabel(emptyAt.label)}`);
      b.err.cycleAt = emptyAt;
      markCycleRetry(v, b);
    }
  }
  if (selfExpansions.has(v)) settleSelfExpansions(v);
  if (v.cycleErr !== undefined) {
    // A disjunct that met a reference cycle fails, even with a concrete value (cue: the cycle
    // leaves the disjunction unresolved).
    if ((!isAtom(v.scalar) || v.cloneOf !== undefined) && v.structMark === 0 && !v.isList)
      setErr(v, v.cycleErr);
    markCycleRetry(v, v.cycleErr);
    v.cycleErr = undefined;
  }
  // A struct whose comprehensions are still to run resolves its disjunctions after them: a
  // discriminating field they add (`if k.kind == "tcp" {type: "tcp"}`) then drops the other terms
  // without evaluating each one.
  if (v.pending !== undefined && v.deferred === undefined && resolveDisjunctions(v)) {
    v.status = EVALUATED;
    return;
  }
  applyPatterns(v);
  runDeferred(v);
  if (foreignReads.has(v)) checkForeignReads(v);
  if (v.pending !== undefined && resolveDisjunctions(v)) {
    v.status = EVALUATED;
    return;
  }
  finishList(v);
  checkClosed(v);
  checkKinds(v);
  v.status = EVALUATED;
  if (selfRetries.has(v)) retrySelf(v);
  const at = v.err?.err.code === "cycle" ? v.err.err.cycleAt : undefined;
  if (at !== undefined && at !== v && at.status === COLLECTING && callsOnly(at)) callRetries.set(v, at);
}

/**
 * Structs whose comprehension condition tested a field of a builtin's result while that call was
 * still running (its argument led back here): once the call is done without error, they are
 * evaluated again with its fields (cue decides the condition after the call, whatever the order).
 */
const callRetries = new WeakMap<Vertex, Vertex>();

/** `v` is evaluated again when next read once `at` is done without error. */
export function retryAfter(v: Vertex, at: Vertex): void {
  callRetries.set(v, at);
}

function retryCall(v: Vertex): void {
  const at = callRetries.get(v);
  if (at === undefined || at.status === COLLECTING) return;
  callRetries.delete(v);
  if (at.err !== undefined) return;
  v.lateConjuncts = true;
  refresh(v);
}

function addConjuncts(v: Vertex): void {
  withChosenTermsLast(v, () => addConjunctsInOrder(v));
}

function addConjunctsInOrder(v: Vertex): void {
  const cs = v.conjuncts;
  let deferred = false;
  for (let i = 0; i < cs.length; i++) {
    const c = cs[i] as Conjunct;
    if (c.expr !== undefined && !isLiteral(c.expr, c.env)) {
      deferred = true;
      continue;
    }
    addConjunct(v, c);
  }
  if (deferred) {
    for (let i = 0; i < v.conjuncts.length; i++) {
      const c = v.conjuncts[i] as Conjunct;
      if (c.expr !== undefined && !isLiteral(c.expr, c.env)) addConjunct(v, c);
    }
  }
  const early = emptyRefs.get(v);
  if (early !== undefined) {
    // References to fields of `v` read before any conjunct gave them one (`d: d.a, d: a: …`).
    emptyRefs.delete(v);
    emptyRefAt.delete(v);
    for (const c of early) addConjunct(v, c);
    const still = emptyRefs.get(v);
    emptyRefs.delete(v);
    if (still !== undefined) undefinedOwnFields(v, still);
  }
}

/**
 * A reference to a field of `v` itself that no conjunct of `v` gives (`r: L=L.a`, `x: x.a`): once
 * every conjunct is in, the field is undefined (cue: incomplete "undefined field: a").
 */
function undefinedOwnFields(v: Vertex, cs: readonly Conjunct[]): void {
  for (const c of cs) {
    const x = c.expr;
    if (x?.kind !== "Selector") continue;
    const a = v.arcs?.get(x.sel.kind === "Ident" ? x.sel.name : strLabel(x.sel.value));
    if (a === undefined || a.conjuncts.length > 0 || a.status !== NEW) continue;
    const base =
      x.expr.kind === "Ident" || x.expr.kind === "Selector" ? resolveRef(x.expr, c.env) : undefined;
    if (base?.t !== "vertex" || base.v !== v) continue;
    setErr(v, bottom("incomplete", `undefined field: ${displayLabel(a.label)}`, [x.sel.pos]));
    return;
  }
}

/** Rounds of `settleSelfExpansions` before a struct that keeps growing is refused. */
const MAX_SELF_ROUNDS = 16;

/**
 * A struct that referred to a vertex inside itself while it was collected (`t: {c: d: {…}, c.d}`)
 * may have added to the vertices between them after the reference read them (`c.d` gives `c: d:
 * e: …`, or a later `c: …` of the literal): the reference then gave less than the vertex now holds.
 * As in cue, the struct is taken to a fixpoint: those vertices are evaluated again with all their
 * conjuncts and the reference is expanded again, until it adds nothing new. A reference that cannot
 * be expanded again (a computed value) or a struct that keeps growing is refused (`unsupported`),
 * never left short of a field.
 */
function settleSelfExpansions(v: Vertex): void {
  let pending = selfExpansions.get(v) ?? [];
  selfExpansions.delete(v);
  // A disjunct keeps what its choice gave it (`y: 1 | {y: 1}, y`): expanding the reference again
  // would add the disjunction again, unchosen.
  if (v.cloneOf !== undefined) return;
  for (let round = 0; ; round++) {
    const stale = pending.filter(isStale);
    if (stale.length === 0) break;
    // A disjunction among what the struct added to itself would be expanded again in every round
    // (each round crossing it with the last): refused rather than taken to a fixpoint.
    const redo = stale.filter((x) => isReference(x.c) && !addsDisjunction(x));
    if (redo.length < stale.length || round >= MAX_SELF_ROUNDS) {
      const x = stale.find((y) => !redo.includes(y)) ?? stale[0];
      // What the struct added to the vertices on the way is unified there at least: when that
      // is an error (`svc: {svc: "web" | "db"}, svc`), the error stands for the struct.
      refreshStale(stale);
      if (x !== undefined && !stale.some(failed))
        setErr(
          v,
          bottom(
            "unsupported",
            "unsupported: a reference into its own struct whose fields it changes (not evaluated to a fixpoint)",
            [x.c.pos],
          ),
        );
      break;
    }
    pending = pending.filter((x) => !stale.includes(x));
    refreshStale(stale);
    const seen = new Set<Conjunct>();
    for (const x of redo) {
      if (seen.has(x.c)) continue;
      seen.add(x.c);
      forgetExpansionsOf(v, x.c);
      addConjunct(v, x.c);
    }
    pending = pending.concat(selfExpansions.get(v) ?? []);
    selfExpansions.delete(v);
  }
}

/**
 * References that read a vertex inside `v` while `v` was collected (`y: x.a` while `x: y.a` is
 * collected) hold less than that vertex when it got more conjuncts afterwards: cue evaluates the
 * two to a fixpoint, which the engine does not; the reader is refused (`unsupported`) rather than
 * left short of a field.
 */
function checkForeignReads(v: Vertex): void {
  const xs = foreignReads.get(v) ?? [];
  foreignReads.delete(v);
  const stale = xs.filter(isStale);
  // The vertices read get what arrived late at least (`x.a` of `x: y.a` gets `y.a`'s fields).
  refreshStale(stale);
  for (const x of stale) {
    if (x.reader.err !== undefined) continue;
    setErr(
      x.reader,
      bottom(
        "unsupported",
        "unsupported: a reference to a struct that was still growing (mutual references not evaluated to a fixpoint)",
        [x.c.pos],
      ),
    );
  }
}

/** Evaluates again, with all their conjuncts, the vertices that stale self expansions read. */
function refreshStale(stale: readonly SelfExpansion[]): void {
  const done = new Set<Vertex>();
  for (const x of stale) {
    // The vertex nearest the struct that changed: evaluating it again rebuilds those below it.
    for (const p of x.path) {
      if (done.has(p)) break;
      if (p.status !== EVALUATED) continue;
      if (!changedSince(x, p)) continue;
      done.add(p);
      p.lateConjuncts = true;
      refresh(p);
      break;
    }
  }
}

/** Whether a vertex on a self expansion's path is an error other than an incomplete one. */
function failed(x: SelfExpansion): boolean {
  for (const p of x.path) if (p.err !== undefined && !isIncomplete(p.err)) return true;
  return false;
}

/** Whether a conjunct is a reference, expanded again by adding it again. */
function isReference(c: Conjunct): boolean {
  let e = c.expr;
  if (c.value !== undefined || e === undefined) return false;
  while (e.kind === "Paren") e = e.expr;
  return e.kind === "Ident" || e.kind === "Selector" || e.kind === "Index";
}

/** Whether a conjunct a stale self expansion's path got since the expansion is or holds a disjunction. */
function addsDisjunction(x: SelfExpansion): boolean {
  for (let i = 0; i < x.path.length; i++) {
    const cs = (x.path[i] as Vertex).conjuncts;
    for (let k = x.lens[i] ?? 0; k < cs.length; k++) {
      const c = cs[k] as Conjunct;
      if (c.value !== undefined ? c.value.t === "disj" : c.expr !== undefined && writesDisjunction(c.expr, 0))
        return true;
    }
  }
  return false;
}

/** Whether an expression writes a disjunction (in its struct and list literals too); deep ones count. */
function writesDisjunction(e: import("../syntax/ast.js").Expr, depth: number): boolean {
  if (depth > 32) return true;
  switch (e.kind) {
    case "Binary":
      return e.op === "|" || writesDisjunction(e.left, depth + 1) || writesDisjunction(e.right, depth + 1);
    case "Paren":
    case "Unary":
      return writesDisjunction(e.expr, depth + 1);
    case "Struct":
      for (const d of e.decls) {
        if (d.kind === "Field" && writesDisjunction(d.value, depth + 1)) return true;
        if (d.kind === "Embed" && writesDisjunction(d.expr, depth + 1)) return true;
        if (d.kind === "Comprehension" && writesDisjunction(d.value, depth + 1)) return true;
      }
      return false;
    case "List":
      for (const x of e.elems) if (x.kind !== "Comprehension" && writesDisjunction(x, depth + 1)) return true;
      return false;
    default:
      return false;
  }
}

/** Whether a self expansion read less than its path now holds (see settleSelfExpansions). */
function isStale(x: SelfExpansion): boolean {
  const path = x.path;
  for (let i = 0; i < path.length; i++) {
    const p = path[i] as Vertex;
    const next = path[i + 1];
    if (next !== undefined && p.arcs?.get(next.label) !== next) return true;
    if (changedSince(x, p)) return true;
  }
  return false;
}

/** Whether a path vertex got a conjunct unlike its earlier ones since the expansion read it. */
function changedSince(x: SelfExpansion, p: Vertex): boolean {
  const i = x.path.indexOf(p);
  const cs = p.conjuncts;
  for (let k = x.lens[i] ?? 0; k < cs.length; k++) {
    const c = cs[k] as Conjunct;
    // An empty struct (`root: {}` of an embedded definition) gives no field.
    let dup = c.expr?.kind === "Struct" && c.expr.decls.length === 0;
    for (let j = 0; j < k && !dup; j++) dup = sameConjunct(cs[j] as Conjunct, c);
    if (!dup) return true;
  }
  return false;
}

function sameConjunct(a: Conjunct, b: Conjunct): boolean {
  if (a.expr !== b.expr || a.value !== b.value) return false;
  let f: Frame | undefined = a.env;
  let g: Frame | undefined = b.env;
  while (f !== g) {
    if (f === undefined || g === undefined) return false;
    if (f.lit !== g.lit || f.vertex !== g.vertex || f.binds !== undefined || g.binds !== undefined)
      return false;
    f = f.up;
    g = g.up;
  }
  return true;
}

const retried = new WeakSet<Vertex>();

/**
 * Embedded expressions that referred to the struct itself while it was being collected
 * (`#L: {list.Repeat([int, string], div(len(self), 2))}`) met a cycle and were left out. Now that
 * the struct is known they are evaluated again, and the struct is collected once more with their
 * values (once: a value that still depends on itself stays left out, as before).
 */
function retrySelf(v: Vertex): void {
  const xs = selfRetries.get(v) ?? [];
  selfRetries.delete(v);
  if (retried.has(v) || (!v.isList && v.structMark === 0)) return;
  const add: Conjunct[] = [];
  for (const c of xs) {
    if (c.expr === undefined) continue;
    const val = evalExpr(c.expr, c.env);
    if (val.t === "bottom" && val.err.code === "cycle") continue;
    add.push({ expr: undefined, env: c.env, ctx: c.ctx, value: val, pos: c.pos, embed: c.embed });
  }
  if (add.length === 0) return;
  retried.add(v);
  v.conjuncts = v.conjuncts.concat(add);
  v.lateConjuncts = true;
  refresh(v);
}

/** Whether a conjunct's expression is unified in the first pass (a literal or a constant expression). */
export function isLiteral(e: import("../syntax/ast.js").Expr, env: import("./vertex.js").Frame): boolean {
  switch (e.kind) {
    case "Binary":
    case "Unary":
      return constValue(e, env) !== undefined;
    case "Int":
    case "Float":
    case "String":
    case "Bool":
    case "Null":
      return true;
    default:
      return false;
  }
}

export function patternMatches(p: PatternEntry, raw: string): boolean {
  p.pattern ??= evalExpr(p.label.expr, p.env);
  return patternAccepts(p.pattern, raw);
}

/** Whether an evaluated pattern accepts the (internal) label `raw`. */
export function patternAccepts(pat: Value, raw: string): boolean {
  const label = displayLabel(raw);
  if (pat.t === "top") return true;
  if (pat.t === "basic" && pat.bounds.length === 0 && pat.validators.length === 0) return (pat.k & 16) !== 0;
  if (pat.t === "string") return pat.v === label;
  return meet(pat, { t: "string", v: label }).t !== "bottom";
}

/** Adds the values of matching pattern constraints to an arc (one pattern, or all of `v`'s). */
export function applyPatternsToArc(v: Vertex, a: Vertex, only?: PatternEntry): void {
  if (a.label.startsWith("_") || a.label.startsWith("#")) return;
  const list = only !== undefined ? [only] : v.patterns;
  if (list === undefined) return;
  for (const p of list) {
    if (!patternMatches(p, a.label)) continue;
    if (a.isShared) a = unshare(v, a);
    let env = p.env;
    if (p.label.alias !== undefined || p.field.alias !== undefined) {
      const binds = new Map<string, Binding>();
      if (p.label.alias !== undefined)
        binds.set(p.label.alias.name, { t: "value", v: { t: "string", v: displayLabel(a.label) } });
      if (p.field.alias !== undefined) binds.set(p.field.alias.name, { t: "vertex", v: a });
      env = bindFrame(p.env, binds);
    }
    a.addConj({
      expr: p.field.value,
      env,
      ctx: childCtx(p.ctx, a.label),
      value: undefined,
      pos: p.field.value.pos,
      embed: false,
      refs: p.refs,
      cyc: optionalCyc(p.cyc),
    });
    if (a.status !== NEW) a.lateConjuncts = true;
  }
}

function applyPatterns(v: Vertex): void {
  v.patternsApplied = true;
  if (v.patterns === undefined || v.isList) return;
  // A pattern that can never be used (an invalid regular expression, an error) is an error of the
  // struct, even one no field matches yet (cue: `[or([])]: int` is an error).
  for (const p of v.patterns) {
    p.pattern ??= evalExpr(p.label.expr, p.env);
    const bad = patternError(p.pattern);
    if (bad !== undefined) setErr(v, bad);
  }
  if (v.arcs === undefined) return;
  v.arcs.forEach((a) => {
    applyPatternsToArc(v, a);
  });
}

/** The error of a pattern that can never be used (an invalid regular expression), if any. */
export function patternError(pat: Value): BottomV | undefined {
  if (pat.t === "bottom") return pat;
  if (pat.t !== "basic") return undefined;
  for (const b of pat.bounds) {
    if ((b.op !== "=~" && b.op !== "!~") || b.v.t !== "string") continue;
    const m = matchRegexp(b.v.v, "");
    if (typeof m !== "boolean") return m;
  }
  return undefined;
}

function finishList(v: Vertex): void {
  const parts = v.listParts;
  if (!v.isList || parts === undefined) return;
  let closedLen = -1;
  let maxLen = 0;
  for (const p of parts) {
    if (p.len > maxLen) maxLen = p.len;
    if (p.open) continue;
    if (closedLen >= 0 && closedLen !== p.len) {
      setErr(v, bottom("eval", `incompatible list lengths (${closedLen} and ${p.len})`, [p.pos]));
    }
    closedLen = p.len;
  }
  if (closedLen >= 0 && maxLen > closedLen) {
    setErr(
      v,
      bottom(
        "eval",
        `incompatible list lengths (${maxLen} and ${closedLen})`,
        parts.map((p) => p.pos),
      ),
    );
  }
  const len = closedLen >= 0 ? closedLen : maxLen;
  for (const p of parts) {
    if (p.rest === undefined) continue;
    for (let i = p.len; i < len; i++) {
      const a = v.arc(String(i));
      a.fieldType = REGULAR;
      a.addConj({
        expr: p.rest,
        env: p.env,
        ctx: childCtx(p.ctx, String(i)),
        value: undefined,
        pos: p.rest.pos,
        embed: false,
        refs: p.refs,
        cyc: optionalCyc(p.cyc),
      });
    }
  }
  v.listLen = len;
  v.listOpen = closedLen < 0;
}

function checkClosed(v: Vertex): void {
  if (v.arcs === undefined || v.isList) return;
  if (v.closeItems === undefined) {
    refuseEmbedUnsure(v);
    return;
  }
  const arcs = v.arcs;
  for (const label of andScopeRejects(v)) {
    const a = arcs.get(label);
    if (a === undefined || a.notAllowed || a.fieldType === OPTIONAL) continue;
    const own = a.isShared ? unshare(v, a) : a;
    setErr(own, bottom("eval", "field not allowed", posArray(own.declPos)));
    own.notAllowed = true;
  }
  for (const label of embedScopeRejects(v)) {
    const a = arcs.get(label);
    if (a === undefined || a.fieldType === OPTIONAL) continue;
    const own = a.isShared ? unshare(v, a) : a;
    setErr(own, bottom("eval", "field not allowed", posArray(own.declPos)));
    own.notAllowed = true;
  }
  const closing = closingContexts(v);
  if (closing.length === 0) {
    refuseEmbedUnsure(v);
    return;
  }
  let allowed: string[] | undefined;
  for (const arc of arcs.values()) {
    let a = arc;
    const label = a.label;
    const c0 = label.charCodeAt(0);
    if (c0 === 0x5f || c0 === 0x23) continue;
    if (allows(v, closing, label)) continue;
    if (a.isShared) a = unshare(v, a);
    // An optional field a closed struct does not allow is an error too (cue's notAllowedError),
    // though only in that field: like any optional field's error, it is not exported or
    // reported, and it does not eliminate a disjunct.
    // cue lists the pattern constraints the field matched beside its declaration.
    const at = [...posArray(a.declPos)];
    for (const p of v.patterns ?? []) if (patternMatches(p, label)) at.push(p.field.pos);
    const err = bottom("eval", "field not allowed", at);
    const by = closingDefinition(v, closing, label);
    if (by !== undefined) {
      allowed ??= allowedLabels(v, closing);
      err.err.closedBy = { ...by, allowed };
    }
    setErr(a, err);
    a.notAllowed = true;
  }
  refuseEmbedUnsure(v);
}

/**
 * Fields below a struct that embeds a definition, reached through another definition, that the
 * struct does not declare (see embedScopeUnsure): cue's closedness answer there may differ from
 * the engine's, so they are refused as unsupported rather than given a value.
 */
function refuseEmbedUnsure(v: Vertex): void {
  const arcs = v.arcs;
  if (arcs === undefined) return;
  for (const label of embedScopeUnsure(v)) {
    const a = arcs.get(label);
    if (a === undefined || a.fieldType === OPTIONAL) continue;
    const own = a.isShared ? unshare(v, a) : a;
    setErr(
      own,
      bottom(
        "unsupported",
        "unsupported: fields below a field that a struct embedding a definition, reached through another definition, does not declare (cue's closedness there is not reproduced)",
        posArray(own.declPos),
      ),
    );
  }
}

/** The regular labels of a closed struct that its closing definitions allow. */
function allowedLabels(v: Vertex, closing: ReturnType<typeof closingContexts>): string[] {
  const out: string[] = [];
  for (const label of v.arcs?.keys() ?? []) {
    const c0 = label.charCodeAt(0);
    if (c0 !== 0x5f && c0 !== 0x23 && allows(v, closing, label)) out.push(label);
  }
  return out;
}

function hasRegularArcs(v: Vertex): boolean {
  if (v.arcs === undefined) return false;
  for (const label of v.arcs.keys()) if (!label.startsWith("_") && !label.startsWith("#")) return true;
  return false;
}

function checkKinds(v: Vertex): void {
  if (v.isList && v.structMark === 2) {
    setErr(
      v,
      bottom("eval", `conflicting values [] and ${v.shortText()} (mismatched types list and struct)`),
    );
    return;
  }
  if (!v.isList && v.structMark === 0) return;
  const s = v.scalar;
  // cue: a struct literal that only embeds is no struct when `_` is among the conjuncts (cue's
  // value keeps any definition fields; here only a vertex without fields becomes `_`).
  if (s.t === "top" && v.hasTop && !v.isList && v.structMark === 1 && (v.arcs?.size ?? 0) === 0) {
    v.structMark = 0;
    return;
  }
  if (s.t === "top" || s.t === "bottom") return;
  if (!v.isList && v.structMark === 1 && !hasRegularArcs(v)) {
    v.structMark = 0;
    return;
  }
  const me: Value = { t: "vertex", v };
  if (s.t === "disj") {
    const kind = v.isList ? 64 : 128;
    const ok = s.values.filter(
      (x) => x.t === "top" || (x.t === "basic" && x.k & kind && x.bounds.length === 0),
    );
    if (ok.length > 0) {
      v.scalar = { t: "top" };
      return;
    }
  }
  if (s.t === "basic" && s.bounds.length === 0 && s.validators.length === 0 && s.k & (v.isList ? 64 : 128)) {
    v.scalar = { t: "top" };
    return;
  }
  if (s.t === "basic" && s.k & (v.isList ? 64 : 128) && s.bounds.every((b) => b.op === "!=")) {
    for (const val of s.validators) {
      const r = val.check(me);
      if (r === undefined) continue;
      if (typeof r !== "string") {
        setErr(v, r);
        continue;
      }
      // A struct that may still gain fields only fails a validator incompletely.
      const code = isConcreteDeep(v) ? "eval" : "incomplete";
      setErr(v, bottom(code, `invalid value ${v.shortText()} (${r})`, posArray(v.scalarPos)));
    }
    return;
  }
  setErr(v, conflict(s, me, posArray(v.scalarPos)));
}

function isConcreteDeep(v: Vertex): boolean {
  if (inDefinitionV(v)) return false;
  const errs: import("./errors.js").CueError[] = [];
  exportTree(v, [], errs);
  return errs.length === 0;
}

/** The value of a vertex: its scalar, a disjunction, or the vertex itself for structs and lists. */
export function vertexValue(v: Vertex): Value {
  if (v.status === COLLECTING) {
    engine().cycles++;
    engine().refCycles++;
    // A disjunction still open is not taken at its default: the cycle decides it (cue: "cycle
    // with field"), as `a: *0 | 1, a: b - 1, b: a + 1` has no answer.
    if (isAtom(v.scalar)) return v.scalar;
    const b = bottom("cycle", `cycle with field: ${displayLabel(v.label)}`, posArray(v.declPos));
    b.err.cycleAt = v;
    return b;
  }
  evaluate(v);
  if (v.err !== undefined) return v.err;
  if (v.disj !== undefined) {
    return {
      t: "disj",
      values: v.disj.values.map((x) => vertexValue(x)),
      defaults: v.disj.defaults,
      hasDefault: v.disj.hasDefault,
    };
  }
  if (v.isList || v.structMark > 0) return { t: "vertex", v };
  return v.scalar;
}

function isIncomplete(e: BottomV): boolean {
  return e.err.code === "incomplete" || e.err.code === "cycle";
}

let firstErrorVertex: Vertex | undefined;

/** The path of the vertex where the last `firstError` found its error. */
export function firstErrorPath(): string[] {
  return firstErrorVertex?.path() ?? [];
}

/**
 * Evaluates `v` and its regular descendants; returns the first error that is not merely
 * incomplete (used to eliminate disjuncts).
 */
export function firstError(v: Vertex): BottomV | undefined {
  evaluate(v);
  if (v.err !== undefined && !isIncomplete(v.err)) {
    firstErrorVertex = v;
    return v.err;
  }
  const lim = engine().limitErr;
  if (lim !== undefined) return lim;
  if (v.disj !== undefined) return undefined;
  if (v.arcs === undefined) return undefined;
  let found: BottomV | undefined;
  v.arcs.forEach((a) => {
    if (found !== undefined || a.fieldType === OPTIONAL) return;
    if (a.label.startsWith("#") || a.label.startsWith("_#")) return;
    found = firstError(a);
  });
  return found;
}

/**
 * A scalar field whose value was decided while a reference cycle was open (`b1: a1 - 2` read while
 * `a1` was being evaluated) took a provisional value: the cycle error when it stayed non-concrete,
 * or a concrete value that ignored the cycle. As in cue, it is evaluated once more when it is next
 * read after the field in progress is done (`a1` is then known: `b1` resolves, or a disjunction
 * that stayed open is reported instead of the provisional value).
 */
function markCycleRetry(v: Vertex, e: BottomV): void {
  const at = e.err.cycleAt;
  if (at === undefined || at === v || v.cycleAt !== undefined) return;
  if (v.cloneOf !== undefined || v.isShared || v.borrowed || v.choices !== undefined) return;
  if (v.arcs !== undefined || v.isList || v.structMark !== 0 || v.pending !== undefined) return;
  v.cycleAt = at;
  v.cycleRetry = true;
}

function retryCycle(v: Vertex): void {
  const at = v.cycleAt;
  if (at !== undefined && at !== null && at.status === COLLECTING) return;
  v.cycleRetry = false;
  v.cycleAt = null;
  if (v.arcs !== undefined || v.isList || v.structMark !== 0 || v.disj !== undefined) return;
  resetValue(v);
  v.expanded = undefined;
  evaluate(v);
}

/** Forgets a vertex's scalar value, its error and its evaluation bookkeeping: it is evaluated anew. */
function resetValue(v: Vertex): void {
  v.status = NEW;
  v.scalar = { t: "top" };
  v.scalarPos = undefined;
  v.err = undefined;
  v.seen = undefined;
  v.pending = undefined;
}

/** Re-collects a vertex that received conjuncts after it was evaluated (pattern/comprehension order). */
export function refresh(v: Vertex): void {
  if (!v.lateConjuncts || v.status !== EVALUATED) return;
  v.lateConjuncts = false;
  resetValue(v);
  v.arcs = undefined;
  if (v.borrowed) {
    v.borrowed = false;
    v.hasEllipsis = false;
  }
  v.structMark = 0;
  v.isList = false;
  v.listParts = undefined;
  v.patterns = undefined;
  v.patternsApplied = false;
  v.closeItems = undefined;
  v.disj = undefined;
  evaluate(v);
}

export { formatValue, meetScalar };
