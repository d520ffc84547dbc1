/**
 * Unification (`&`, the lattice meet) of scalar values: atoms, basic types, bounds and validators,
 * and scalar disjunctions. Struct and list unification happens on vertices.
 */

import type { Pos } from "../syntax/position.js";
import { combineStep, IS, MAYBE, NOT } from "./default-modes.js";
import type { ErrInfo } from "./errors.js";
import { INT, kindName, NUMBER, TOP_KIND } from "./kinds.js";
import { matchRegexp } from "./regex.js";
import {
  type BasicV,
  type BottomV,
  type Bound,
  bottom,
  compareAtoms,
  type DisjV,
  formatBound,
  formatValue,
  isAtom,
  kindOf,
  type Value,
} from "./values.js";

/** No positions: the default, shared (errors copy the positions they are given). */
const NO_POSITIONS: readonly Pos[] = Object.freeze([]);

/** The last conflict text made for each first value, with the second value it was made with. */
const conflictTexts = new WeakMap<Value, { readonly b: Value; readonly text: string }>();

/** Whether two values print alike for certain: the same value, or equal ints, strings, bools or nulls. */
function sameText(x: Value, y: Value): boolean {
  if (x === y) return true;
  switch (x.t) {
    case "int":
    case "string":
    case "bool":
      return y.t === x.t && y.v === x.v;
    case "null":
      return y.t === "null";
    default:
      return false;
  }
}

/** An error whose message is formatted only when read (most conflicts just eliminate disjuncts). */
class ConflictInfo implements ErrInfo {
  readonly code = "eval" as const;
  positions: Pos[];
  #a: Value;
  #b: Value;
  #text: string | undefined;
  constructor(a: Value, b: Value, positions: readonly Pos[]) {
    this.#a = a;
    this.#b = b;
    this.positions = [...positions];
  }
  get message(): string {
    if (this.#text === undefined) {
      // The same two values meet again in every instance of a template: their text is made once.
      const known = conflictTexts.get(this.#a);
      if (known !== undefined && sameText(known.b, this.#b)) {
        this.#text = known.text;
        return known.text;
      }
      const ka = kindOf(this.#a);
      const kb = kindOf(this.#b);
      const mismatch = (ka & kb) === 0;
      // With mismatched kinds, cue names the part of a type that conflicts: a bound of another
      // kind (`string and >=1`), else the type itself (`1.2 and int`).
      const show = (v: Value, k: number, other: number): string => {
        if (!mismatch || v.t !== "basic") return formatValue(v);
        const kindOfBound = (b: Bound): number => (kindOf(b.v) & NUMBER ? NUMBER : kindOf(b.v));
        const bound = v.bounds.find((b) => b.op !== "!=" && (kindOfBound(b) & other) === 0);
        return bound !== undefined ? formatBound(bound) : kindName(k);
      };
      let msg = `conflicting values ${show(this.#a, ka, kb)} and ${show(this.#b, kb, ka)}`;
      if (mismatch) msg += ` (mismatched types ${kindName(ka)} and ${kindName(kb)})`;
      this.#text = msg;
      conflictTexts.set(this.#a, { b: this.#b, text: msg });
    }
    return this.#text;
  }
}

/** `conflicting values a and b`, with the mismatched types when the kinds differ. */
export function conflict(a: Value, b: Value, positions: readonly Pos[] = NO_POSITIONS): BottomV {
  return { t: "bottom", err: new ConflictInfo(a, b, positions) };
}

/** Whether a concrete value satisfies a bound; undefined when the value is not comparable. */
export function checkBound(b: Bound, v: Value): boolean | BottomV {
  switch (b.op) {
    case "!=": {
      if (!isAtom(b.v)) return true;
      if (v.t === "null" || b.v.t === "null") return !(v.t === "null" && b.v.t === "null");
      if (v.t === "bool" && b.v.t === "bool") return v.v !== b.v.v;
      const c = compareAtoms(v, b.v);
      return c !== 0;
    }
    case "=~":
    case "!~": {
      if (b.v.t !== "string") return bottom("eval", `invalid bound ${formatBound(b)}`);
      let s: string;
      if (v.t === "string") s = v.v;
      else if (v.t === "bytes") s = Buffer.from(v.v).toString("latin1");
      else return false;
      const m = matchRegexp(b.v.v, s);
      if (typeof m !== "boolean") return m;
      return b.op === "=~" ? m : !m;
    }
    default: {
      const c = compareAtoms(v, b.v);
      if (c === undefined) return false;
      switch (b.op) {
        case "<":
          return c < 0;
        case "<=":
          return c <= 0;
        case ">":
          return c > 0;
        case ">=":
          return c >= 0;
      }
    }
  }
}

function checkAtom(c: BasicV, a: Value, positions: readonly Pos[]): Value {
  const k = kindOf(a);
  if ((k & c.k) === 0) return conflict(c, a, positions);
  for (const b of c.bounds) {
    const ok = checkBound(b, a);
    if (ok === true) continue;
    if (ok === false) {
      // `!=null` allows every kind but null: cue reports null as a conflict of kinds.
      if (b.op === "!=" && b.v.t === "null" && c.bounds.length === 1) return conflict(a, c, positions);
      return bottom("eval", `invalid value ${formatValue(a)} (out of bound ${formatBound(b)})`, positions);
    }
    return ok;
  }
  for (const v of c.validators) {
    const r = v.check(a);
    if (r === undefined) continue;
    if (typeof r === "string") {
      return bottom("eval", `invalid value ${formatValue(a)} (${r})`, positions);
    }
    return r;
  }
  return a;
}

function tighten(bounds: Bound[], nb: Bound): void {
  // Keep only the tightest lower and upper bound of the same kind; others accumulate.
  const isLower = nb.op === ">" || nb.op === ">=";
  const isUpper = nb.op === "<" || nb.op === "<=";
  if (!isLower && !isUpper) {
    if (!bounds.some((b) => b.op === nb.op && compareAtoms(b.v, nb.v) === 0 && b.v.t === nb.v.t))
      bounds.push(nb);
    return;
  }
  for (let i = 0; i < bounds.length; i++) {
    const b = bounds[i];
    if (b === undefined) continue;
    const bl = b.op === ">" || b.op === ">=";
    const bu = b.op === "<" || b.op === "<=";
    if ((isLower && bl) || (isUpper && bu)) {
      const c = compareAtoms(nb.v, b.v);
      if (c === undefined) continue;
      if (isLower) {
        if (c > 0 || (c === 0 && nb.op === ">")) bounds[i] = nb;
      } else if (c < 0 || (c === 0 && nb.op === "<")) bounds[i] = nb;
      return;
    }
  }
  bounds.push(nb);
}

function meetBasic(a: BasicV, b: BasicV, positions: readonly Pos[]): Value {
  const k = a.k & b.k;
  if (k === 0) return conflict(a, b, positions);
  const bounds = [...a.bounds];
  for (const nb of b.bounds) tighten(bounds, nb);
  const validators = [...a.validators];
  for (const v of b.validators) if (!validators.some((x) => x === v || x.name === v.name)) validators.push(v);
  // Detect empty ranges such as `>10 & <5`.
  let lo: Bound | undefined;
  let hi: Bound | undefined;
  for (const x of bounds) {
    if (x.op === ">" || x.op === ">=") lo = x;
    if (x.op === "<" || x.op === "<=") hi = x;
  }
  if (lo !== undefined && hi !== undefined) {
    const c = compareAtoms(lo.v, hi.v);
    if (c !== undefined && (c > 0 || (c === 0 && (lo.op === ">" || hi.op === "<")))) {
      return bottom(
        "eval",
        `incompatible ${lo.v.t === "string" || lo.v.t === "bytes" ? lo.v.t : "number"} bounds ${formatBound(hi)} and ${formatBound(lo)}`,
        positions,
      );
    }
    if (c === 0 && lo.op === ">=" && hi.op === "<=" && k === INT && lo.v.t === "int" && hi.v.t === "int") {
      return checkAtom({ t: "basic", k, bounds, validators }, lo.v, positions);
    }
    // An integer range without an integer in it (`int & >=1.1 & <=1.3`, `int & >1 & <2`).
    const least = k === INT ? leastInt(lo) : undefined;
    const most = k === INT ? mostInt(hi) : undefined;
    if (least !== undefined && most !== undefined) {
      if (least > most) {
        return bottom(
          "eval",
          `incompatible integer bounds ${formatBound(hi)} and ${formatBound(lo)}`,
          positions,
        );
      }
    }
  }
  return { t: "basic", k, bounds: dropRedundantNe(bounds), validators };
}

/** The least integer a lower bound allows (undefined: not a finite number). */
function leastInt(b: Bound): bigint | undefined {
  if (b.v.t === "int") return b.op === ">=" ? b.v.v : b.v.v + 1n;
  if (b.v.t !== "float" || !Number.isFinite(b.v.v)) return undefined;
  return BigInt(b.op === ">=" ? Math.ceil(b.v.v) : Math.floor(b.v.v) + 1);
}

/** The greatest integer an upper bound allows (undefined: not a finite number). */
function mostInt(b: Bound): bigint | undefined {
  if (b.v.t === "int") return b.op === "<=" ? b.v.v : b.v.v - 1n;
  if (b.v.t !== "float" || !Number.isFinite(b.v.v)) return undefined;
  return BigInt(b.op === "<=" ? Math.floor(b.v.v) : Math.ceil(b.v.v) - 1);
}

/** `>5 & !=5` is `>5`: a `!=` outside the range adds nothing. */
function dropRedundantNe(bounds: Bound[]): Bound[] {
  if (!bounds.some((b) => b.op === "!=")) return bounds;
  return bounds.filter((b) => {
    if (b.op !== "!=") return true;
    for (const o of bounds) {
      if (o === b || o.op === "!=") continue;
      const ok = checkBound(o, b.v);
      if (ok === false) return false;
    }
    return true;
  });
}

function meetDisjDisj(a: DisjV, b: DisjV, positions: readonly Pos[]): Value {
  const vals: Value[] = [];
  const left: number[] = [];
  const last: boolean[] = [];
  const right: number[] = [];
  const pairI: number[] = [];
  const pairJ: number[] = [];
  let first: BottomV | undefined;
  const mode = (d: DisjV, i: number): number => (!d.hasDefault ? MAYBE : d.defaults[i] ? IS : NOT);
  for (let i = 0; i < a.values.length; i++) {
    for (let j = 0; j < b.values.length; j++) {
      const r = meet(a.values[i] as Value, b.values[j] as Value, positions);
      if (r.t === "bottom") {
        first ??= r;
        continue;
      }
      vals.push(r);
      left.push(mode(a, i));
      last.push(a.last?.[i] ?? false);
      right.push(mode(b, j));
      pairI.push(i);
      pairJ.push(j);
    }
  }
  // cue's cross product of defaults (default-modes.ts). A nested disjunction of b of which only
  // one alternative survives against a value of a is that one value: it takes the mark of its
  // alternative in b, its own default marks are gone (cue: `("a" | "b") & (*(*"a" | string) |
  // string)` is `*"a" | *"b"`).
  if (b.groups !== undefined) {
    const gs = b.groups;
    for (let s = 0; s < pairI.length; s++) {
      const g = gs[pairJ[s] ?? -1];
      if (g === undefined) continue;
      let n = 0;
      for (let t = 0; t < pairI.length; t++) if (pairI[t] === pairI[s] && gs[pairJ[t] ?? -1] === g) n++;
      if (n === 1) right[s] = IS;
    }
  }
  const nextLast = right.map((m) => m === IS);
  combineStep(left, last, right);
  const decided = left.some((m) => m !== MAYBE);
  const defs = left.map((m) => m === IS);
  return makeDisj(vals, defs, decided, first, positions, nextLast);
}

function meetDisj(d: DisjV, other: Value, positions: readonly Pos[]): Value {
  if (other.t === "disj") return meetDisjDisj(d, other, positions);
  const values: Value[] = [];
  const defaults: boolean[] = [];
  let first: BottomV | undefined;
  let failed = 0;
  const subs: ErrInfo[] = [];
  for (let i = 0; i < d.values.length; i++) {
    const x = d.values[i];
    if (x === undefined) continue;
    const r = meet(x, other, positions);
    if (r.t === "bottom") {
      first ??= r;
      failed++;
      subs.push(r.err);
      continue;
    }
    values.push(r);
    defaults.push(d.defaults[i] ?? false);
  }
  if (values.length === 0 && failed > 1 && first !== undefined) {
    // As cue prints it: a header without positions, then each alternative's error.
    const e = bottom("eval", `${failed} errors in empty disjunction:`, []);
    e.err.sub = subs;
    return e;
  }
  return makeDisj(values, defaults, d.hasDefault, first, positions);
}

/** Builds a disjunction from surviving terms; collapses singletons and empty ones. */
export function makeDisj(
  values: Value[],
  defaults: boolean[],
  hadDefault: boolean,
  firstErr: BottomV | undefined,
  positions: readonly Pos[],
  last?: readonly boolean[],
  groups?: readonly (object | undefined)[],
): Value {
  // Drop duplicates of atoms (keeping the default flag of either).
  const outV: Value[] = [];
  const outD: boolean[] = [];
  const outL: boolean[] = [];
  const outG: (object | undefined)[] = [];
  const failed: BottomV[] = [];
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    if (v === undefined) continue;
    if (v.t === "bottom") {
      firstErr ??= v;
      failed.push(v);
      continue;
    }
    const j = outV.findIndex(
      (w) =>
        (isAtom(w) && isAtom(v) && w.t === v.t && compareOrEq(w, v)) ||
        (w.t === "top" && v.t === "top") ||
        (w.t === "basic" && v.t === "basic" && formatValue(w) === formatValue(v)),
    );
    if (j >= 0) {
      outD[j] = (outD[j] ?? false) || (defaults[i] ?? false);
      outL[j] = (outL[j] ?? false) || (last?.[i] ?? false);
      outG[j] ??= groups?.[i];
      continue;
    }
    outV.push(v);
    outD.push(defaults[i] ?? false);
    outL.push(last?.[i] ?? false);
    outG.push(groups?.[i]);
  }
  if (outV.length === 0 && failed.length > 1) {
    const incomplete = failed.every((f) => f.err.code === "incomplete" || f.err.code === "cycle");
    const e = bottom(incomplete ? "incomplete" : "eval", `${failed.length} errors in empty disjunction:`, []);
    e.err.sub = failed.map((f) => f.err);
    return e;
  }
  if (outV.length === 0) {
    if (firstErr !== undefined && values.length === 0 && positions.length === 0) return firstErr;
    return firstErr ?? bottom("eval", "empty disjunction", positions);
  }
  if (outV.length === 1) return outV[0] ?? firstErr ?? bottom("eval", "empty disjunction");
  // `hadDefault` without a default term left: the defaults conflicted, there is none to take
  // (and a later disjunction's default does not become one; see default-modes.ts).
  const hasDefault = hadDefault;
  let d: DisjV = { t: "disj", values: outV, defaults: hasDefault ? outD : outV.map(() => false), hasDefault };
  if (last !== undefined && outL.some((x) => x)) d = { ...d, last: outL };
  if (groups !== undefined && outG.some((x) => x !== undefined)) d = { ...d, groups: outG };
  return d;
}

function compareOrEq(a: Value, b: Value): boolean {
  if (a.t === "null") return true;
  if (a.t === "bool" && b.t === "bool") return a.v === b.v;
  return compareAtoms(a, b) === 0;
}

/**
 * Unifies two non-vertex values. Positions are attached to any conflict error.
 * Vertices are the caller's business (a vertex meeting a scalar is a kind conflict unless top).
 */
export function meet(a: Value, b: Value, positions: readonly Pos[] = NO_POSITIONS): Value {
  if (a.t === "top") return b;
  if (b.t === "top") return a;
  if (a.t === "bottom") return a;
  if (b.t === "bottom") return b;
  if (a.t === "disj") return meetDisj(a, b, positions);
  if (b.t === "disj") return meetDisj(b, a, positions);
  if (a.t === "basic") {
    if (b.t === "basic") return meetBasic(a, b, positions);
    if (isAtom(b)) return checkAtom(a, b, positions);
    if (b.t === "vertex") {
      if (a.k & kindOf(b) && a.bounds.length === 0 && a.validators.length === 0) return b;
      if (a.k === TOP_KIND) return b;
      return conflict(a, b, positions);
    }
    return conflict(a, b, positions);
  }
  if (b.t === "basic") {
    // Keep the operands' order in a conflict message (`1.2 & int`: "1.2 and int").
    const r = meet(b, a, positions);
    if (r.t === "bottom" && r.err instanceof ConflictInfo) return conflict(a, b, r.err.positions);
    return r;
  }
  if (isAtom(a) && isAtom(b)) {
    if (a.t !== b.t) return conflict(a, b, positions);
    if (a.t === "null") return a;
    if (a.t === "bool" && b.t === "bool") return a.v === b.v ? a : conflict(a, b, positions);
    if (a.t === "bytes" && b.t === "bytes") return compareAtoms(a, b) === 0 ? a : conflict(a, b, positions);
    return compareAtoms(a, b) === 0 ? a : conflict(a, b, positions);
  }
  if (a.t === "vertex" && b.t === "vertex" && a.v === b.v) return a;
  return conflict(a, b, positions);
}
