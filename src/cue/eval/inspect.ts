/**
 * Inspection hooks for tools (the conformance runner): CUE-level equality of possibly non-concrete
 * values (including definitions, hidden and optional fields), the kind of a value, and closedness.
 */

import { inDefinition } from "./collect.js";
import { withEngine } from "./engine.js";
import { evaluate } from "./evaluate.js";
import type { CueValue } from "./instance.js";
import { vertexOf } from "./instance.js";
import { kindName } from "./kinds.js";
import { formatValue, isAtom, kindOf, type Value } from "./values.js";
import { OPTIONAL, type Vertex } from "./vertex.js";

function scalarText(v: Value): string {
  if (v.t === "basic") {
    const parts = v.bounds.map((b) => `${b.op}${formatValue(b.v)}`).sort();
    parts.push(...v.validators.map((x) => x.name).sort());
    return `${kindName(v.k)}:${parts.join("&")}`;
  }
  if (v.t === "disj") {
    return v.values
      .map((x, i) => (v.hasDefault && v.defaults[i] ? "*" : "") + scalarText(x))
      .sort()
      .join("|");
  }
  if (isAtom(v) && (v.t === "int" || v.t === "float")) return `${v.t}:${formatValue(v)}`;
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
    return d.values.map((x, i) =>
      x.t === "vertex"
        ? { def: d.hasDefault && (d.defaults[i] ?? false), v: x.v, s: undefined }
        : { def: d.hasDefault && (d.defaults[i] ?? false), v: undefined, s: x },
    );
  }
  return [{ def: false, v, s: undefined }];
}

function equalAlt(a: Alt, b: Alt, depth: number): boolean {
  if (a.v !== undefined && b.v !== undefined) return equalSingle(a.v, b.v, depth);
  const sa = a.s ?? (a.v !== undefined && a.v.structMark === 0 && !a.v.isList && a.v.arcs === undefined ? a.v.scalar : undefined);
  const sb = b.s ?? (b.v !== undefined && b.v.structMark === 0 && !b.v.isList && b.v.arcs === undefined ? b.v.scalar : undefined);
  if (sa === undefined || sb === undefined) return false;
  return scalarText(sa) === scalarText(sb);
}

function equalVertex(a: Vertex, b: Vertex, depth: number): boolean {
  if (depth > 200) return true;
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

function equalSingle(a: Vertex, b: Vertex, depth: number): boolean {
  evaluate(a);
  evaluate(b);
  if ((a.err !== undefined) !== (b.err !== undefined)) return false;
  if (a.err !== undefined) return true;
  if (a.isList !== b.isList) return false;
  if (a.isList) {
    if (a.listLen !== b.listLen || a.listOpen !== b.listOpen) return false;
  } else {
    if ((a.structMark > 0) !== (b.structMark > 0)) return false;
    if (a.structMark === 0 && scalarText(a.scalar) !== scalarText(b.scalar)) return false;
  }
  const la = a.arcs ?? new Map<string, Vertex>();
  const lb = b.arcs ?? new Map<string, Vertex>();
  const keys = new Set([...la.keys(), ...lb.keys()]);
  for (const k of keys) {
    const x = la.get(k);
    const y = lb.get(k);
    if (x === undefined || y === undefined) return false;
    if (x.fieldType !== y.fieldType) return false;
    if (!equalVertex(x, y, depth + 1)) return false;
  }
  return true;
}

function isClosed(v: Vertex): boolean {
  evaluate(v);
  if (v.structMark > 0 && inDefinition(v)) return true;
  if (v.groups === undefined) return false;
  for (const g of v.groups.values()) if (!g.open) return true;
  return false;
}

/** Hooks exported as `inspect` from the package index. */
export const inspect = {
  equal(a: CueValue, b: CueValue): boolean {
    const x = vertexOf(a);
    const y = vertexOf(b);
    if (x === undefined || y === undefined) return false;
    return withEngine(x.limits, () => equalVertex(x.v, y.v, 0));
  },
  kind(v: CueValue): string {
    const x = vertexOf(v);
    if (x === undefined) return "_|_";
    return withEngine(x.limits, () => {
      evaluate(x.v);
      if (x.v.err !== undefined) return "_|_";
      if (x.v.disj !== undefined) {
        let k = 0;
        for (const d of x.v.disj.values) {
          evaluate(d);
          k |= d.isList ? 64 : d.structMark > 0 ? 128 : kindOf(d.scalar);
        }
        return kindName(k);
      }
      if (x.v.isList) return "list";
      if (x.v.structMark > 0) return "struct";
      return kindName(kindOf(x.v.scalar));
    });
  },
  closed(v: CueValue): boolean {
    const x = vertexOf(v);
    if (x === undefined) return false;
    return withEngine(x.limits, () => isClosed(x.v));
  },
};

/** CUE-like text of a value (non-concrete parts included), for debugging. */
export function debugText(v: CueValue): string {
  const x = vertexOf(v);
  if (x === undefined) return "_|_";
  return withEngine(x.limits, () => debugString(x.v));
}
import { debugString } from "./debug.js";
