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
import { foreignInEmbedScope, undeclaredInEmbedScope } from "./closedness.js";
import { inDefinition } from "./collect.js";
import { resolveDefaultValue } from "./defaults.js";
import { engine } from "./engine.js";
import type { CueData } from "./export.js";
import { conjunctType, plainEnv } from "./fast-compile.js";
import {
  atomOut,
  begin,
  emitSnap,
  finish,
  flatJSON,
  inSnapMode,
  type Mode,
  putJSON,
  type Snap,
  snapJSON,
  snapSize,
} from "./fast-out.js";
import { definitionSnap } from "./fast-snap.js";
import { bail, type Contrib, count, nth, run, startRun } from "./fast-state.js";
import { clearFields, listNode, plainLabel, plainShallow, structNode } from "./fast-struct.js";
import { BADK as BAD, type Binds, LIST, NEUTRAL, SCALAR, STRUCT, Use } from "./fast-types.js";
import { meet } from "./meet.js";
import { type Atom, compareAtoms, isAtom, literalAtom, TOP, type Value } from "./values.js";
import { type CloseSet, NEW, type Vertex } from "./vertex.js";

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
  startRun(e.limits.maxDepth, e.limits.maxSteps);
  clearFields();
  begin(output, jsonIndent);
  let data: unknown;
  const cs = pristine(v) && e.limitErr === undefined ? rootContribs(v) : undefined;
  if (cs === undefined || cs.length === 0) data = bail();
  else data = node(cs[0] as Contrib, cs[1], cs.length > 2 ? cs.slice(2) : undefined, v.depth, lvl);
  const text = finish();
  clearFields();
  if (data === undefined) {
    e.steps = steps;
    return { ok: false, failAt: run.failAt === undefined ? [] : run.failAt.reverse() };
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
  // Below a struct that embeds a definition, closedness depends on where fields came from.
  if (foreignInEmbedScope(v) || undeclaredInEmbedScope(v)) return undefined;
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
    if (
      !c.recursive ||
      c.fromEmbed ||
      c.skipAt === v ||
      c.andScope !== undefined ||
      c.andMember !== undefined
    )
      return false;
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

function kindOf(c: Contrib): number {
  if (c instanceof Use) return c.kind;
  const k = c.kind;
  return k === "Struct" ? STRUCT : k === "List" ? LIST : SCALAR;
}

/**
 * The value of a vertex with conjuncts `c0`, `c1`, `more…` at depth `depth`: data, a snap, or null
 * (JSON text is written as it goes); undefined when the fast path gives up.
 */
export function node(
  c0: Contrib,
  c1: Contrib | undefined,
  more: Contrib[] | undefined,
  depth: number,
  lvl: number,
): unknown {
  const e = engine();
  const n = count(c1, more);
  e.steps += 1 + n;
  if (depth > run.maxDepth || e.steps > run.maxSteps) {
    run.limitHit = true;
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

/** What a declaration used alone exports (`Use.alone`), with the size and height limits count. */
export interface Alone {
  readonly snap: Snap;
  readonly height: number;
  readonly size: number;
  /** The snap as unindented JSON, once written so. */
  json: string | undefined;
}

/**
 * What `node` does for a vertex whose only conjunct is `u`, a use without label bindings: the
 * declaration's value, exported once for all its uses.
 */
export function aloneNode(u: Use, depth: number, lvl: number): unknown {
  const e = engine();
  e.steps += 2;
  if (depth > run.maxDepth || e.steps > run.maxSteps) {
    run.limitHit = true;
    return bail();
  }
  return alone(u, depth, lvl);
}

/** The value `u` exports alone as unindented JSON, once it has been exported so ({@link aloneNode}). */
export function aloneJSON(u: Use): Alone | undefined {
  const a = u.alone as Alone | null | undefined;
  if (a === undefined || a === null) return undefined;
  a.json ??= snapJSON(a.snap);
  return a;
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
      const hit = run.limitHit;
      run.limitHit = false;
      s = inSnapMode(() => alone1(u, depth)) as Snap | undefined;
      // Giving up depends on nothing but the declaration, except when a limit was reached.
      if (s === undefined && run.limitHit) return undefined;
      run.limitHit = hit;
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
  if (depth + a.height > run.maxDepth || e.steps > run.maxSteps) {
    run.limitHit = true;
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
