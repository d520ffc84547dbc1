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
  throw new ArgError(bottom("eval", `${fname}: ${message}`));
}

/** The exported tree of a (concrete) argument; incomplete values raise `incomplete` errors. */
export function treeOf(v: Value, fname: string): Tree {
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
    const msg =
      e?.message.replace(/^incomplete value /, "cannot convert non-concrete value ") ?? "invalid value";
    throw new ArgError(bottom(incomplete ? "incomplete" : "eval", `${fname}: ${msg}`));
  }
  return t;
}
