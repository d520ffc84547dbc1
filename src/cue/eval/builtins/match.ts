/**
 * The `matchN` and `matchIf` validators (used by JSON Schema style definitions). The validated
 * value, with its defaults chosen, is unified with each schema; a schema
 *  - matches when the result has no error at all,
 *  - fails when the result has an error that is not merely incomplete,
 *  - may still match when the only problems are incomplete ones (a required field not yet given).
 * `matchN(n, schemas)` holds when the number of matches satisfies `n`; it fails incompletely when
 * counting some of the possible matches would satisfy `n`, and definitely otherwise.
 */

import { resolveDefaultValue } from "../defaults.js";
import { evaluate, firstError } from "../evaluate.js";
import { meet } from "../meet.js";
import { type BottomV, bottom, formatValue, TRUE, type Value } from "../values.js";
import { EVALUATED, NO_CLOSE, OPTIONAL, REQUIRED, Vertex } from "../vertex.js";
import { listArcs } from "./args.js";
import { fn, registerPredeclared } from "./registry.js";

const noPos = { file: "", offset: -1, line: 0, column: 0 };

type Outcome =
  | { readonly t: "match" }
  | { readonly t: "maybe" }
  | { readonly t: "fail"; readonly err: BottomV };

/**
 * An evaluated copy of `v` with the default of every disjunction chosen: a schema sees the value
 * as it will be exported (`{a: *3 | int}` does not match `{a: 2}`).
 */
function finalized(v: Vertex, parent: Vertex | undefined, depth: number): Vertex {
  evaluate(v);
  let src = v;
  const d = v.disj;
  if (d?.hasDefault) {
    const defs = d.values.filter((_, i) => d.defaults[i]);
    if (defs.length === 1 && defs[0] !== undefined) src = defs[0];
    evaluate(src);
  }
  const f = new Vertex(parent, v.label);
  f.fieldType = v.fieldType;
  f.status = EVALUATED;
  f.err = src.err;
  f.scalar = resolveDefaultValue(src.scalar);
  f.structMark = src.structMark;
  f.isList = src.isList;
  f.listLen = src.listLen;
  f.listOpen = src.listOpen;
  if (src.disj !== undefined && src === v) f.disj = src.disj;
  if (src.arcs !== undefined && depth < 100) {
    f.arcs = new Map();
    for (const [label, a] of src.arcs) f.arcs.set(label, finalized(a, f, depth + 1));
  }
  return f;
}

function asVertex(v: Value): Vertex | undefined {
  if (v.t !== "vertex") return undefined;
  return finalized(v.v, undefined, 0);
}

/** Whether an evaluated value still lacks a required field or has an incomplete error. */
function incompleteIn(v: Vertex, depth: number): boolean {
  evaluate(v);
  if (v.err !== undefined) return v.err.err.code === "incomplete";
  if (v.arcs === undefined || depth > 100) return false;
  for (const a of v.arcs.values()) {
    if (a.fieldType === OPTIONAL || a.label.startsWith("#") || a.label.startsWith("_")) continue;
    if (a.fieldType === REQUIRED) return true;
    if (incompleteIn(a, depth + 1)) return true;
  }
  return false;
}

function outcome(v: Value, schema: Value): Outcome {
  const w = new Vertex(undefined, "");
  w.isLet = true;
  const env = {
    up: undefined,
    vertex: w,
    scope: undefined,
    lit: undefined,
    binds: undefined,
    lets: undefined,
    imports: undefined,
  };
  const fv = asVertex(v);
  const value: Value = fv === undefined ? resolveDefaultValue(v) : { t: "vertex", v: fv };
  // The schema first: conflicts then read "schema value and actual value", as cue prints them.
  w.conjuncts = [
    { expr: undefined, env, ctx: NO_CLOSE, value: schema, pos: noPos, embed: false },
    { expr: undefined, env, ctx: NO_CLOSE, value, pos: noPos, embed: false },
  ];
  const err = firstError(w);
  if (err !== undefined) return { t: "fail", err };
  return incompleteIn(w, 0) ? { t: "maybe" } : { t: "match" };
}

function satisfies(n: Value, count: number): boolean {
  return meet(n, { t: "int", v: BigInt(count) }).t !== "bottom";
}

function shown(v: Value): string {
  return v.t === "vertex" ? v.v.shortText() : formatValue(v);
}

registerPredeclared(
  "matchN",
  fn(
    3,
    (a) => {
      const v = a[0] as Value;
      const n = a[1] as Value;
      let matched = 0;
      let possible = 0;
      for (const s of listArcs(a, 2, "matchN")) {
        const o = outcome(v, { t: "vertex", v: s });
        if (o.t === "match") matched++;
        else if (o.t === "maybe") possible++;
      }
      if (satisfies(n, matched)) return TRUE;
      let could = false;
      for (let k = matched + 1; k <= matched + possible && !could; k++) could = satisfies(n, k);
      return bottom(
        could ? "incomplete" : "eval",
        `invalid value ${shown(v)} (does not satisfy matchN): ${matched} matched, expected ${formatValue(n)}`,
        [noPos],
      );
    },
    { validator: true },
  ),
);

registerPredeclared(
  "matchIf",
  fn(
    4,
    (a) => {
      const v = a[0] as Value;
      const [cond, then, els] = [a[1], a[2], a[3]] as [Value, Value, Value];
      const c = outcome(v, cond);
      const o = outcome(v, c.t === "fail" ? els : then);
      if (o.t !== "fail" && c.t !== "maybe") return TRUE;
      const why = o.t === "fail" ? `: ${o.err.err.message}` : "";
      return bottom(
        o.t === "fail" && c.t !== "maybe" ? "eval" : "incomplete",
        `invalid value ${shown(v)} (does not satisfy matchIf)${why}`,
        [noPos],
      );
    },
    { validator: true },
  ),
);
