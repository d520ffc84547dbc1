/**
 * Inspection hooks for tools (the conformance runner): CUE-level equality of possibly non-concrete
 * values (including definitions, hidden and optional fields), the kind of a value, and closedness.
 */

import { inDefinition } from "./collect.js";
import { withEngine } from "./engine.js";
import { equalVertex } from "./equal.js";
import { evaluate } from "./evaluate.js";
import type { CueValue } from "./instance.js";
import { vertexOf } from "./instance.js";
import { kindName } from "./kinds.js";
import { kindOf } from "./values.js";
import type { Vertex } from "./vertex.js";

function isClosed(v: Vertex): boolean {
  evaluate(v);
  if (v.structMark > 0 && inDefinition(v)) return true;
  return v.groups !== undefined && v.groups.length > 0;
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
