/**
 * Structural equality of evaluated vertices, non-concrete values included (used to merge equal
 * disjuncts and by the inspection hooks).
 */

import { step } from "./engine.js";
import { evaluate } from "./evaluate.js";
import { kindName } from "./kinds.js";
import { formatValue, type Value } from "./values.js";
import { OPTIONAL, type Vertex } from "./vertex.js";

function scalarText(v: Value): string {
  if (v.t === "basic") {
    // Bounds compare by value too (>=1 and >=1.0 are the same bound).
    const bv = (x: Value): string => {
      if (x.t === "int") return `num:${x.v}`;
      if (x.t === "float") return Number.isInteger(x.v) ? `num:${BigInt(x.v)}` : `num:${x.v}`;
      return formatValue(x);
    };
    const parts = v.bounds.map((b) => `${b.op}${bv(b.v)}`).sort();
    parts.push(...v.validators.map((x) => x.name).sort());
    return `${kindName(v.k)}:${parts.join("&")}`;
  }
  if (v.t === "disj") {
    return v.values
      .map((x, i) => (v.hasDefault && v.defaults[i] ? "*" : "") + scalarText(x))
      .sort()
      .join("|");
  }
  // Numbers compare by value, as CUE's equality does: 5.0E+11 equals 500000000000.0.
  if (v.t === "int") return `int:${v.v}`;
  if (v.t === "float") return `float:${v.v}`;
  return formatValue(v);
}

type Alt = { def: boolean; v: Vertex | undefined; s: Value | undefined };

function alts(v: Vertex): Alt[] {
  evaluate(v);
  if (v.err === undefined && v.disj !== undefined) {
    const d = v.disj;
    const out: Alt[] = [];
    d.values.forEach((x, i) => {
      for (const a of alts(x)) out.push({ ...a, def: d.hasDefault && (d.defaults[i] ?? false) });
    });
    return out;
  }
  if (v.err === undefined && v.scalar.t === "disj" && !v.isList && v.structMark === 0) {
    const d = v.scalar;
    // A disjunction of scalars embedded beside definitions (`{#a, #a: "x" | "y"}`) is the
    // disjunction of that scalar with those fields, one alternative each (`{"x", #a: …} | …`).
    if (v.arcs !== undefined && d.values.every((x) => x.t !== "vertex" && x.t !== "disj")) {
      return d.values.map((x, i) => ({ def: d.hasDefault && (d.defaults[i] ?? false), v, s: x }));
    }
    return d.values.map((x, i) =>
      x.t === "vertex"
        ? { def: d.hasDefault && (d.defaults[i] ?? false), v: x.v, s: undefined }
        : { def: d.hasDefault && (d.defaults[i] ?? false), v: undefined, s: x },
    );
  }
  return [{ def: false, v, s: undefined }];
}

function equalAlt(a: Alt, b: Alt, depth: number): boolean {
  if (a.v !== undefined && b.v !== undefined) return equalSingle(a.v, b.v, depth, a.s, b.s);
  const sa =
    a.s ??
    (a.v !== undefined && a.v.structMark === 0 && !a.v.isList && a.v.arcs === undefined
      ? a.v.scalar
      : undefined);
  const sb =
    b.s ??
    (b.v !== undefined && b.v.structMark === 0 && !b.v.isList && b.v.arcs === undefined
      ? b.v.scalar
      : undefined);
  if (sa === undefined || sb === undefined) return false;
  return scalarText(sa) === scalarText(sb);
}

function present(v: Vertex | undefined): Vertex | undefined {
  if (v === undefined || v.fieldType !== OPTIONAL) return v;
  evaluate(v);
  return v.err !== undefined && v.err.err.code !== "incomplete" ? undefined : v;
}

export function equalVertex(a: Vertex, b: Vertex, depth: number): boolean {
  if (depth > 200) return true;
  if (step() !== undefined) return false;
  const xa = alts(a);
  const xb = alts(b);
  if (xa.length === 1 && xb.length === 1) return equalAlt(xa[0] as Alt, xb[0] as Alt, depth);
  if (xa.length !== xb.length) return false;
  const used = new Set<number>();
  for (const x of xa) {
    let found = false;
    for (let j = 0; j < xb.length; j++) {
      const y = xb[j] as Alt;
      if (used.has(j) || x.def !== y.def) continue;
      if (equalAlt(x, y, depth + 1)) {
        used.add(j);
        found = true;
        break;
      }
    }
    if (!found) return false;
  }
  return true;
}

/** Set while `equalAsDiff` runs: a struct with an incomplete error compares as its fields. */
let incompleteAsStruct = false;

/**
 * Equality as cue's test harness compares values (internal/core/diff): a struct whose evaluation
 * is incomplete (a comprehension or validator waiting for a value) is still that struct there,
 * the incomplete error being reported apart. For tools only; `==` uses `equalVertex`.
 */
export function equalAsDiff(a: Vertex, b: Vertex): boolean {
  incompleteAsStruct = true;
  try {
    return equalVertex(a, b, 0);
  } finally {
    incompleteAsStruct = false;
  }
}

function incompleteStruct(v: Vertex): boolean {
  return incompleteAsStruct && v.err?.err.code === "incomplete" && v.structMark > 0 && !v.isList;
}

/** `sa` / `sb`: the scalar of one alternative of a vertex's scalar disjunction (see `alts`). */
function equalSingle(a: Vertex, b: Vertex, depth: number, sa?: Value, sb?: Value): boolean {
  evaluate(a);
  evaluate(b);
  const ea = a.err !== undefined;
  const eb = b.err !== undefined;
  if (ea && eb) return true;
  // An error compared with a value: equal only for an incomplete struct with the same fields (an
  // expected error, `b: _|_` or `{_|_, f: 1}`, still matches it above).
  if ((ea && !incompleteStruct(a)) || (eb && !incompleteStruct(b))) return false;
  if (a.isList !== b.isList) return false;
  if (a.isList) {
    // As cue's diff: the open/closed state of a list is not compared, only its elements.
    if (a.listLen !== b.listLen) return false;
  } else {
    if (a.structMark > 0 !== b.structMark > 0) return false;
    if (a.structMark === 0 && scalarText(sa ?? a.scalar) !== scalarText(sb ?? b.scalar)) return false;
  }
  const la = a.arcs ?? new Map<string, Vertex>();
  const lb = b.arcs ?? new Map<string, Vertex>();
  const keys = new Set([...la.keys(), ...lb.keys()]);
  for (const k of keys) {
    // An optional field that can only be an error is a field that cannot exist: no field.
    const x = present(la.get(k));
    const y = present(lb.get(k));
    if (x === undefined && y === undefined) continue;
    if (x === undefined || y === undefined) return false;
    if (x.fieldType !== y.fieldType) return false;
    if (!equalVertex(x, y, depth + 1)) return false;
  }
  return true;
}
