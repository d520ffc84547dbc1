/**
 * Inspection hooks for tools (the conformance runner): CUE-level equality of possibly non-concrete
 * values (including definitions, hidden and optional fields), the kind of a value, and closedness.
 */

import { groupsOf } from "./closedness.js";
import { inDefinition } from "./collect.js";
import { withEngine } from "./engine.js";
import { equalAsDiff } from "./equal.js";
import { evaluate, patternMatches } from "./evaluate.js";
import { evalExpr } from "./expr.js";
import type { CueValue } from "./instance.js";
import { vertexOf } from "./instance.js";
import { kindName } from "./kinds.js";
import { kindOf } from "./values.js";
import { groupActive, groupHas, type PatternEntry, type Vertex } from "./vertex.js";

function isClosed(v: Vertex): boolean {
  evaluate(v);
  if (v.disj !== undefined) return v.disj.values.every(isClosed);
  if (v.structMark > 0 && (v.borrowed || inDefinition(v))) return true;
  // cue marks every value below a recursively closed struct closed, scalars included
  // (`Y` in `d: {#base, Y: "foo"}`); a struct still needs a context that closes it.
  if (v.structMark === 0) return inDefinition(v) || (v.parent !== undefined && closedRecursively(v.parent));
  return groupsOf(v).some(groupActive);
}

/** Whether a definition (or `__closeAll`) closes `v` and everything below it. */
function closedRecursively(v: Vertex): boolean {
  if (inDefinition(v)) return true;
  return groupsOf(v).some((g) => g.ctx.recursive && g.ctx.andMember === undefined);
}

/** A selector for `allows`: a label, any string label, or any list index. */
export type AllowsSelector =
  | { readonly kind: "label"; readonly name: string }
  | { readonly kind: "anyString" }
  | { readonly kind: "anyIndex" };

function matchesAnyString(p: PatternEntry): boolean {
  p.pattern ??= evalExpr(p.label.expr, p.env);
  const pat = p.pattern;
  return (
    pat.t === "top" ||
    (pat.t === "basic" && (pat.k & 16) !== 0 && pat.bounds.length === 0 && pat.validators.length === 0)
  );
}

/** cue's `Value.Allows`: may the value gain this field, any string field, or any index? */
export function allows(v: Vertex, sel: AllowsSelector): boolean {
  evaluate(v);
  if (v.isList) {
    if (sel.kind === "anyIndex") return v.listOpen;
    if (sel.kind === "label") return /^\d+$/.test(sel.name) && (Number(sel.name) < v.listLen || v.listOpen);
    return false;
  }
  if (sel.kind === "anyIndex") return false;
  const groups = groupsOf(v).filter((g) => g.ctx.skipAt !== v && groupActive(g));
  const defClosed = groups.length === 0 && (v.borrowed || inDefinition(v)) && !v.hasEllipsis;
  if (sel.kind === "label") {
    const a = v.arcs?.get(sel.name);
    if (a !== undefined && !a.notAllowed) return true;
    if (defClosed) return (v.patterns ?? []).some((p) => patternMatches(p, sel.name));
    return groups.every(
      (g) => g.open || groupHas(g, sel.name) || (g.patterns ?? []).some((p) => patternMatches(p, sel.name)),
    );
  }
  if (defClosed) return (v.patterns ?? []).some(matchesAnyString);
  return groups.every((g) => g.open || (g.patterns ?? []).some(matchesAnyString));
}

/** Hooks exported as `inspect` from the package index. */
export const inspect = {
  equal(a: CueValue, b: CueValue): boolean {
    const x = vertexOf(a);
    const y = vertexOf(b);
    if (x === undefined || y === undefined) return false;
    return withEngine(x.limits, () => equalAsDiff(x.v, y.v));
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
  allows(v: CueValue, sel: AllowsSelector): boolean {
    const x = vertexOf(v);
    if (x === undefined) return false;
    return withEngine(x.limits, () => allows(x.v, sel));
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
