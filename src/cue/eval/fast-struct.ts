/**
 * Structs and lists on the fast export path (`fast-export.ts`): a struct's fields collected from
 * its conjuncts in the evaluator's order (plain data, compiled struct types, a tagged union chosen
 * by its tag after the others), pattern constraints applied last with their label aliases bound,
 * closedness checked; a list's elements with the type of further elements added last. Each field
 * or element is then evaluated by `node`.
 */

import type * as ast from "../syntax/ast.js";
import { identLabel } from "../syntax/index.js";
import { literalValue } from "./discriminator.js";
import { patternAccepts } from "./evaluate.js";
import { node } from "./fast-export.js";
import {
  listClose,
  listKey,
  listOpen,
  listPush,
  structClose,
  structKey,
  structOpen,
  structSet,
} from "./fast-out.js";
import { type Collected, clearPlanValues, NO_PLAN, planned, record, takeWanted } from "./fast-plan.js";
import { bail, type Contrib, count, failedIn, nth } from "./fast-state.js";
import { type Binds, type DisjT, type StructT, type TermT, Use } from "./fast-types.js";
import { atomsEqual } from "./values.js";
import { displayLabel, OPTIONAL, REGULAR, REQUIRED, strLabel } from "./vertex.js";

// The fields of the structs being collected, as one stack shared by all of them: a struct's fields
// are `[base, top)` while it collects them, its children's go above. Each field has up to two
// conjuncts inline and the rest in an array, so that collecting a struct allocates nothing per
// field.
const eLabel: string[] = [];
const eFt: number[] = [];
/** Per field: the struct types (bits by their index) whose closedness allows its label. */
const eDecl: number[] = [];
const eC0: (Contrib | undefined)[] = [];
const eC1: (Contrib | undefined)[] = [];
const eMore: (Contrib[] | undefined)[] = [];
let top = 0;
let high = 0;

/** Empties the field stack and forgets the syntax it still points to (after an export). */
export function clearFields(): void {
  clearPlanValues();
  top = 0;
  for (let i = 0; i < high; i++) {
    eC0[i] = undefined;
    eC1[i] = undefined;
    eMore[i] = undefined;
  }
  high = 0;
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

/** A new field slot at the top. */
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

/** Whether `x` is plain data at its top (its parts are checked as they are reached). */
export function plainShallow(x: ast.Expr): boolean {
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

/** The label of a plain field (regular, no alias, a regular name or a quoted one), or undefined. */
export function plainLabel(d: ast.Field): string | undefined {
  if (d.constraint !== "regular" || d.alias !== undefined || d.keyAlias !== undefined) return undefined;
  // The name without making a label node (`name: value` fields make one per read).
  const name = identLabel(d);
  if (name !== undefined) {
    const c = name.charCodeAt(0);
    return c === 0x23 || c === 0x5f || c === 0x24 ? undefined : name;
  }
  const l = d.label;
  return l.kind === "String" ? strLabel(l.value) : undefined;
}

/**
 * The value of a struct with conjuncts `c0`, `c1`, `more…`: by its shape's plan when it has one,
 * else collected field by field.
 */
export function structNode(
  c0: Contrib,
  c1: Contrib | undefined,
  more: Contrib[] | undefined,
  n: number,
  depth: number,
  lvl: number,
): unknown {
  const p = planned(c0, c1, more, n, depth, lvl);
  // Collecting is kept out of this function: it is rare once shapes are planned, and V8 then
  // optimizes only the small part that runs for every struct.
  return p !== NO_PLAN ? p : collectStruct(c0, c1, more, n, depth, lvl);
}

function collectStruct(
  c0: Contrib,
  c1: Contrib | undefined,
  more: Contrib[] | undefined,
  n: number,
  depth: number,
  lvl: number,
): unknown {
  const want = takeWanted();
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
  if (want !== undefined) record(want, collected(base, end), c0, c1, more, n);
  const o = structOpen();
  let written = 0;
  for (let i = base; i < end; i++) {
    const ft = eFt[i];
    if (ft === OPTIONAL) continue;
    const name = displayLabel(eLabel[i] as string);
    if (ft === REQUIRED) {
      bail();
      return failedIn(name);
    }
    structKey(written, name, lvl);
    written++;
    const x = node(eC0[i] as Contrib, eC1[i], eMore[i], depth + 1, lvl + 1);
    if (x === undefined) return failedIn(name);
    structSet(o, name, x);
  }
  structClose(written, lvl);
  top = base;
  return o;
}

/** The fields at `[base, end)` of the field stack. */
function collected(base: number, end: number): Collected[] {
  const out: Collected[] = [];
  for (let i = base; i < end; i++) {
    const c0 = eC0[i];
    const conjuncts: Contrib[] = [];
    if (c0 !== undefined) {
      const n = count(eC1[i], eMore[i]);
      for (let k = 0; k < n; k++) conjuncts.push(nth(c0, eC1[i], eMore[i], k));
    }
    out.push({ label: eLabel[i] as string, ft: eFt[i] as number, conjuncts });
  }
  return out;
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

/** The slot of element `i` of the list whose elements start at `base` (made up to it). */
function elementSlot(base: number, i: number): number {
  while (top <= base + i) slot("", REGULAR);
  return base + i;
}

export function listNode(
  c0: Contrib,
  c1: Contrib | undefined,
  more: Contrib[] | undefined,
  n: number,
  depth: number,
  lvl: number,
): unknown {
  const base = top;
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
        push(elementSlot(base, i), el);
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
    for (let i = 0; i < typeLen; i++)
      push(elementSlot(base, i), bind((t.prefix[i] as readonly [Use, Use])[ci], c.binds));
  }
  let len = typeLen;
  if (userLen >= 0) {
    if (typed && (open ? typeLen > userLen : typeLen !== userLen)) return bail();
    len = userLen;
  }
  // The type of further elements comes last, as the evaluator adds it when it finishes the list.
  if (rest !== undefined) for (let i = typeLen; i < len; i++) push(elementSlot(base, i), rest);
  const o = listOpen();
  for (let i = 0; i < len; i++) {
    listKey(i, lvl);
    const j = base + i;
    const x = node(eC0[j] as Contrib, eC1[j], eMore[j], depth + 1, lvl + 1);
    if (x === undefined) return failedIn(String(i));
    listPush(o, x);
  }
  listClose(len, lvl);
  top = base;
  return o;
}
