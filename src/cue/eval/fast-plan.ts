/**
 * Struct plans for the fast export path: what collecting a struct's fields (`fast-struct.ts`) gives
 * depends only on the labels its struct literals declare, in order, on the types of its other
 * conjuncts and, for a tagged union, on the term its tag chooses — not on the values. Generated
 * configuration repeats a few such shapes many times (every `svc0` of every host), so the fields of
 * a shape, each with where its conjuncts come from, are recorded once (a {@link Plan}) and later
 * structs of that shape are exported by reading their literal values into it: no field is looked
 * up, no pattern matched, no closedness checked again.
 *
 * The plan is recorded from the general collection of the first struct of its shape that succeeds,
 * so both always agree; a shape whose collection gives up is never planned (the general collection
 * then gives up again, the same way, for each struct of that shape). Shapes are found through a trie
 * per type of a struct's first typed conjunct: one step per literal, literal label and typed
 * conjunct.
 */

import type * as ast from "../syntax/ast.js";
import { IdentFieldNode } from "../syntax/index.js";
import { engine } from "./engine.js";
import { quoteKey } from "./export-atoms.js";
import { aloneJSON, aloneNode, node } from "./fast-export.js";
import { flatJSON, putFields, structClose, structKey, structOpen, structSet } from "./fast-out.js";
import { type Contrib, failedIn, run as limits, nth } from "./fast-state.js";
import { plainLabel, plainShallow } from "./fast-struct.js";
import { type Binds, type DisjT, type FastType, type TermT, Use } from "./fast-types.js";
import { displayLabel, OPTIONAL, REQUIRED } from "./vertex.js";

/** Where one conjunct of a planned field comes from. */
type Src =
  /** The value of the struct's `i`-th literal field (counting its literals' fields in order). */
  | { readonly k: "lit"; readonly i: number }
  /** The same use for every struct of the shape. */
  | { readonly k: "use"; readonly use: Use }
  /** A declaration of the `i`-th conjunct's type, with that conjunct's label bindings. */
  | { readonly k: "bind"; readonly i: number; readonly use: Use }
  /**
   * A pattern's value, its alias bound to the field's label over the `i`-th conjunct's bindings
   * (-1: over none).
   */
  | { readonly k: "alias"; readonly i: number; readonly use: Use; readonly alias: ast.PatternLabel };

interface PlanField {
  /** The label as written in output. */
  readonly name: string;
  readonly srcs: readonly Src[];
  /** The field's only conjunct, a declaration without label bindings: exported once for all. */
  readonly alone: Use | undefined;
  /**
   * Unindented JSON text of the fields from this one on that are such declarations, once they have
   * been exported (null: none here).
   */
  group: Group | null | undefined;
}

/** Fields whose values are the same in every struct of a shape, as unindented JSON. */
interface Group {
  /** `"a":1,"b":"x"` */
  readonly text: string;
  /** Whether the text is ASCII and short (written without looking at each character). */
  readonly ascii: boolean;
  /** The index of the field after them. */
  readonly end: number;
  /** What exporting them one by one adds to the step count, and how deep their values go. */
  readonly steps: number;
  readonly height: number;
}

/** The fields a struct of one shape exports, in order, each with its conjuncts' sources. */
interface Plan {
  readonly fields: readonly PlanField[];
  /** Whether the fields' groups were computed. */
  grouped: boolean;
}

/**
 * One step of the trie of shapes. Its first child of each kind is kept in a field of its own (most
 * steps have one), the others in maps.
 */
interface Step {
  /** Next: a literal field with the label `label`, or one in `lits`. */
  label: string | undefined;
  next: Step | undefined;
  lits: Map<string, Step> | undefined;
  /** Next: a struct literal conjunct. */
  struct: Step | undefined;
  /** Next: a use of the type `type` (closed: `closed`), or one in `opens`/`closeds`. */
  type: FastType | undefined;
  closed: boolean;
  typeNext: Step | undefined;
  opens: Map<FastType, Step> | undefined;
  closeds: Map<FastType, Step> | undefined;
  /** At the end of a shape: its plan per chosen term (NO_TERM without a union); null: not planned. */
  plans: Map<TermT | typeof NO_TERM, Plan | null> | undefined;
}

const NO_TERM = { k: "none" } as const;

/** What {@link planned} answers when a struct has no plan (yet): collect it the general way. */
export const NO_PLAN: unique symbol = Symbol("no plan");

interface Trie {
  readonly root: Step;
  steps: number;
}

/** Tries per type of a struct's first typed conjunct. */
const tries = new WeakMap<FastType, Trie>();

/** Literals with more fields than this are not planned (the document's own big structs). */
const MAX_FIELDS = 64;
/** Steps per trie at most (documents whose every struct has a shape of its own). */
const MAX_STEPS = 4096;

// The literal fields (label and value) of the structs being exported through plans, as a stack: a
// struct's are `[base, vtop)` while its fields are evaluated, its children's go above.
const labs: string[] = [];
const vals: (ast.Expr | undefined)[] = [];
let vtop = 0;
let vhigh = 0;

/** Forgets the syntax the value stack points to (after an export). */
export function clearPlanValues(): void {
  for (let i = 0; i < vhigh; i++) vals[i] = undefined;
  vtop = 0;
  vhigh = 0;
}

/** A shape's end the general collection should record a plan for (set by {@link planned}). */
let wanted: { plans: Map<TermT | typeof NO_TERM, Plan | null>; term: TermT | typeof NO_TERM } | undefined;

/** The shape {@link planned} left to be recorded by the collection that follows it, if any. */
export function takeWanted(): typeof wanted {
  const w = wanted;
  wanted = undefined;
  return w;
}

function newStep(trie: Trie): Step | undefined {
  if (trie.steps >= MAX_STEPS) return undefined;
  trie.steps++;
  return emptyStep();
}

function emptyStep(): Step {
  return {
    label: undefined,
    next: undefined,
    lits: undefined,
    struct: undefined,
    type: undefined,
    closed: false,
    typeNext: undefined,
    opens: undefined,
    closeds: undefined,
    plans: undefined,
  };
}

/** The step after `at` for a literal field labelled `label` (made if new; undefined: too many). */
function labelStep(trie: Trie, at: Step, label: string): Step | undefined {
  if (at.label === label) return at.next;
  let next = at.lits?.get(label);
  if (next !== undefined) return next;
  next = newStep(trie);
  if (next === undefined) return undefined;
  if (at.label === undefined) {
    at.label = label;
    at.next = next;
  } else {
    at.lits ??= new Map();
    at.lits.set(label, next);
  }
  return next;
}

/** The step after `at` for a use of `t` (made if new; undefined: too many). */
function typeStep(trie: Trie, at: Step, t: FastType, closed: boolean): Step | undefined {
  if (at.type === t && at.closed === closed) return at.typeNext;
  let next = (closed ? at.closeds : at.opens)?.get(t);
  if (next !== undefined) return next;
  next = newStep(trie);
  if (next === undefined) return undefined;
  if (at.type === undefined) {
    at.type = t;
    at.closed = closed;
    at.typeNext = next;
  } else if (closed) {
    at.closeds ??= new Map();
    at.closeds.set(t, next);
  } else {
    at.opens ??= new Map();
    at.opens.set(t, next);
  }
  return next;
}

/**
 * The label of a literal field `d` the fast path takes (`plainLabel`), or undefined; the common
 * `name: value` field is answered without reading its kind, constraint and aliases.
 */
function fieldLabel(d: ast.Decl): string | undefined {
  if (d instanceof IdentFieldNode) {
    const name = d.labelName;
    const c = name.charCodeAt(0);
    return c === 0x23 || c === 0x5f || c === 0x24 ? undefined : name;
  }
  return d.kind === "Field" ? plainLabel(d) : undefined;
}

/**
 * Exports the struct with conjuncts `c0`, `c1`, `more…` by its shape's plan, or answers
 * {@link NO_PLAN} (and may leave the shape to be recorded: {@link takeWanted}).
 */
export function planned(
  c0: Contrib,
  c1: Contrib | undefined,
  more: Contrib[] | undefined,
  n: number,
  depth: number,
  lvl: number,
): unknown {
  let anchor: FastType | undefined;
  for (let k = 0; k < n; k++) {
    const c = nth(c0, c1, more, k);
    if (c instanceof Use) {
      anchor = c.type;
      break;
    }
  }
  if (anchor === undefined) return NO_PLAN;
  let trie = tries.get(anchor);
  if (trie === undefined) {
    trie = { root: emptyStep(), steps: 0 };
    tries.set(anchor, trie);
  }
  const base = vtop;
  let at: Step = trie.root;
  let dj: DisjT | undefined;
  for (let k = 0; k < n; k++) {
    const c = nth(c0, c1, more, k);
    if (c instanceof Use) {
      const t = c.type;
      if (t.k === "disj") dj = t;
      const next = typeStep(trie, at, t, c.closed);
      if (next === undefined) return none(base);
      at = next;
      continue;
    }
    const decls = (c as ast.StructLit).decls;
    if (decls.length > MAX_FIELDS) return none(base);
    let next: Step | undefined = at.struct;
    if (next === undefined) {
      next = newStep(trie);
      if (next === undefined) return none(base);
      at.struct = next;
    }
    at = next;
    for (let j = 0; j < decls.length; j++) {
      const d = decls[j] as ast.Decl;
      const label = fieldLabel(d);
      if (label === undefined) {
        if (d.kind === "Attribute") continue;
        return none(base);
      }
      const v = (d as ast.Field).value;
      if (!plainShallow(v)) return none(base);
      push(label, v);
      const step = labelStep(trie, at, label);
      if (step === undefined) return none(base);
      at = step;
    }
  }
  let term: TermT | typeof NO_TERM = NO_TERM;
  if (dj !== undefined) {
    const t = chosen(dj, base);
    if (t === undefined) return none(base);
    term = t;
  }
  let plans = at.plans;
  if (plans === undefined) {
    plans = new Map();
    at.plans = plans;
  }
  const plan = plans.get(term);
  if (plan === undefined) {
    // Not planned until the general collection of this struct succeeds.
    plans.set(term, null);
    wanted = { plans, term };
    return none(base);
  }
  if (plan === null) return none(base);
  return run(plan, c0, c1, more, base, depth, lvl);
}

function push(label: string, v: ast.Expr): void {
  labs[vtop] = label;
  vals[vtop++] = v;
  if (vtop > vhigh) vhigh = vtop;
}

/** Drops the values read for a struct that is not exported by a plan. */
function none(base: number): typeof NO_PLAN {
  vtop = base;
  return NO_PLAN;
}

/**
 * The term of `dj` the struct's literal fields choose, as the general collection's `choose` does
 * when a union is the only typed conjunct: its only term, or the term its tag's first literal value
 * names. Undefined for a union chosen otherwise (not planned).
 */
function chosen(dj: DisjT, base: number): TermT | undefined {
  if (dj.terms.length === 1) return dj.terms[0];
  const tag = dj.tag;
  if (tag === undefined || vtop === base) return undefined;
  // The first literal value among the literal fields with the tag's label (plain data has no
  // parentheses to look through).
  const want = tag.label;
  let lit: ast.Expr | undefined;
  for (let i = base; i < vtop && lit === undefined; i++) {
    if (labs[i] !== want) continue;
    const x = vals[i] as ast.Expr;
    switch (x.kind) {
      case "String":
      case "Int":
      case "Bool":
      case "Null":
        lit = x;
        break;
      default:
        break;
    }
  }
  return lit?.kind === "String" ? tag.terms.get(lit.value) : undefined;
}

/** Exports a struct by `plan`, its literal values at `[base, vtop)`. */
function run(
  plan: Plan,
  c0: Contrib,
  c1: Contrib | undefined,
  more: Contrib[] | undefined,
  base: number,
  depth: number,
  lvl: number,
): unknown {
  const o = structOpen();
  const fields = plan.fields;
  const flat = flatJSON();
  for (let i = 0; i < fields.length; i++) {
    const f = fields[i] as PlanField;
    const name = f.name;
    if (flat) {
      const g = f.group;
      if (g !== null && g !== undefined && fits(g, depth)) {
        putFields(i, g.text, g.ascii);
        i = g.end - 1;
        continue;
      }
    }
    structKey(i, name, lvl);
    if (f.alone !== undefined) {
      const x = aloneNode(f.alone, depth + 1, lvl + 1);
      if (x === undefined) return failedIn(name);
      structSet(o, name, x);
      continue;
    }
    const s = f.srcs;
    const n = s.length;
    const a = contrib(s[0] as Src, name, base, c0, c1, more);
    const b = n > 1 ? contrib(s[1] as Src, name, base, c0, c1, more) : undefined;
    let rest: Contrib[] | undefined;
    if (n > 2) {
      rest = [];
      for (let j = 2; j < n; j++) rest.push(contrib(s[j] as Src, name, base, c0, c1, more));
    }
    const x = node(a, b, rest, depth + 1, lvl + 1);
    if (x === undefined) return failedIn(name);
    structSet(o, name, x);
  }
  structClose(fields.length, lvl);
  vtop = base;
  if (flat && !plan.grouped) group(plan);
  return o;
}

/** Whether writing `g` at once stays within the limits that writing its fields one by one checks. */
function fits(g: Group, depth: number): boolean {
  const e = engine();
  if (depth + 1 + g.height > limits.maxDepth || e.steps + g.steps > limits.maxSteps) return false;
  e.steps += g.steps;
  return true;
}

/** Groups the runs of fields of `plan` that export the same value every time (after a first export). */
function group(plan: Plan): void {
  plan.grouped = true;
  const fields = plan.fields;
  for (let i = 0; i < fields.length; ) {
    let j = i;
    let text = "";
    let steps = 0;
    let height = 0;
    for (; j < fields.length; j++) {
      const u = (fields[j] as PlanField).alone;
      const a = u === undefined ? undefined : aloneJSON(u);
      if (a === undefined) break;
      if (j > i) text += ",";
      text += `${quoteKey((fields[j] as PlanField).name)}:${a.json}`;
      steps += 2 + a.size;
      if (a.height > height) height = a.height;
    }
    const ascii = text.length < 4096 && /^[\x20-\x7e]*$/.test(text);
    (fields[i] as PlanField).group = j > i ? { text, ascii, end: j, steps, height } : null;
    i = j > i ? j : i + 1;
  }
}

/** The conjunct `s` stands for in the struct being exported (its field `name`). */
function contrib(
  s: Src,
  name: string,
  base: number,
  c0: Contrib,
  c1: Contrib | undefined,
  more: Contrib[] | undefined,
): Contrib {
  switch (s.k) {
    case "lit":
      return vals[base + s.i] as ast.Expr;
    case "use":
      return s.use;
    case "bind": {
      const b = (nth(c0, c1, more, s.i) as Use).binds;
      return b === undefined ? s.use : new Use(s.use.expr, s.use.type, s.use.closed, b);
    }
    case "alias": {
      const b = s.i < 0 ? undefined : (nth(c0, c1, more, s.i) as Use).binds;
      return new Use(s.use.expr, s.use.type, s.use.closed, { label: s.alias, value: name, up: b });
    }
    default: {
      const never: never = s;
      return never;
    }
  }
}

/** One field as the general collection left it: its label, field type and conjuncts. */
export interface Collected {
  readonly label: string;
  readonly ft: number;
  readonly conjuncts: readonly Contrib[];
}

/**
 * Records the plan of the shape {@link takeWanted} gave, from the fields the general collection of
 * a struct of that shape gathered (`conjuncts`: the struct's). Not planned (null) when a conjunct's
 * source is not certain: a literal value met twice, two conjuncts with the same bindings.
 */
export function record(
  w: NonNullable<typeof wanted>,
  fields: readonly Collected[],
  c0: Contrib,
  c1: Contrib | undefined,
  more: Contrib[] | undefined,
  n: number,
): void {
  w.plans.set(w.term, makePlan(fields, c0, c1, more, n) ?? null);
}

function makePlan(
  fields: readonly Collected[],
  c0: Contrib,
  c1: Contrib | undefined,
  more: Contrib[] | undefined,
  n: number,
): Plan | undefined {
  // The literal values by position, and the conjuncts by their label bindings (a use has some
  // exactly when its type refers to an alias bound outside it: the same for every struct of the
  // shape).
  const litIndex = new Map<ast.Expr, number>();
  const bindsOf = new Map<Binds, number>();
  for (let k = 0; k < n; k++) {
    const c = nth(c0, c1, more, k);
    if (c instanceof Use) {
      if (c.binds === undefined) continue;
      if (bindsOf.has(c.binds)) return undefined;
      bindsOf.set(c.binds, k);
      continue;
    }
    for (const d of (c as ast.StructLit).decls) {
      if (d.kind !== "Field") continue;
      if (litIndex.has(d.value)) return undefined;
      litIndex.set(d.value, litIndex.size);
    }
  }
  const out: PlanField[] = [];
  for (const f of fields) {
    if (f.ft === OPTIONAL) continue;
    if (f.ft === REQUIRED) return undefined;
    const name = displayLabel(f.label);
    const srcs: Src[] = [];
    for (const c of f.conjuncts) {
      const s = source(c, name, litIndex, bindsOf);
      if (s === undefined) return undefined;
      srcs.push(s);
    }
    if (srcs.length === 0) return undefined;
    const s0 = srcs[0] as Src;
    out.push({
      name,
      srcs,
      alone: srcs.length === 1 && s0.k === "use" ? s0.use : undefined,
      group: undefined,
    });
  }
  return { fields: out, grouped: false };
}

function source(
  c: Contrib,
  name: string,
  litIndex: ReadonlyMap<ast.Expr, number>,
  bindsOf: ReadonlyMap<Binds, number>,
): Src | undefined {
  if (!(c instanceof Use)) {
    const i = litIndex.get(c);
    return i === undefined ? undefined : { k: "lit", i };
  }
  const b = c.binds;
  if (b === undefined) return { k: "use", use: c };
  const use = new Use(c.expr, c.type, c.closed);
  const i = bindsOf.get(b);
  if (i !== undefined) return { k: "bind", i, use };
  const up = b.up === undefined ? -1 : bindsOf.get(b.up);
  if (up === undefined || b.value !== name) return undefined;
  return { k: "alias", i: up, use, alias: b.label };
}
