/**
 * Building values in builtins: lists and structs as evaluated vertices without conjuncts.
 */

import type { Value } from "../values.js";
import { EVALUATED, REGULAR, strLabel, Vertex } from "../vertex.js";

function leaf(parent: Vertex, label: string, v: Value): Vertex {
  if (v.t === "vertex") {
    return v.v;
  }
  const a = new Vertex(parent, label);
  a.fieldType = REGULAR;
  a.scalar = v;
  a.status = EVALUATED;
  if (v.t === "bottom") a.err = v;
  return a;
}

/** A closed list value. */
export function makeList(items: readonly Value[]): Value {
  const l = new Vertex(undefined, "");
  l.isList = true;
  l.status = EVALUATED;
  l.listLen = items.length;
  l.fieldType = REGULAR;
  l.arcs = new Map();
  items.forEach((it, i) => {
    l.arcs?.set(String(i), leaf(l, String(i), it));
  });
  return { t: "vertex", v: l };
}

/** A struct value with regular fields. */
export function makeStruct(fields: readonly [string, Value][]): Value {
  const s = new Vertex(undefined, "");
  s.structMark = 2;
  s.status = EVALUATED;
  s.fieldType = REGULAR;
  s.arcs = new Map();
  for (const [k, v] of fields) s.arcs.set(strLabel(k), leaf(s, strLabel(k), v));
  return { t: "vertex", v: s };
}
