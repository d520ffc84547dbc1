/**
 * How exported atoms are written, shared by the export walk and the fast export path: as data
 * (integers that are safe integers become numbers, larger ones bigints; bytes become base64) and as
 * `cue export`-style JSON text (floats keep their written form where JSON allows it).
 */

import type { CueData } from "./export.js";
import { type Atom, type FloatV, formatFloat } from "./values.js";

const MIN_SAFE = BigInt(Number.MIN_SAFE_INTEGER);
const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);

/** An atom as exported data. */
export function atomData(x: Atom): CueData {
  switch (x.t) {
    case "null":
      return null;
    case "bool":
      return x.v;
    case "int":
      return x.v >= MIN_SAFE && x.v <= MAX_SAFE ? Number(x.v) : x.v;
    case "float":
      return x.v;
    case "string":
      return x.v;
    case "bytes":
      return Buffer.from(x.v).toString("base64");
    default: {
      const never: never = x;
      return never;
    }
  }
}

/** An atom as JSON text. */
export function atomJSON(x: Atom): string {
  switch (x.t) {
    case "null":
      return "null";
    case "bool":
      return x.v ? "true" : "false";
    case "int":
      return String(x.v);
    case "float":
      return floatJSON(x);
    case "string":
      return JSON.stringify(x.v);
    case "bytes":
      return JSON.stringify(Buffer.from(x.v).toString("base64"));
    default: {
      const never: never = x;
      return never;
    }
  }
}

/** A float as JSON: its written form when JSON accepts it, else the number (`null` if not finite). */
export function floatJSON(f: FloatV): string {
  if (!Number.isFinite(f.v)) return "null";
  let s = formatFloat(f);
  if (s.startsWith(".")) s = `0${s}`;
  if (s.startsWith("-.")) s = `-0${s.slice(1)}`;
  if (/^-?\d+\.?\d*([eE][+-]?\d+)?$/.test(s) && !s.endsWith(".")) return s;
  return JSON.stringify(f.v);
}

const quotedKeys = new Map<string, string>();

/** JSON-quoted field names, cached: the same labels repeat across a large document. */
export function quoteKey(k: string): string {
  let q = quotedKeys.get(k);
  if (q === undefined) {
    q = JSON.stringify(k);
    if (quotedKeys.size > 100_000) quotedKeys.clear();
    quotedKeys.set(k, q);
  }
  return q;
}

/** Sets `obj[name]`; a field named `__proto__` stays a field instead of setting the prototype. */
export function setField(obj: Record<string, CueData>, name: string, x: CueData): void {
  if (name === "__proto__") {
    Object.defineProperty(obj, name, { value: x, enumerable: true, writable: true, configurable: true });
  } else obj[name] = x;
}
