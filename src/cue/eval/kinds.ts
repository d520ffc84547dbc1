/**
 * Kinds of CUE values as a bit set, so that basic types (`int`, `number`, `_`) intersect with `&`.
 */

export const NULL = 1;
export const BOOL = 2;
export const INT = 4;
export const FLOAT = 8;
export const STRING = 16;
export const BYTES = 32;
export const LIST = 64;
export const STRUCT = 128;
export const NUMBER = INT | FLOAT;
export const SCALAR = NULL | BOOL | NUMBER | STRING | BYTES;
export const TOP_KIND = SCALAR | LIST | STRUCT;

const names: [number, string][] = [
  [NULL, "null"],
  [BOOL, "bool"],
  [INT, "int"],
  [FLOAT, "float"],
  [STRING, "string"],
  [BYTES, "bytes"],
  [LIST, "list"],
  [STRUCT, "struct"],
];

/** The name CUE prints for a kind set, e.g. `int`, `number`, `_`, `(int|string)`. */
export function kindName(k: number): string {
  if (k === TOP_KIND) return "_";
  if (k === NUMBER) return "number";
  if (k === 0) return "_|_";
  const parts: string[] = [];
  let rest = k;
  if ((k & NUMBER) === NUMBER) {
    parts.push("number");
    rest &= ~NUMBER;
  }
  for (const [bit, name] of names) if (rest & bit) parts.push(name);
  return parts.length === 1 ? (parts[0] ?? "_") : parts.join("|");
}
