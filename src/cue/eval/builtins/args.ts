/**
 * Argument helpers for builtins: they resolve defaults, require concrete values of the expected
 * kind, and throw {@link ArgError} (incomplete or type errors) otherwise.
 */

import { resolveDefaultValue } from "../defaults.js";
import { evaluate, vertexValue } from "../evaluate.js";
import { BOOL, INT, LIST, NUMBER, STRING } from "../kinds.js";
import { bottom, formatValue, isAtom, kindOf, typeName, type Value } from "../values.js";
import { REGULAR, type Vertex } from "../vertex.js";
import { ArgError } from "./registry.js";

/**
 * The concrete value of argument `i`. With `want` (a kind mask and its name), a non-concrete
 * argument that can never be of that kind is a type error rather than an incomplete one.
 */
export function concrete(
  args: readonly Value[],
  i: number,
  fname: string,
  want?: { readonly mask: number; readonly name: string },
): Value {
  const raw = args[i];
  if (raw === undefined) throw new ArgError(bottom("eval", `${fname}: missing argument ${i + 1}`));
  const v = resolveDefaultValue(raw);
  if (v.t === "bottom") throw new ArgError(v);
  if (isAtom(v) || v.t === "vertex") return v;
  if (want !== undefined && (kindOf(v) & want.mask) === 0) throw wrong(v, want.name, i, fname);
  if (want?.mask === LIST && (v.t === "top" || v.t === "basic")) {
    throw new ArgError(
      bottom("incomplete", `error in call to ${fname}: non-concrete list for argument ${i}`),
    );
  }
  throw new ArgError(bottom("incomplete", `error in call to ${fname}: non-concrete argument ${i}`));
}

function wrong(v: Value, want: string, i: number, fname: string): ArgError {
  return new ArgError(
    bottom(
      "eval",
      `cannot use ${formatValue(v)} (type ${typeName(v)}) as ${want} in argument ${i + 1} to ${fname}`,
    ),
    i,
  );
}

export function str(args: readonly Value[], i: number, fname: string): string {
  const v = concrete(args, i, fname, { mask: STRING, name: "string" });
  if (v.t !== "string") throw wrong(v, "string", i, fname);
  return v.v;
}

export function bytesOrString(args: readonly Value[], i: number, fname: string): string {
  const v = concrete(args, i, fname);
  if (v.t === "string") return v.v;
  if (v.t === "bytes") return Buffer.from(v.v).toString("utf8");
  throw wrong(v, "string", i, fname);
}

export function int(args: readonly Value[], i: number, fname: string): bigint {
  const v = concrete(args, i, fname, { mask: INT, name: "int" });
  if (v.t !== "int") throw wrong(v, "int", i, fname);
  return v.v;
}

export function num(args: readonly Value[], i: number, fname: string): number {
  const v = concrete(args, i, fname, { mask: NUMBER, name: "number" });
  if (v.t === "int") return Number(v.v);
  if (v.t === "float") return v.v;
  throw wrong(v, "number", i, fname);
}

export function bool(args: readonly Value[], i: number, fname: string): boolean {
  const v = concrete(args, i, fname, { mask: BOOL, name: "bool" });
  if (v.t !== "bool") throw wrong(v, "bool", i, fname);
  return v.v;
}

/** The element vertices of a list argument. */
export function listArcs(args: readonly Value[], i: number, fname: string): Vertex[] {
  const v = concrete(args, i, fname, { mask: LIST, name: "list" });
  if (v.t !== "vertex" || !v.v.isList) throw wrong(v, "list", i, fname);
  return elements(v.v);
}

export function elements(l: Vertex): Vertex[] {
  evaluate(l);
  const out: Vertex[] = [];
  for (let k = 0; k < l.listLen; k++) {
    const a = l.arcs?.get(String(k));
    if (a !== undefined) out.push(a);
  }
  return out;
}

/**
 * The element values of a list argument that must all be strings or numbers, with cue's messages:
 * a non-concrete element of the right kind is incomplete, any other element a type error.
 */
export function typedListValues(
  args: readonly Value[],
  i: number,
  fname: string,
  kind: "string" | "number",
): Value[] {
  const mask = kind === "string" ? STRING : NUMBER;
  return listArcs(args, i, fname).map((a, k) => {
    const v = resolveDefaultValue(vertexValue(a));
    if (v.t === "bottom") throw new ArgError(v);
    if ((kindOf(v) & mask) === 0) {
      throw new ArgError(
        bottom(
          "eval",
          `error in call to ${fname}: invalid list element ${k} in argument ${i} to call: cannot use value ${formatValue(v)} (${typeName(v)}) as ${kind}`,
        ),
      );
    }
    if (!isAtom(v)) {
      throw new ArgError(
        bottom(
          "incomplete",
          `error in call to ${fname}: non-concrete value ${formatValue(v)} for element ${k} of ${kind} list argument ${i}`,
        ),
      );
    }
    return v;
  });
}

/** The concrete element values of a list argument. */
export function listValues(args: readonly Value[], i: number, fname: string): Value[] {
  return listArcs(args, i, fname).map((a, k) => concrete([vertexValue(a)], 0, `${fname} (element ${k})`));
}

export function structArg(args: readonly Value[], i: number, fname: string): Vertex {
  const v = concrete(args, i, fname);
  if (v.t !== "vertex" || v.v.isList) throw wrong(v, "struct", i, fname);
  evaluate(v.v);
  return v.v;
}

/** Regular (output) fields of a struct vertex. */
export function regularArcs(s: Vertex): [string, Vertex][] {
  const out: [string, Vertex][] = [];
  if (s.arcs === undefined) return out;
  for (const [k, a] of s.arcs) {
    if (a.fieldType !== REGULAR || k.startsWith("_") || k.startsWith("#")) continue;
    out.push([k, a]);
  }
  return out;
}
