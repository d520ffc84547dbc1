/**
 * Structure sharing. A field whose only conjunct is a reference to a definition (`flap: #Flap`,
 * `vars: #Vars`, `labels: #Labels` when the user wrote nothing there) would re-collect that
 * definition's conjuncts into a fresh copy of its whole subtree, one per use. When the definition's
 * evaluated subtree is free of errors, the field borrows its arcs instead: every use points at the
 * one evaluated subtree. The result is the same — the copy would be evaluated from the same
 * conjuncts in the same lexical environments — and only this field's own state differs: it is
 * marked as borrowing, so it is treated as closed by the definition (as the copy would be) and is
 * never modified. A conjunct arriving later makes the field re-evaluate from its conjuncts (the
 * `lateConjuncts` path), which replaces the borrowed arcs by its own.
 */

import type * as ast from "../syntax/ast.js";
import { hasExpanded, inDefinition } from "./collect.js";
import { engine } from "./engine.js";
import { evaluate } from "./evaluate.js";
import { resolveRef } from "./expr.js";
import { COLLECTING, EVALUATED, OPTIONAL, type Vertex } from "./vertex.js";

let enabled = true;

/** Tests: turn sharing off to compare with evaluating every use in place. */
export function setSharingForTesting(on: boolean): void {
  enabled = on;
}

/**
 * Makes `v` (being evaluated, one conjunct) borrow the evaluated subtree of the definition its
 * conjunct refers to. Returns false (nothing changed) when that is not possible.
 */
export function shareDefinition(v: Vertex): boolean {
  const c = v.conjuncts[0];
  if (!enabled || c === undefined || c.value !== undefined || c.embed || v.isLet) return false;
  const x = c.expr;
  if (x === undefined || (x.kind !== "Ident" && x.kind !== "Selector") || !namesDefinition(x)) return false;
  // More conjuncts may still arrive while the parent collects, and disjunct clones carry choices.
  if (v.parent !== undefined && v.parent.status !== EVALUATED) return false;
  if (v.choices !== undefined || v.cloneOf !== undefined) return false;
  const cycles = engine().cycles;
  const r = resolveRef(x, c.env);
  if (r.t !== "vertex") return false;
  const d = r.v;
  if (d === v || d.isLet || d.conjuncts.length === 0 || !inDefinition(d)) return false;
  // Structural cycles are reported by the ordinary path.
  for (let a = v.parent; a !== undefined; a = a.parent) {
    if (a === d || a.cloneOf === d || hasExpanded(a, d)) return false;
  }
  if (d.status === COLLECTING || !shareable(d) || engine().cycles !== cycles) return false;
  if (d.isList || d.structMark !== 2) return false;
  borrow(v, d);
  return true;
}

/** Makes `v` point at the evaluated arcs of the shareable definition `d`. */
export function borrow(v: Vertex, d: Vertex): void {
  v.arcs = d.arcs;
  v.scalar = d.scalar;
  v.scalarPos = d.scalarPos;
  v.structMark = d.structMark;
  v.patterns = d.patterns;
  v.patternsApplied = true;
  v.hasEllipsis = d.hasEllipsis;
  v.borrowed = true;
}

/** Whether a reference names a definition (`#D`, `_#D`, `pkg.#D`, `#A.#B`): checked before resolving. */
export function namesDefinition(x: ast.Expr): boolean {
  const name =
    x.kind === "Ident" ? x.name : x.kind === "Selector" && x.sel.kind === "Ident" ? x.sel.name : "";
  const k = name.charCodeAt(0);
  return k === 0x23 || (k === 0x5f && name.charCodeAt(1) === 0x23);
}

/**
 * Whether the evaluated subtree of `d` can be shared: evaluated without errors (not even
 * incomplete ones, whose messages could name the definition's path), without unresolved
 * disjunctions, and without conjuncts that arrived after evaluation. Remembered per vertex.
 */
export function shareable(d: Vertex): boolean {
  const known = d.shareState;
  if (known !== 0) return known === 1;
  d.shareState = 2; // a cycle back to `d` while checking: not shareable
  evaluate(d);
  let ok = d.status === EVALUATED && d.err === undefined && d.disj === undefined && !d.lateAdded && !d.cyclic;
  if (ok && d.scalar.t === "bottom") ok = false;
  if (ok && d.arcs !== undefined) {
    for (const a of d.arcs.values()) {
      if (a.fieldType === OPTIONAL || a.isShared) continue;
      if (!shareable(a)) {
        ok = false;
        break;
      }
    }
  }
  d.shareState = ok ? 1 : 2;
  return ok;
}
