/**
 * The fast export path: a vertex whose conjuncts are plain data (literals, lists and structs of
 * regular fields, as generated configuration is) unified with compiled types (`fast-types.ts`,
 * `fast-compile.ts`) is exported directly from the syntax, without building vertices, conjuncts,
 * frames or closedness records. It computes what the general evaluator would, in the same order:
 * fields in the order their first conjunct declares them, a tagged union resolved after the other
 * conjuncts by the same discrimination, pattern constraints applied last (a label alias bound to
 * the label they matched), scalar conjuncts unified with the same `meet` calls in the same passes.
 * A declaration used alone (a default, `flap: #Flap`) is exported once and written again from that
 * copy; JSON text goes into a byte buffer (`fast-text.ts`).
 *
 * It only ever answers for documents without errors. Anything else — a conflict, a field a closed
 * struct does not allow, a missing required field, a non-concrete value, a construct it does not
 * compile, a limit — makes it give up, and the export walk evaluates the vertex the general way,
 * which finds and words the errors as it always has. The vertex is left unevaluated either way, so
 * whatever later looks at it (positions, references) evaluates it the general way too.
 */

import type * as ast from "../syntax/ast.js";
import { inDefinition } from "./collect.js";
import { resolveDefaultValue } from "./defaults.js";
import { literalValue } from "./discriminator.js";
import { engine } from "./engine.js";
import { patternAccepts } from "./evaluate.js";
import type { CueData } from "./export.js";
import { conjunctType, plainEnv } from "./fast-compile.js";
import {
  atomOut,
  begin,
  emitSnap,
  finish,
  flatJSON,
  inSnapMode,
  listClose,
  listKey,
  listOpen,
  listPush,
  type Mode,
  putJSON,
  type Snap,
  snapJSON,
  snapSize,
  structClose,
  structKey,
  structOpen,
  structSet,
} from "./fast-out.js";
import { definitionSnap } from "./fast-snap.js";
import {
  BADK as BAD,
  type Binds,
  type DisjT,
  LIST,
  NEUTRAL,
  SCALAR,
  STRUCT,
  type StructT,
  type TermT,
  Use,
} from "./fast-types.js";
import { meet } from "./meet.js";
import { type Atom, atomsEqual, compareAtoms, isAtom, literalAtom, TOP, type Value } from "./values.js";
import {
  type CloseSet,
  displayLabel,
  NEW,
  OPTIONAL,
  REGULAR,
  REQUIRED,
  strLabel,
  type Vertex,
} from "./vertex.js";

/** A conjunct as the fast path sees it: plain data (its syntax) or a compiled type's use. */
type Contrib = ast.Expr | Use;

/** What `fastExport` produced: data or JSON text (in chunks); or where below the vertex it gave up. */
export type FastResult =
  | { readonly ok: true; readonly data: CueData | undefined; readonly text: readonly string[] }
  | { readonly ok: false; readonly failAt: readonly string[] };

const byDefault = typeof process === "undefined" || process.env.CUE_FAST !== "0";
let enabled = byDefault;

/** Tests: turn the fast path off or on (undefined: as `CUE_FAST` says) to compare with the general evaluator. */
export function setFastExportForTesting(on: boolean | undefined): void {
  enabled = on ?? byDefault;
}

/** Whether the fast path is in use (`CUE_FAST=0` turns it off). */
export function fastExportEnabled(): boolean {
  return enabled;
}

let maxDepth = 0;
let maxSteps = 0;
const trail: string[] = [];
let failAt: string[] | undefined;
/** Set when giving up because of a limit (depth, steps), which depends on where a value is used. */
let limitHit = false;

/** Gives up; remembers the deepest place reached. Returns undefined (the "no result" of every step). */
function bail(): undefined {
  failAt ??= trail.slice();
  return undefined;
}

// The fields of the structs being evaluated, as a stack shared by all of them (a struct's fields are
// `[base, top)` while it collects them; its children's fields go above). Each field has up to two
// conjuncts inline and the rest in an array.
const eLabel: string[] = [];
const eFt: number[] = [];
/** Per field: the struct types (bits by their index) whose closedness allows its label. */
const eDecl: number[] = [];
const eC0: (Contrib | undefined)[] = [];
const eC1: (Contrib | undefined)[] = [];
const eMore: (Contrib[] | undefined)[] = [];
let top = 0;
let high = 0;

/**
 * Exports `v` (unevaluated) the fast way as `output` at indentation level `lvl`, or says where it
 * gave up. Never evaluates `v` itself.
 */
export function fastExport(
  v: Vertex,
  output: Exclude<Mode, "snap">,
  jsonIndent: number,
  lvl: number,
): FastResult {
  const e = engine();
  const steps = e.steps;
  maxDepth = e.limits.maxDepth;
  maxSteps = e.limits.maxSteps;
  trail.length = 0;
  failAt = undefined;
  limitHit = false;
  top = 0;
  begin(output, jsonIndent);
  let data: unknown;
  const cs = pristine(v) && e.limitErr === undefined ? rootContribs(v) : undefined;
  if (cs === undefined || cs.length === 0) data = bail();
  else data = node(cs[0] as Contrib, cs[1], cs.length > 2 ? cs.slice(2) : undefined, v.depth, lvl);
  const text = finish();
  // Forget the syntax the stack still points to.
  for (let i = 0; i < high; i++) {
    eC0[i] = undefined;
    eC1[i] = undefined;
    eMore[i] = undefined;
  }
  high = 0;
  if (data === undefined) {
    e.steps = steps;
    return { ok: false, failAt: failAt ?? [] };
  }
  return { ok: true, data: output === "data" ? (data as CueData) : undefined, text };
}

/**
 * Whether `v` holds nothing but its conjuncts: its parent may already have marked an unevaluated
 * arc (a field a closed struct does not allow has its error before it is evaluated).
 */
function pristine(v: Vertex): boolean {
  return (
    v.status === NEW &&
    v.err === undefined &&
    !v.notAllowed &&
    !v.isShared &&
    v.arcs === undefined &&
    v.choices === undefined &&
    v.cloneOf === undefined &&
    v.closeItems === undefined &&
    v.patterns === undefined
  );
}

/** The conjuncts of `v` as contributions, or undefined when one is of a form this path does not take. */
function rootContribs(v: Vertex): Contrib[] | undefined {
  if (v.isLet || v.conjuncts.length === 0 || inDefinition(v)) return undefined;
  const out: Contrib[] = [];
  for (const c of v.conjuncts) {
    const x = c.expr;
    if (x === undefined || c.value !== undefined || c.embed || c.open !== undefined) return undefined;
    if (c.andScope !== undefined || !plainCtx(c.ctx, v) || !plainEnv(c.env)) return undefined;
    const closed = c.ctx.length > 0;
    if (!closed && plainShallow(x) && (x.kind !== "Struct" || plainStruct(x))) {
      out.push(x);
      continue;
    }
    const t = conjunctType(x, c.env);
    if (t === undefined) return undefined;
    out.push(new Use(x, t, closed));
  }
  return out;
}

/** Closedness contexts that only close (definitions referenced as fields, not embedded). */
function plainCtx(ctx: CloseSet, v: Vertex): boolean {
  for (const c of ctx) {
    if (!c.recursive || c.fromEmbed || c.skipAt === v || c.andScope !== undefined) return false;
  }
  return true;
}

/** Whether a struct literal declares regular fields only (else it is compiled as a type: patterns). */
function plainStruct(x: ast.StructLit): boolean {
  for (const d of x.decls) {
    if (d.kind === "Attribute") continue;
    if (d.kind !== "Field" || plainLabel(d) === undefined) return false;
  }
  return true;
}

/** Whether `x` is plain data at its top (its parts are checked as they are reached). */
function plainShallow(x: ast.Expr): boolean {
  switch (x.kind) {
    case "Struct":
    case "List":
    case "Int":
    case "Float":
    case "String":
    case "Bytes":
    case "Bool":
    case "Null":
      return true;
    default:
      return false;
  }
}

function kindOf(c: Contrib): number {
  if (c instanceof Use) return c.kind;
  const k = c.kind;
  return k === "Struct" ? STRUCT : k === "List" ? LIST : SCALAR;
}

/** The `k`-th of the conjuncts `c0`, `c1`, `more`. */
function nth(c0: Contrib, c1: Contrib | undefined, more: Contrib[] | undefined, k: number): Contrib {
  return (k === 0 ? c0 : k === 1 ? c1 : more?.[k - 2]) as Contrib;
}

function count(c1: Contrib | undefined, more: Contrib[] | undefined): number {
  return c1 === undefined ? 1 : more === undefined ? 2 : 2 + more.length;
}

/**
 * The value of a vertex with conjuncts `c0`, `c1`, `more…` at depth `depth`: data, a snap, or null
 * (JSON text is written as it goes); undefined when the fast path gives up.
 */
function node(
  c0: Contrib,
  c1: Contrib | undefined,
  more: Contrib[] | undefined,
  depth: number,
  lvl: number,
): unknown {
  const e = engine();
  const n = count(c1, more);
  e.steps += 1 + n;
  if (depth > maxDepth || e.steps > maxSteps) {
    limitHit = true;
    return bail();
  }
  // A use with label bindings differs per use: it is not exported once for all.
  if (n === 1) {
    if (c0 instanceof Use) {
      if (c0.binds === undefined) return alone(c0, depth, lvl);
    } else if (c0.kind !== "Struct" && c0.kind !== "List") {
      // Plain data alone: its literal is its value.
      const a = literalAtom(c0);
      return a === undefined ? bail() : atomOut(a);
    }
  }
  let kind = NEUTRAL;
  for (let k = 0; k < n; k++) {
    const x = kindOf(nth(c0, c1, more, k));
    if (x === NEUTRAL) continue;
    if (x === BAD || (kind !== NEUTRAL && x !== kind)) return bail();
    kind = x;
  }
  if (kind === STRUCT) return structNode(c0, c1, more, n, depth, lvl);
  if (kind === LIST) return listNode(c0, c1, more, n, depth, lvl);
  return scalarNode(c0, c1, more, n);
}

interface Alone {
  readonly snap: Snap;
  readonly height: number;
  readonly size: number;
  /** The snap as unindented JSON, once written so. */
  json: string | undefined;
}

/** A declaration that is its vertex's only conjunct: exported once, written again from the copy. */
function alone(u: Use, depth: number, lvl: number): unknown {
  let a = u.alone as Alone | null | undefined;
  if (a === undefined) {
    const t = u.type;
    let s: Snap | null | undefined;
    if ((t.k === "struct" || t.k === "bad") && t.def !== undefined) s = definitionSnap(t.def);
    else if (t.k === "bad") s = null;
    else {
      const hit = limitHit;
      limitHit = false;
      s = inSnapMode(() => alone1(u, depth)) as Snap | undefined;
      // Giving up depends on nothing but the declaration, except when a limit was reached.
      if (s === undefined && limitHit) return undefined;
      limitHit = hit;
    }
    if (s === undefined || s === null) {
      u.alone = null;
      return bail();
    }
    const z = snapSize(s);
    a = { snap: s, height: z.height, size: z.size, json: undefined };
    u.alone = a;
  }
  if (a === null) return bail();
  const e = engine();
  e.steps += a.size;
  if (depth + a.height > maxDepth || e.steps > maxSteps) {
    limitHit = true;
    return bail();
  }
  if (flatJSON()) {
    a.json ??= snapJSON(a.snap);
    putJSON(a.json);
    return null;
  }
  return emitSnap(a.snap, lvl);
}

/** The value of a use alone, evaluated the fast way (in snap mode). */
function alone1(u: Use, depth: number): unknown {
  const kind = kindOf(u);
  if (kind === STRUCT) return structNode(u, undefined, undefined, 1, depth, 0);
  if (kind === LIST) return listNode(u, undefined, undefined, 1, depth, 0);
  if (kind === BAD) return bail();
  return scalarNode(u, undefined, undefined, 1);
}

function find(base: number, label: string, index: Map<string, number> | undefined): number {
  if (index !== undefined) return index.get(label) ?? -1;
  for (let i = base; i < top; i++) if (eLabel[i] === label) return i;
  return -1;
}

/** Adds a conjunct to field `i`. */
function push(i: number, c: Contrib): void {
  if (eC0[i] === undefined) eC0[i] = c;
  else if (eC1[i] === undefined) eC1[i] = c;
  else {
    const m = eMore[i];
    if (m === undefined) eMore[i] = [c];
    else m.push(c);
  }
}

/** A new field slot at `top`. */
function slot(label: string, ft: number): number {
  const i = top++;
  if (top > high) high = top;
  eLabel[i] = label;
  eFt[i] = ft;
  eDecl[i] = 0;
  eC0[i] = undefined;
  eC1[i] = undefined;
  eMore[i] = undefined;
  return i;
}

// A struct with more fields than this indexes them by label.
const SCAN = 12;

/**
 * Adds conjunct `c` of field `label` to the struct whose fields start at `base`; `decl`: the bit of
 * the struct type that allows the label by declaring it (0 for none).
 */
function add(
  base: number,
  label: string,
  ft: number,
  c: Contrib,
  index: Map<string, number> | undefined,
  decl: number,
): Map<string, number> | undefined {
  let i = find(base, label, index);
  if (i < 0) {
    i = slot(label, ft);
    if (index !== undefined) index.set(label, i);
    else if (top - base > SCAN) {
      index = new Map();
      for (let j = base; j < top; j++) index.set(eLabel[j] as string, j);
    }
  } else if (ft < (eFt[i] as number)) eFt[i] = ft;
  if (decl !== 0) eDecl[i] = (eDecl[i] as number) | decl;
  push(i, c);
  return index;
}

/** The label of a plain field (regular, no alias, a regular name or a quoted one), or undefined. */
function plainLabel(d: ast.Field): string | undefined {
  if (d.constraint !== "regular" || d.alias !== undefined || d.keyAlias !== undefined) return undefined;
  const l = d.label;
  if (l.kind === "Ident") {
    const c = l.name.charCodeAt(0);
    return c === 0x23 || c === 0x5f || c === 0x24 ? undefined : l.name;
  }
  return l.kind === "String" ? strLabel(l.value) : undefined;
}

function structNode(
  c0: Contrib,
  c1: Contrib | undefined,
  more: Contrib[] | undefined,
  n: number,
  depth: number,
  lvl: number,
): unknown {
  const base = top;
  let index: Map<string, number> | undefined;
  let dj: DisjT | undefined;
  let ns = 0;
  for (let k = 0; k < n; k++) {
    const c = nth(c0, c1, more, k);
    if (!(c instanceof Use)) {
      for (const d of (c as ast.StructLit).decls) {
        if (d.kind === "Attribute") continue;
        if (d.kind !== "Field") return bail();
        const label = plainLabel(d);
        if (label === undefined || !plainShallow(d.value)) return bail();
        index = add(base, label, REGULAR, d.value, index, 0);
      }
      continue;
    }
    const t = c.type;
    if (t.k === "struct") {
      if (dj !== undefined || ns === MAX_TYPES) return bail();
      const ci = c.closed || t.def !== undefined ? 1 : 0;
      sType[ns] = t;
      sClosing[ns] = c.closed || t.closes;
      sCi[ns] = ci;
      sBinds[ns] = c.binds;
      ns++;
      const bit = 1 << (ns - 1);
      for (const f of t.fields) {
        index = add(base, f.label, f.ft, bind(f.uses[ci], c.binds), index, f.declared ? bit : 0);
      }
    } else if (t.k === "disj") {
      if (ns > 0 || dj !== undefined) return bail();
      dj = t;
    }
  }
  if (dj !== undefined) {
    // As the evaluator resolves a disjunction after collecting the other conjuncts.
    const term = choose(dj, base, index);
    if (term === undefined || term.type.k !== "struct") return bail();
    const st = term.type;
    sType[0] = st;
    sClosing[0] = true;
    sCi[0] = 1;
    sBinds[0] = undefined;
    ns = 1;
    for (const f of st.fields) index = add(base, f.label, f.ft, f.uses[1], index, f.declared ? 1 : 0);
  }
  if (ns > 0 && !patterns(base, ns)) return bail();
  const end = top;
  const o = structOpen();
  let written = 0;
  for (let i = base; i < end; i++) {
    const ft = eFt[i];
    if (ft === OPTIONAL) continue;
    const name = displayLabel(eLabel[i] as string);
    trail.push(name);
    if (ft === REQUIRED) return bail();
    structKey(written, name, lvl);
    written++;
    const x = node(eC0[i] as Contrib, eC1[i], eMore[i], depth + 1, lvl + 1);
    if (x === undefined) return undefined;
    trail.pop();
    structSet(o, name, x);
  }
  structClose(written, lvl);
  top = base;
  return o;
}

// The struct types of the struct being collected (used up before its fields are evaluated): each
// with whether it closes the struct, which of its uses apply (closed or not), and its bindings.
const MAX_TYPES = 30;
const sType: StructT[] = [];
const sClosing: boolean[] = [];
const sCi: (0 | 1)[] = [];
const sBinds: (Binds | undefined)[] = [];

/**
 * Applies the pattern constraints of the `ns` struct types to the fields from `base`, in the
 * evaluator's order (field by field, patterns in the order collected), and checks closedness: a
 * field must be allowed by every type that closes the struct (its labels, its patterns, `...`).
 * Requiring every closing type (rather than every closedness context, which may combine several)
 * is stricter than the evaluator at worst, and then the general path answers. False to give up.
 */
function patterns(base: number, ns: number): boolean {
  let check = 0;
  let any = false;
  for (let j = 0; j < ns; j++) {
    const t = sType[j] as StructT;
    if (sClosing[j] && !t.open) check |= 1 << j;
    if (t.patterns.length > 0) any = true;
  }
  if (check === 0 && !any) return true;
  for (let i = base; i < top; i++) {
    const label = eLabel[i] as string;
    let need = check & ~(eDecl[i] as number);
    for (let j = 0; j < ns; j++) {
      const t = sType[j] as StructT;
      if ((need & (1 << j)) !== 0 && t.labels.has(label)) need &= ~(1 << j);
      for (const p of t.patterns) {
        if (!patternAccepts(p.pattern, label)) continue;
        need &= ~(1 << j);
        const u = p.uses[sCi[j] as 0 | 1];
        const b = sBinds[j];
        if (u.type.free.length === 0) push(i, u);
        else
          push(
            i,
            new Use(
              u.expr,
              u.type,
              u.closed,
              p.alias === undefined ? b : { label: p.alias, value: displayLabel(label), up: b },
            ),
          );
      }
    }
    if (need !== 0) return false;
  }
  for (let j = 0; j < ns; j++) sBinds[j] = undefined;
  return true;
}

/** `u` with the label bindings of the use it comes from, when its type refers to them. */
function bind(u: Use, b: Binds | undefined): Use {
  return b === undefined || u.type.free.length === 0 ? u : new Use(u.expr, u.type, u.closed, b);
}

/** The first literal among a field's conjuncts (what the evaluator's discrimination reads). */
function baseLiteral(i: number): ast.Expr | undefined {
  const n = count(eC1[i], eMore[i]);
  for (let k = 0; k < n; k++) {
    const c = nth(eC0[i] as Contrib, eC1[i], eMore[i], k);
    let x = c instanceof Use ? c.expr : c;
    while (x.kind === "Paren") x = x.expr;
    switch (x.kind) {
      case "String":
      case "Int":
      case "Bool":
      case "Null":
        return x;
      default:
        break;
    }
  }
  return undefined;
}

/** The one term no literal field conflicts with (the evaluator's tagged-union fast path), if any. */
function choose(dj: DisjT, base: number, index: Map<string, number> | undefined): TermT | undefined {
  const terms = dj.terms;
  if (terms.length === 1) return terms[0];
  if (top === base) return undefined;
  const tag = dj.tag;
  if (tag !== undefined) {
    // Each term has one string literal on the same label: the field's literal picks the term.
    const i = find(base, tag.label, index);
    const lit = i < 0 ? undefined : baseLiteral(i);
    return lit?.kind === "String" ? tag.terms.get(lit.value) : undefined;
  }
  let only: TermT | undefined;
  let n = 0;
  for (const t of terms) {
    if (!dropped(t, base, index)) {
      n++;
      only = t;
    }
  }
  return n === 1 ? only : undefined;
}

function dropped(t: TermT, base: number, index: Map<string, number> | undefined): boolean {
  if (t.lits === null) return false;
  for (const [label, lit] of t.lits) {
    const i = find(base, label, index);
    const x = i < 0 ? undefined : baseLiteral(i);
    const b = x === undefined ? undefined : literalValue(x);
    if (b !== undefined && (b.t !== lit.t || !atomsEqual(b, lit))) return true;
  }
  return false;
}

function listNode(
  c0: Contrib,
  c1: Contrib | undefined,
  more: Contrib[] | undefined,
  n: number,
  depth: number,
  lvl: number,
): unknown {
  const base = top;
  const at = (i: number): number => {
    while (top <= base + i) slot("", REGULAR);
    return base + i;
  };
  let userLen = -1;
  let typeLen = 0;
  let open = false;
  let rest: Use | undefined;
  let typed = false;
  for (let k = 0; k < n; k++) {
    const c = nth(c0, c1, more, k);
    if (!(c instanceof Use)) {
      const l = c as ast.ListLit;
      if (userLen >= 0 || l.ellipsis !== undefined) return bail();
      const els = l.elems;
      userLen = els.length;
      for (let i = 0; i < els.length; i++) {
        const el = els[i] as ast.Expr | ast.Comprehension;
        if (el.kind === "Comprehension" || !plainShallow(el)) return bail();
        push(at(i), el);
      }
      continue;
    }
    const t = c.type;
    if (t.k !== "list") continue;
    if (typed) return bail();
    typed = true;
    const ci = c.closed ? 1 : 0;
    typeLen = t.prefix.length;
    open = t.open;
    const r = t.rest?.[ci];
    rest = r === undefined ? undefined : bind(r, c.binds);
    for (let i = 0; i < typeLen; i++) push(at(i), bind((t.prefix[i] as readonly [Use, Use])[ci], c.binds));
  }
  let len = typeLen;
  if (userLen >= 0) {
    if (typed && (open ? typeLen > userLen : typeLen !== userLen)) return bail();
    len = userLen;
  }
  // The type of further elements comes last, as the evaluator adds it when it finishes the list.
  if (rest !== undefined) for (let i = typeLen; i < len; i++) push(at(i), rest);
  const o = listOpen();
  for (let i = 0; i < len; i++) {
    listKey(i, lvl);
    trail.push(String(i));
    const j = base + i;
    const x = node(eC0[j] as Contrib, eC1[j], eMore[j], depth + 1, lvl + 1);
    if (x === undefined) return undefined;
    trail.pop();
    listPush(o, x);
  }
  listClose(len, lvl);
  top = base;
  return o;
}

function scalarNode(c0: Contrib, c1: Contrib | undefined, more: Contrib[] | undefined, n: number): unknown {
  let v: Value = TOP;
  // The evaluator unifies literal conjuncts first, then the others, each pass in conjunct order, then
  // the disjunctions it left pending.
  for (let phase = 0; phase < 3; phase++) {
    for (let k = 0; k < n; k++) {
      const c = nth(c0, c1, more, k);
      if (!(c instanceof Use)) {
        if (phase !== 0) continue;
        const a = literalAtom(c);
        if (a === undefined) return bail();
        v = meetAtom(v, a);
      } else {
        const t = c.type;
        if (t.k !== "scalar") continue;
        for (const p of t.parts) {
          if (p.phase !== phase) continue;
          if (p.alias === undefined) v = meetAtom(v, p.value);
          else {
            const a = boundLabel(c.binds, p.alias);
            if (a === undefined) return bail();
            v = meetAtom(v, a);
          }
        }
      }
      if (v.t === "bottom") return bail();
    }
  }
  const x = resolveDefaultValue(v);
  if (!isAtom(x)) return bail();
  return atomOut(x);
}

/** The label a pattern's alias stands for in `b`, as a string value. */
function boundLabel(b: Binds | undefined, label: ast.PatternLabel): Value | undefined {
  for (let x = b; x !== undefined; x = x.up) if (x.label === label) return { t: "string", v: x.value };
  return undefined;
}

/**
 * `meet(a, b)` — with the common case of a disjunction of atoms and basic types meeting an atom
 * answered without building the intermediate disjunction: then `meet` keeps the first term that
 * does not conflict, all of them being that same atom (a conflict is answered as bottom only).
 */
function meetAtom(a: Value, b: Value): Value {
  const d = a.t === "disj" ? a : b.t === "disj" ? b : undefined;
  const x = d === a ? b : a;
  if (d === undefined || !isAtom(x) || d.t !== "disj") return meet(a, b);
  let first: Value | undefined;
  for (const y of d.values) {
    if (y.t !== "basic" && !isAtom(y)) return meet(a, b);
  }
  for (const y of d.values) {
    const r = y.t === "basic" ? meet(y, x) : isAtom(y) && sameAtom(y, x) ? y : undefined;
    if (r === undefined || r.t === "bottom") continue;
    first ??= r;
  }
  return first ?? meet(a, b);
}

/** Whether two atoms are the same value of the same kind (as `meet` and its deduplication see it). */
function sameAtom(a: Atom, b: Atom): boolean {
  if (a.t !== b.t) return false;
  if (a.t === "null") return true;
  if (a.t === "bool" && b.t === "bool") return a.v === b.v;
  return compareAtoms(a, b) === 0;
}
