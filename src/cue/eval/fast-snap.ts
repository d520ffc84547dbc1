/**
 * The exported value of an evaluated definition, for the fast export path: a field whose only
 * conjunct is a definition (`flap: #Flap`) exports as the definition does, because the evaluator
 * shares the definition's evaluated fields with it (share.ts). Taken only for definitions the
 * evaluator would share: evaluated without errors, unresolved disjunctions or late conjuncts.
 */

import { resolveDefaultValue } from "./defaults.js";
import { step } from "./engine.js";
import { evaluate } from "./evaluate.js";
import type { Snap } from "./fast-out.js";
import { shareable } from "./share.js";
import { isAtom } from "./values.js";
import { displayLabel, OPTIONAL, REQUIRED, soleDefault, type Vertex } from "./vertex.js";

const snaps = new WeakMap<Vertex, Snap | null>();

/** What exporting the definition `def` gives, or null when that is not certain to succeed alike. */
export function definitionSnap(def: Vertex): Snap | null {
  let s = snaps.get(def);
  if (s === undefined) {
    s = shareable(def) ? (snapshot(def, 0) ?? null) : null;
    snaps.set(def, s);
  }
  return s;
}

/** Mirrors the export walk's `visit` on an evaluated, error-free vertex. */
function snapshot(v: Vertex, depth: number): Snap | undefined {
  // The definition's shared fields are visited at every use: each visit is a step (a definition
  // that refers to another twice, again and again, is exponentially large).
  if (step() !== undefined) return undefined;
  evaluate(v);
  if (v.err !== undefined || depth > 100) return undefined;
  if (v.disj !== undefined) {
    const def = soleDefault(v.disj);
    return def !== undefined ? snapshot(def, depth + 1) : undefined;
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
