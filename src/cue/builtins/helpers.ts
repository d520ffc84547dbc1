/**
 * Small conversions shared by the packages in this folder: JavaScript values to engine values and
 * concrete engine values to export trees.
 */

import { ArgError } from "../eval/builtins/registry.js";
import type { CueError } from "../eval/errors.js";
import { exportTree, type Tree } from "../eval/export.js";
import { bottom, type Value } from "../eval/values.js";
import { Vertex } from "../eval/vertex.js";

export const str = (v: string): Value => ({ t: "string", v });
export const int = (v: number | bigint): Value => ({ t: "int", v: BigInt(v) });
export const bytes = (v: Uint8Array): Value => ({ t: "bytes", v });

/** Throws an evaluation error for the call. */
export function fail(fname: string, message: string): never {
  throw new ArgError(bottom("eval", `error in call to ${fname}: ${message}`));
}

/**
 * The exported tree of a (concrete) argument; incomplete values raise `incomplete` errors worded
 * like cue's (`error in call to F: incomplete value string`, or with `convert`,
 * `… cannot convert non-concrete value string` as text/template says it).
 */
export function treeOf(v: Value, fname: string, convert = false): Tree {
  if (v.t === "bottom") throw new ArgError(v);
  let vertex: Vertex;
  if (v.t === "vertex") vertex = v.v;
  else {
    vertex = new Vertex(undefined, "");
    vertex.scalar = v;
    vertex.status = 2;
  }
  const errs: CueError[] = [];
  const t = exportTree(vertex, [], errs);
  const e = errs[0];
  if (t === undefined || e !== undefined) {
    const incomplete = e === undefined || e.code === "incomplete";
    const raw = e?.message ?? "invalid value";
    const msg = convert ? raw.replace(/^incomplete value /, "cannot convert non-concrete value ") : raw;
    throw new ArgError(bottom(incomplete ? "incomplete" : "eval", `error in call to ${fname}: ${msg}`));
  }
  return t;
}
