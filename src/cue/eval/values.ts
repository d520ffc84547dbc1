/**
 * The scalar part of the value lattice: top, bottom, atoms, basic types with bounds and validators.
 * Structs and lists live in vertices (see vertex.ts); they appear here only as references.
 */

import type * as ast from "../syntax/ast.js";
import type { Pos } from "../syntax/position.js";
import type { ErrCode, ErrInfo } from "./errors.js";
import { BOOL, BYTES, FLOAT, INT, kindName, LIST, NULL, NUMBER, STRING, STRUCT, TOP_KIND } from "./kinds.js";
import type { Vertex } from "./vertex.js";

export interface TopV {
  readonly t: "top";
}
export interface BottomV {
  readonly t: "bottom";
  readonly err: ErrInfo;
}
export interface NullV {
  readonly t: "null";
}
export interface BoolV {
  readonly t: "bool";
  readonly v: boolean;
}
export interface IntV {
  readonly t: "int";
  readonly v: bigint;
}
/** A float; `text` is the literal spelling when it came from source (exported as written). */
export interface FloatV {
  readonly t: "float";
  readonly v: number;
  readonly text?: string;
}
export interface StringV {
  readonly t: "string";
  readonly v: string;
}
export interface BytesV {
  readonly t: "bytes";
  readonly v: Uint8Array;
}
export type Atom = NullV | BoolV | IntV | FloatV | StringV | BytesV;

export type BoundOp = "<" | "<=" | ">" | ">=" | "!=" | "=~" | "!~";
export interface Bound {
  readonly op: BoundOp;
  readonly v: Value;
}

/** A builtin validator such as `strings.MinRunes(3)` or `net.IPv4`: checks a concrete value. */
export interface Validator {
  readonly name: string;
  /** Returns undefined when the value passes, an error message otherwise (or a bottom for incomplete). */
  readonly check: (v: Value) => string | BottomV | undefined;
  /** The kinds the validator's subject may have (cue: its builtin's first parameter); unset: any. */
  readonly kind?: number;
}

/** A non-concrete scalar constraint: a kind set narrowed by bounds and validators (`>=0 & int`). */
export interface BasicV {
  readonly t: "basic";
  readonly k: number;
  readonly bounds: readonly Bound[];
  readonly validators: readonly Validator[];
}

/** A struct or list value: an (evaluated) vertex. */
export interface VertexV {
  readonly t: "vertex";
  readonly v: Vertex;
}

/** A disjunction of values (scalars or vertices); `defaults` marks the default terms, if any. */
export interface DisjV {
  readonly t: "disj";
  readonly values: readonly Value[];
  readonly defaults: readonly boolean[];
  readonly hasDefault: boolean;
  /**
   * Set by unifying two disjunctions: per value, whether its term of the right-hand disjunction
   * was a default (cue's cross product keeps the left side's defaults while such a value survives;
   * see default-modes.ts).
   */
  readonly last?: readonly boolean[];
  /**
   * Per value, the nested disjunction with defaults of its own it came from, when that was a
   * marked alternative (`*(*"a" | string) | string`): cue unifies such a nested disjunction as one
   * disjunct, so where only one of its values survives a value of the other side, that value
   * takes the outer mark.
   */
  readonly groups?: readonly (object | undefined)[];
}

/** A builtin function value (`len`, `strings.Join`). */
export interface FuncV {
  readonly t: "func";
  readonly name: string;
  /** Calls the function; args are evaluated values. */
  /** `argPos`: where each argument is written, for an error about one argument. */
  readonly call: (args: Value[], pos: Pos | undefined, argPos?: readonly Pos[]) => Value;
  /** When set, a reference without call is this validator (`net.IPv4`). */
  readonly asValidator?: Validator;
}

export type Value = TopV | BottomV | Atom | BasicV | VertexV | DisjV | FuncV;

export const TOP: TopV = { t: "top" };
export const NULL_V: NullV = { t: "null" };
export const TRUE: BoolV = { t: "bool", v: true };
export const FALSE: BoolV = { t: "bool", v: false };

export function bottom(code: ErrCode, message: string, positions: readonly Pos[] = []): BottomV {
  return { t: "bottom", err: { code, message, positions: [...positions] } };
}

export function basic(k: number): BasicV {
  return { t: "basic", k, bounds: [], validators: [] };
}

/** The literal nodes that denote an atom. */
export type ScalarLit = ast.IntLit | ast.FloatLit | ast.StringLit | ast.BytesLit | ast.BoolLit | ast.NullLit;

/**
 * The atom a scalar literal denotes (`1`, `1.0`, `"s"`, `'b'`, `true`, `null`): the one rule the
 * evaluator and the fast export path share. Undefined for any other expression.
 */
export function literalAtom(x: ScalarLit): Atom;
export function literalAtom(x: ast.Expr): Atom | undefined;
export function literalAtom(x: ast.Expr): Atom | undefined {
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

export function isAtom(v: Value): v is Atom {
  switch (v.t) {
    case "null":
    case "bool":
    case "int":
    case "float":
    case "string":
    case "bytes":
      return true;
    default:
      return false;
  }
}

/** The kind bit of a value (for atoms), or the kind set of a basic type. */
export function kindOf(v: Value): number {
  switch (v.t) {
    case "null":
      return NULL;
    case "bool":
      return BOOL;
    case "int":
      return INT;
    case "float":
      return FLOAT;
    case "string":
      return STRING;
    case "bytes":
      return BYTES;
    case "basic": {
      let k = v.k;
      for (const x of v.validators) if (x.kind !== undefined) k &= x.kind;
      return k;
    }
    case "top":
      return TOP_KIND;
    case "bottom":
      return 0;
    case "vertex":
      return v.v.isList ? LIST : STRUCT;
    case "disj": {
      let k = 0;
      for (const x of v.values) k |= kindOf(x);
      return k;
    }
    case "func":
      return 0;
    default: {
      const never: never = v;
      return never;
    }
  }
}

/** The kind CUE names in "mismatched types" messages. */
export function typeName(v: Value): string {
  return kindName(kindOf(v));
}

// ---------------------------------------------------------------------------------------------
// Comparison

/** Compares two numbers (int/float mixed); undefined when not both numeric. */
export function compareNum(a: Value, b: Value): number | undefined {
  if (a.t === "int" && b.t === "int") return a.v < b.v ? -1 : a.v > b.v ? 1 : 0;
  const x = a.t === "int" ? Number(a.v) : a.t === "float" ? a.v : undefined;
  const y = b.t === "int" ? Number(b.v) : b.t === "float" ? b.v : undefined;
  if (x === undefined || y === undefined) return undefined;
  return x < y ? -1 : x > y ? 1 : 0;
}

function compareBytes(a: Uint8Array, b: Uint8Array): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const d = (a[i] ?? 0) - (b[i] ?? 0);
    if (d !== 0) return d < 0 ? -1 : 1;
  }
  return a.length - b.length < 0 ? -1 : a.length > b.length ? 1 : 0;
}

/** Orders two atoms of comparable kinds; undefined when they cannot be ordered. */
export function compareAtoms(a: Value, b: Value): number | undefined {
  const n = compareNum(a, b);
  if (n !== undefined) return n;
  if (a.t === "string" && b.t === "string") return a.v < b.v ? -1 : a.v > b.v ? 1 : 0;
  if (a.t === "bytes" && b.t === "bytes") return compareBytes(a.v, b.v);
  return undefined;
}

/** Equality of atoms (numbers compare by value across int and float). */
export function atomsEqual(a: Value, b: Value): boolean {
  if (a.t === "null" && b.t === "null") return true;
  if (a.t === "bool" && b.t === "bool") return a.v === b.v;
  const c = compareAtoms(a, b);
  return c === 0;
}

// ---------------------------------------------------------------------------------------------
// Printing (as CUE prints values in messages)

export function quoteString(s: string): string {
  return JSON.stringify(s);
}

function quoteBytes(b: Uint8Array): string {
  let out = "'";
  for (const c of b) {
    if (c === 0x27) out += "\\'";
    else if (c === 0x5c) out += "\\\\";
    else if (c >= 0x20 && c < 0x7f) out += String.fromCharCode(c);
    else if (c === 10) out += "\\n";
    else out += `\\x${c.toString(16).padStart(2, "0")}`;
  }
  return `${out}'`;
}

/** Formats a float the way CUE's decimal printing does for common values. */
export function formatFloat(v: FloatV): string {
  if (v.text !== undefined) return v.text;
  const n = v.v;
  if (Number.isInteger(n) && Math.abs(n) < 1e21) return `${n}.0`;
  const s = String(n);
  return s.replace("e+", "E+").replace("e-", "E-");
}

export function formatBound(b: Bound): string {
  return `${b.op}${formatValue(b.v)}`;
}

/** Short text of a value for messages: `"a"`, `1`, `int`, `>=0 & int`, `{a:1}`, `[]`. */
export function formatValue(v: Value): string {
  switch (v.t) {
    case "top":
      return "_";
    case "bottom":
      return "_|_";
    case "null":
      return "null";
    case "bool":
      return String(v.v);
    case "int":
      return String(v.v);
    case "float":
      return formatFloat(v);
    case "string":
      return quoteString(v.v);
    case "bytes":
      return quoteBytes(v.v);
    case "basic": {
      const parts: string[] = [];
      for (const b of v.bounds) parts.push(formatBound(b));
      for (const x of v.validators) parts.push(x.name);
      const impliedBy = boundsKind(v.bounds);
      if (parts.length === 0 || (v.k !== impliedBy && v.k !== TOP_KIND)) {
        const kn = kindName(v.k);
        if (parts.length === 0) return kn;
        parts.push(kn.includes("|") ? `(${kn})` : kn);
      }
      return parts.join(" & ");
    }
    case "vertex":
      return v.v.shortText();
    case "disj":
      return v.values.map((x, i) => (v.hasDefault && v.defaults[i] ? "*" : "") + formatValue(x)).join(" | ");
    case "func":
      return v.name;
    default: {
      const never: never = v;
      return never;
    }
  }
}

/** The kind set implied by a set of bounds (`>=0` → number, `=~` → string|bytes). */
export function boundsKind(bounds: readonly Bound[]): number {
  let k = TOP_KIND;
  for (const b of bounds) k &= boundKind(b);
  return k;
}

export function boundKind(b: Bound): number {
  switch (b.op) {
    case "!=": {
      // `!=null` constrains nothing but null; `!="a"` implies a string.
      const k = kindOf(b.v);
      if (b.v.t === "null" || b.v.t === "vertex") return TOP_KIND;
      if (k === STRING) return STRING | BYTES;
      return k & NUMBER ? NUMBER : k;
    }
    case "=~":
    case "!~":
      return STRING | BYTES;
    default: {
      const k = kindOf(b.v);
      if (k & NUMBER) return NUMBER;
      return k;
    }
  }
}

export { BOOL, BYTES, FLOAT, INT, LIST, NULL, NUMBER, STRING, STRUCT, TOP_KIND };
