/**
 * The fast export path: a vertex whose conjuncts are plain data (literals, lists and structs of
 * regular fields, as generated configuration is) unified with compiled types (`fast-types.ts`) is
 * exported directly from the syntax, without building vertices, conjuncts, frames or closedness
 * records. It computes what the general evaluator would, in the same order: fields in the order
 * their first conjunct declares them, a tagged union resolved after the other conjuncts by the same
 * discrimination, pattern constraints applied last, scalar conjuncts unified with the same `meet`
 * calls in the same two passes.
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
import { evaluate, patternAccepts } from "./evaluate.js";
import type { CueData } from "./export.js";
import { atomData, atomJSON, quoteKey, setField } from "./export-atoms.js";
import {
  conjunctType,
  type DisjT,
  type FastType,
  type ListT,
  plainEnv,
  type StructT,
  type TermT,
} from "./fast-types.js";
import { meet } from "./meet.js";
import { shareable } from "./share.js";
import { type Atom, atomsEqual, isAtom, TOP, type Value } from "./values.js";
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

/** One conjunct of a vertex the fast path evaluates: plain data (`type` unset) or a compiled type. */
interface Contrib {
  readonly expr: ast.Expr;
  readonly type: FastType | undefined;
  /** Whether a closedness context of the conjunct closes the struct it describes. */
  readonly closed: boolean;
}

interface Entry {
  ft: number;
  readonly cs: Contrib[];
}

/** What `fastExport` produced: data or JSON text; or where below the vertex it gave up. */
export type FastResult =
  | { readonly ok: true; readonly data: CueData | undefined; readonly text: string | undefined }
  | { readonly ok: false; readonly failAt: readonly string[] };

type Mode = "data" | "json" | "none";

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

// The state of one run (evaluation is synchronous and a run does not re-enter).
let mode: Mode = "data";
let parts: string[] = [];
let chunks: string[] = [];
let indent = 0;
let sep = ": ";
const pads: string[] = [];
let maxDepth = 0;
let maxSteps = 0;
const trail: string[] = [];
let failAt: string[] | undefined;

const CHUNK = 4096;

function put(x: string): void {
  parts.push(x);
  if (parts.length === CHUNK) {
    chunks.push(parts.join(""));
    parts = [];
  }
}

function pad(n: number): string {
  if (indent <= 0) return "";
  let p = pads[n];
  if (p === undefined) {
    p = `\n${" ".repeat(n * indent)}`;
    pads[n] = p;
  }
  return p;
}

/** Gives up; remembers the deepest place reached. Returns undefined (the "no result" of every step). */
function bail(): undefined {
  failAt ??= trail.slice();
  return undefined;
}

/**
 * Exports `v` (unevaluated) the fast way as `output` at indentation level `lvl`, or says where it
 * gave up. Never evaluates `v` itself.
 */
export function fastExport(v: Vertex, output: Mode, jsonIndent: number, lvl: number): FastResult {
  const e = engine();
  const steps = e.steps;
  mode = output;
  indent = jsonIndent;
  sep = jsonIndent > 0 ? ": " : ":";
  pads.length = 0;
  parts = [];
  chunks = [];
  maxDepth = e.limits.maxDepth;
  maxSteps = e.limits.maxSteps;
  trail.length = 0;
  failAt = undefined;
  const cs = pristine(v) && e.limitErr === undefined ? rootContribs(v) : undefined;
  const data = cs === undefined ? bail() : node(cs, v.depth, lvl);
  if (data === undefined) {
    e.steps = steps;
    const at = failAt ?? [];
    parts = [];
    chunks = [];
    return { ok: false, failAt: at };
  }
  let text: string | undefined;
  if (mode === "json") {
    chunks.push(parts.join(""));
    text = chunks.join("");
  }
  parts = [];
  chunks = [];
  return { ok: true, data: mode === "data" ? data : undefined, text };
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
    if (!closed && plainShallow(x)) {
      out.push({ expr: x, type: undefined, closed: false });
      continue;
    }
    const t = conjunctType(x, c.env);
    if (t === undefined) return undefined;
    out.push({ expr: x, type: t, closed });
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

// Node kinds.
const SCALAR = 0;
const STRUCT = 1;
const LIST = 2;

/**
 * The value of a vertex with conjuncts `cs` at depth `depth`: data (mode "data"), or null after
 * writing JSON text / checking only; undefined when the fast path gives up.
 */
function node(cs: Contrib[], depth: number, lvl: number): CueData | undefined {
  if (depth > maxDepth) return bail();
  const e = engine();
  e.steps += 1 + cs.length;
  if (e.steps > maxSteps) return bail();
  let kind = -1;
  for (const c of cs) {
    let k: number;
    const t = c.type;
    if (t === undefined) {
      const x = c.expr.kind;
      k = x === "Struct" ? STRUCT : x === "List" ? LIST : SCALAR;
    } else {
      switch (t.k) {
        case "struct":
        case "disj":
          k = STRUCT;
          break;
        case "list":
          k = LIST;
          break;
        case "scalar":
          k = SCALAR;
          if (t.parts.every((p) => p.value.t === "top")) continue;
          break;
        case "top":
          continue;
        case "bad":
          if (cs.length === 1 && t.def !== undefined) return snapshotOut(t.def, lvl);
          return bail();
        default: {
          const never: never = t;
          return never;
        }
      }
    }
    if (kind >= 0 && k !== kind) return bail();
    kind = k;
  }
  if (kind === STRUCT) {
    const t = cs.length === 1 ? cs[0]?.type : undefined;
    if (t !== undefined && t.k === "struct" && t.def !== undefined) return snapshotOut(t.def, lvl);
    return structNode(cs, depth, lvl);
  }
  if (kind === LIST) return listNode(cs, depth, lvl);
  return scalarNode(cs);
}

function add(entries: Map<string, Entry>, label: string, ft: number, c: Contrib): void {
  const en = entries.get(label);
  if (en === undefined) {
    entries.set(label, { ft, cs: [c] });
    return;
  }
  if (ft < en.ft) en.ft = ft;
  en.cs.push(c);
}

/** The label of a plain field (regular, no alias, a regular name), or undefined. */
function plainLabel(d: ast.Field): string | undefined {
  if (d.constraint !== "regular" || d.alias !== undefined || d.keyAlias !== undefined) return undefined;
  const l = d.label;
  if (l.kind === "Ident") {
    const c = l.name.charCodeAt(0);
    return c === 0x23 || c === 0x5f || c === 0x24 ? undefined : l.name;
  }
  if (l.kind !== "String") return undefined;
  const s = strLabel(l.value);
  return s.charCodeAt(0) === 1 ? undefined : s;
}

function structNode(cs: Contrib[], depth: number, lvl: number): CueData | undefined {
  const entries = new Map<string, Entry>();
  let st: StructT | undefined;
  let dj: DisjT | undefined;
  let closed = false;
  for (const c of cs) {
    const t = c.type;
    if (t === undefined) {
      for (const d of (c.expr as ast.StructLit).decls) {
        if (d.kind === "Attribute") continue;
        if (d.kind !== "Field") return bail();
        const label = plainLabel(d);
        if (label === undefined || !plainShallow(d.value)) return bail();
        add(entries, label, REGULAR, { expr: d.value, type: undefined, closed: false });
      }
    } else if (t.k === "struct") {
      if (st !== undefined || dj !== undefined) return bail();
      st = t;
      closed = c.closed || t.def !== undefined;
      for (const f of t.fields) add(entries, f.label, f.ft, { expr: f.expr, type: f.type, closed });
    } else if (t.k === "disj") {
      if (st !== undefined || dj !== undefined) return bail();
      dj = t;
    }
  }
  if (dj !== undefined) {
    // As the evaluator resolves a disjunction after collecting the other conjuncts.
    const term = choose(dj.terms, entries);
    if (term === undefined || term.type.k !== "struct") return bail();
    st = term.type;
    closed = true;
    for (const f of st.fields) add(entries, f.label, f.ft, { expr: f.expr, type: f.type, closed });
  }
  if (st !== undefined) {
    const pats = st.patterns;
    for (const [label, en] of entries) {
      if (
        closed &&
        !st.open &&
        !st.labels.has(label) &&
        !pats.some((p) => patternAccepts(p.pattern, label))
      ) {
        return bail();
      }
      for (const p of pats) {
        if (patternAccepts(p.pattern, label)) en.cs.push({ expr: p.expr, type: p.type, closed });
      }
    }
  }
  const obj: Record<string, CueData> | undefined = mode === "data" ? {} : undefined;
  const json = mode === "json";
  if (json) put("{");
  let count = 0;
  for (const [label, en] of entries) {
    if (en.ft === OPTIONAL) continue;
    const name = displayLabel(label);
    trail.push(name);
    if (en.ft === REQUIRED) return bail();
    if (json) {
      if (count > 0) put(",");
      put(pad(lvl + 1));
      put(quoteKey(name));
      put(sep);
    }
    count++;
    const x = node(en.cs, depth + 1, lvl + 1);
    if (x === undefined) return undefined;
    trail.pop();
    if (obj !== undefined) setField(obj, name, x);
  }
  if (json) {
    if (count > 0) put(pad(lvl));
    put("}");
  }
  return obj ?? null;
}

/** The literal value a field has from its first conjunct that is a literal (as discrimination reads it). */
function baseLiteral(cs: readonly Contrib[]): Value | undefined {
  for (const c of cs) {
    const lv = literalValue(c.expr);
    if (lv !== undefined) return lv;
  }
  return undefined;
}

/** The one term no literal field conflicts with (the evaluator's tagged-union fast path), if any. */
function choose(terms: readonly TermT[], entries: Map<string, Entry>): TermT | undefined {
  if (terms.length === 1) return terms[0];
  let only: TermT | undefined;
  let n = 0;
  for (const t of terms) {
    if (!dropped(t, entries)) {
      n++;
      only = t;
    }
  }
  return n === 1 ? only : undefined;
}

function dropped(t: TermT, entries: Map<string, Entry>): boolean {
  if (entries.size === 0 || t.lits === null) return false;
  for (const [label, lit] of t.lits) {
    const en = entries.get(label);
    if (en === undefined) continue;
    const base = baseLiteral(en.cs);
    if (base !== undefined && (base.t !== lit.t || !atomsEqual(base, lit))) return true;
  }
  return false;
}

function listNode(cs: Contrib[], depth: number, lvl: number): CueData | undefined {
  let user: ast.ListLit | undefined;
  let lt: ListT | undefined;
  let closed = false;
  const elems: Contrib[][] = [];
  const at = (i: number): Contrib[] => {
    let x = elems[i];
    if (x === undefined) {
      x = [];
      elems[i] = x;
    }
    return x;
  };
  for (const c of cs) {
    const t = c.type;
    if (t === undefined) {
      if (user !== undefined) return bail();
      user = c.expr as ast.ListLit;
      if (user.ellipsis !== undefined) return bail();
      const els = user.elems;
      for (let i = 0; i < els.length; i++) {
        const el = els[i] as ast.Expr | ast.Comprehension;
        if (el.kind === "Comprehension" || !plainShallow(el)) return bail();
        at(i).push({ expr: el, type: undefined, closed: false });
      }
    } else if (t.k === "list") {
      if (lt !== undefined) return bail();
      lt = t;
      closed = c.closed;
      for (let i = 0; i < t.prefix.length; i++) {
        const p = t.prefix[i];
        if (p !== undefined) at(i).push({ expr: p.expr, type: p.type, closed });
      }
    }
  }
  const typeLen = lt?.prefix.length ?? 0;
  let len = typeLen;
  if (user !== undefined) {
    len = user.elems.length;
    if (lt !== undefined && (lt.open ? typeLen > len : typeLen !== len)) return bail();
  }
  const rest = lt?.rest;
  if (rest !== undefined) {
    for (let i = typeLen; i < len; i++) at(i).push({ expr: rest.expr, type: rest.type, closed });
  }
  const items: CueData[] | undefined = mode === "data" ? [] : undefined;
  const json = mode === "json";
  if (json) put("[");
  for (let i = 0; i < len; i++) {
    if (json) {
      if (i > 0) put(",");
      put(pad(lvl + 1));
    }
    trail.push(String(i));
    const x = node(at(i), depth + 1, lvl + 1);
    if (x === undefined) return undefined;
    trail.pop();
    items?.push(x);
  }
  if (json) {
    if (len > 0) put(pad(lvl));
    put("]");
  }
  return items ?? null;
}

/** The value of a literal as the evaluator computes it. */
function atomOf(x: ast.Expr): Atom | undefined {
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
    default:
      return undefined;
  }
}

function scalarNode(cs: Contrib[]): CueData | undefined {
  let v: Value = TOP;
  // The evaluator unifies literal conjuncts first, then the others, each pass in conjunct order, then
  // the disjunctions it left pending.
  for (let phase = 0; phase < 3; phase++) {
    for (const c of cs) {
      const t = c.type;
      if (t === undefined) {
        if (phase !== 0) continue;
        const a = atomOf(c.expr);
        if (a === undefined) return bail();
        v = meet(v, a);
      } else if (t.k === "scalar") {
        for (const p of t.parts) if (p.phase === phase) v = meet(v, p.value);
      }
      if (v.t === "bottom") return bail();
    }
  }
  const x = resolveDefaultValue(v);
  if (!isAtom(x)) return bail();
  if (mode === "json") put(atomJSON(x));
  return mode === "data" ? atomData(x) : null;
}

// ---------------------------------------------------------------------------------------------
// Definitions used as they are

/** An exported value kept for reuse: an atom, a struct's fields, or a list's items. */
type Snap =
  | Atom
  | { readonly t: "struct"; readonly keys: readonly string[]; readonly vals: readonly Snap[] }
  | { readonly t: "list"; readonly items: readonly Snap[] };

const snaps = new WeakMap<Vertex, Snap | null>();

/**
 * A field whose only conjunct is a definition (`flap: #Flap`) exports as the definition does: the
 * evaluator shares the definition's evaluated fields with it. Taken only for definitions the
 * evaluator would share (evaluated without errors or unresolved disjunctions).
 */
function snapshotOut(def: Vertex, lvl: number): CueData | undefined {
  let s = snaps.get(def);
  if (s === undefined) {
    s = shareable(def) ? (snapshot(def, 0) ?? null) : null;
    snaps.set(def, s);
  }
  if (s === null) return bail();
  return emitSnap(s, lvl);
}

function snapshot(v: Vertex, depth: number): Snap | undefined {
  evaluate(v);
  if (v.err !== undefined || depth > 100) return undefined;
  if (v.disj !== undefined) {
    const d = v.disj;
    let def: Vertex | undefined;
    let n = 0;
    for (let i = 0; i < d.values.length; i++) {
      if (d.hasDefault && d.defaults[i]) {
        n++;
        def = d.values[i];
      }
    }
    return n === 1 && def !== undefined ? snapshot(def, depth + 1) : undefined;
  }
  if (v.isList) {
    const items: Snap[] = [];
    for (let i = 0; i < v.listLen; i++) {
      const a = v.arcs?.get(String(i));
      if (a === undefined) continue;
      const x = snapshot(a, depth + 1);
      if (x === undefined) return undefined;
      items.push(x);
    }
    return { t: "list", items };
  }
  if (v.structMark > 0) {
    const keys: string[] = [];
    const vals: Snap[] = [];
    for (const a of v.arcs?.values() ?? []) {
      if (a.fieldType === OPTIONAL) continue;
      const c0 = a.label.charCodeAt(0);
      if (c0 === 0x5f || c0 === 0x23) continue;
      if (a.fieldType === REQUIRED) return undefined;
      const x = snapshot(a, depth + 1);
      if (x === undefined) return undefined;
      keys.push(displayLabel(a.label));
      vals.push(x);
    }
    return { t: "struct", keys, vals };
  }
  const x = resolveDefaultValue(v.scalar);
  if (isAtom(x)) return x;
  return x.t === "vertex" ? snapshot(x.v, depth + 1) : undefined;
}

function emitSnap(s: Snap, lvl: number): CueData {
  if (s.t === "list") {
    const items: CueData[] | undefined = mode === "data" ? [] : undefined;
    if (mode === "json") put("[");
    for (let i = 0; i < s.items.length; i++) {
      if (mode === "json") {
        if (i > 0) put(",");
        put(pad(lvl + 1));
      }
      const x = emitSnap(s.items[i] as Snap, lvl + 1);
      items?.push(x);
    }
    if (mode === "json") {
      if (s.items.length > 0) put(pad(lvl));
      put("]");
    }
    return items ?? null;
  }
  if (s.t === "struct") {
    const obj: Record<string, CueData> | undefined = mode === "data" ? {} : undefined;
    if (mode === "json") put("{");
    for (let i = 0; i < s.keys.length; i++) {
      const name = s.keys[i] as string;
      if (mode === "json") {
        if (i > 0) put(",");
        put(pad(lvl + 1));
        put(quoteKey(name));
        put(sep);
      }
      const x = emitSnap(s.vals[i] as Snap, lvl + 1);
      if (obj !== undefined) setField(obj, name, x);
    }
    if (mode === "json") {
      if (s.keys.length > 0) put(pad(lvl));
      put("}");
    }
    return obj ?? null;
  }
  if (mode === "json") put(atomJSON(s));
  return mode === "data" ? atomData(s) : null;
}
