/**
 * The `list` package: aggregation, slicing, sorting (with a comparator struct such as
 * `list.Ascending`) and the `MinItems`/`MaxItems`/`UniqueItems` validators.
 */

import { resolveDefaultValue } from "../defaults.js";
import { evaluate, vertexValue } from "../evaluate.js";
import { bottom, compareAtoms, FALSE, TRUE, type Value } from "../values.js";
import { NO_CLOSE, Vertex } from "../vertex.js";
import { concrete, elements, int, listArcs, listValues, num, typedListValues } from "./args.js";
import { binaryOpValues } from "./compare.js";
import { makeList, makeStruct } from "./make.js";
import { ArgError, fn, registerPackage } from "./registry.js";

const n = (v: number | bigint): Value => ({ t: "int", v: BigInt(v) });
const b = (v: boolean): Value => (v ? TRUE : FALSE);

function elemValues(a: Value[], i: number, name: string): Value[] {
  return listArcs(a, i, name).map((x) => vertexValue(x));
}

function sumOf(vals: Value[], name: string, mul: boolean): Value {
  let isInt = true;
  let bi = mul ? 1n : 0n;
  let f = mul ? 1 : 0;
  for (const v of vals) {
    if (v.t === "int") {
      bi = mul ? bi * v.v : bi + v.v;
      f = mul ? f * Number(v.v) : f + Number(v.v);
    } else if (v.t === "float") {
      isInt = false;
      f = mul ? f * v.v : f + v.v;
    } else throw new ArgError(bottom("eval", `${name}: element is not a number`));
  }
  return isInt ? n(bi) : { t: "float", v: f };
}

/** Sorts with a comparator struct `{x: _, y: _, less: bool}` by unifying it with each pair. */
function sortWith(items: Value[], cmp: Value): Value[] {
  const c = resolveDefaultValue(cmp);
  if (c.t !== "vertex") throw new ArgError(bottom("eval", "list.Sort: comparator is not a struct"));
  const less = (x: Value, y: Value): boolean => {
    const w = new Vertex(undefined, "");
    w.isLet = true;
    const pos = { file: "", offset: -1, line: 0, column: 0 };
    const env = {
      up: undefined,
      vertex: w,
      scope: undefined,
      lit: undefined,
      binds: undefined,
      lets: undefined,
      imports: undefined,
    };
    w.conjuncts = [
      { expr: undefined, env, ctx: NO_CLOSE, value: c, pos, embed: false },
      {
        expr: undefined,
        env,
        ctx: NO_CLOSE,
        value: makeStruct([
          ["x", x],
          ["y", y],
        ]),
        pos,
        embed: false,
      },
    ];
    evaluate(w);
    const l = w.arcs?.get("less");
    if (l === undefined) throw new ArgError(bottom("eval", "list.Sort: comparator has no field less"));
    const r = resolveDefaultValue(vertexValue(l));
    if (r.t !== "bool") throw new ArgError(bottom("incomplete", "list.Sort: less is not a concrete bool"));
    return r.v;
  };
  return [...items].sort((x, y) => (less(x, y) ? -1 : less(y, x) ? 1 : 0));
}

const ascending = (op: "<" | ">"): Value => {
  // {x: _, y: _, less: x < y} as a builtin comparator: represented by a marker struct.
  return { t: "string", v: `__cmp${op}` };
};

function sortBuiltin(items: Value[], cmp: Value): Value[] {
  if (cmp.t === "string" && cmp.v.startsWith("__cmp")) {
    const desc = cmp.v === "__cmp>";
    return [...items].sort((x, y) => {
      const c = compareAtoms(x, y);
      if (c === undefined) throw new ArgError(bottom("eval", "list.Sort: elements are not comparable"));
      return desc ? -c : c;
    });
  }
  return sortWith(items, cmp);
}

function flatten(v: Value, depth: number, out: Value[]): void {
  const r = resolveDefaultValue(v);
  if (r.t === "vertex" && r.v.isList && depth !== 0) {
    for (const e of elements(r.v)) flatten(vertexValue(e), depth - 1, out);
    return;
  }
  out.push(r);
}

registerPackage("list", {
  Ascending: { kind: "value", value: ascending("<") },
  Descending: { kind: "value", value: ascending(">") },
  Concat: fn(1, (a) => {
    const out: Value[] = [];
    for (const l of elemValues(a, 0, "list.Concat")) {
      const r = resolveDefaultValue(l);
      // An element that is an error (a list containing itself: a structural cycle) is the call's.
      if (r.t === "bottom") {
        const m = r.err.message;
        return bottom(
          r.err.code,
          m.startsWith("error in call to") ? m : `error in call to list.Concat: ${m}`,
        );
      }
      if (r.t !== "vertex" || !r.v.isList) return bottom("eval", "list.Concat: element is not a list");
      for (const e of elements(r.v)) out.push(vertexValue(e));
    }
    return makeList(out);
  }),
  Contains: fn(2, (a) => {
    const x = concrete(a, 1, "list.Contains");
    return b(listValues(a, 0, "list.Contains").some((e) => binaryOpValues("==", e, x)));
  }),
  Sum: fn(1, (a) => sumOf(typedListValues(a, 0, "list.Sum", "number"), "list.Sum", false)),
  Product: fn(1, (a) => sumOf(typedListValues(a, 0, "list.Product", "number"), "list.Product", true)),
  Avg: fn(1, (a) => {
    const vals = typedListValues(a, 0, "list.Avg", "number");
    if (vals.length === 0) return bottom("eval", "list.Avg: empty list");
    const s = sumOf(vals, "list.Avg", false);
    const total = s.t === "int" ? Number(s.v) : s.t === "float" ? s.v : 0;
    return { t: "float", v: total / vals.length };
  }),
  Max: fn(1, (a) => {
    const vals = typedListValues(a, 0, "list.Max", "number");
    if (vals.length === 0) return bottom("eval", "list.Max: empty list");
    return vals.reduce((m, v) => ((compareAtoms(v, m) ?? 0) > 0 ? v : m));
  }),
  Min: fn(1, (a) => {
    const vals = typedListValues(a, 0, "list.Min", "number");
    if (vals.length === 0) return bottom("eval", "list.Min: empty list");
    return vals.reduce((m, v) => ((compareAtoms(v, m) ?? 0) < 0 ? v : m));
  }),
  Range: fn(3, (a) => {
    const start = num(a, 0, "list.Range");
    const limit = num(a, 1, "list.Range");
    const step = num(a, 2, "list.Range");
    if (step === 0) return bottom("eval", "list.Range: step must be non zero");
    const allInt = [0, 1, 2].every((i) => resolveDefaultValue(a[i] as Value).t === "int");
    const out: Value[] = [];
    for (let x = start; step > 0 ? x < limit : x > limit; x += step) {
      out.push(allInt ? n(BigInt(x)) : { t: "float", v: x });
      if (out.length > 1_000_000) return bottom("limit", "list.Range: too many elements");
    }
    return makeList(out);
  }),
  Repeat: fn(2, (a) => {
    const items = elemValues(a, 0, "list.Repeat");
    const c = Number(int(a, 1, "list.Repeat"));
    if (c < 0) return bottom("eval", "list.Repeat: negative count");
    const out: Value[] = [];
    for (let i = 0; i < c; i++) out.push(...items);
    return makeList(out);
  }),
  FlattenN: fn(2, (a) => {
    const out: Value[] = [];
    const d = Number(int(a, 1, "list.FlattenN"));
    for (const e of elemValues(a, 0, "list.FlattenN")) flatten(e, d < 0 ? -1 : d, out);
    return makeList(out);
  }),
  Take: fn(2, (a) => {
    const c = Number(int(a, 1, "list.Take"));
    if (c < 0) return bottom("eval", "list.Take: negative index");
    return makeList(elemValues(a, 0, "list.Take").slice(0, c));
  }),
  Drop: fn(2, (a) => {
    const c = Number(int(a, 1, "list.Drop"));
    if (c < 0) return bottom("eval", "list.Drop: negative index");
    return makeList(elemValues(a, 0, "list.Drop").slice(c));
  }),
  Slice: fn(3, (a) => {
    const items = elemValues(a, 0, "list.Slice");
    const i = Number(int(a, 1, "list.Slice"));
    const j = Number(int(a, 2, "list.Slice"));
    if (i < 0 || j < i || j > items.length) return bottom("eval", "list.Slice: index out of range");
    return makeList(items.slice(i, j));
  }),
  Reverse: fn(1, (a) => makeList(elemValues(a, 0, "list.Reverse").reverse())),
  Sort: fn(2, (a) => makeList(sortBuiltin(listValues(a, 0, "list.Sort"), a[1] as Value))),
  SortStable: fn(2, (a) => makeList(sortBuiltin(listValues(a, 0, "list.SortStable"), a[1] as Value))),
  SortStrings: fn(1, (a) => makeList(sortBuiltin(listValues(a, 0, "list.SortStrings"), ascending("<")))),
  IsSorted: fn(2, (a) => {
    const vals = listValues(a, 0, "list.IsSorted");
    const sorted = sortBuiltin(vals, a[1] as Value);
    return b(sorted.every((v, i) => v === vals[i]));
  }),
  UniqueItems: fn(
    1,
    (a) => {
      const vals = listValues(a, 0, "list.UniqueItems");
      for (let i = 0; i < vals.length; i++) {
        for (let j = i + 1; j < vals.length; j++) {
          if (binaryOpValues("==", vals[i] as Value, vals[j] as Value)) return FALSE;
        }
      }
      return TRUE;
    },
    { validator: true },
  ),
  MinItems: fn(2, (a) => b(listArcs(a, 0, "list.MinItems").length >= Number(int(a, 1, "list.MinItems"))), {
    validator: true,
  }),
  MaxItems: fn(2, (a) => b(listArcs(a, 0, "list.MaxItems").length <= Number(int(a, 1, "list.MaxItems"))), {
    validator: true,
  }),
});
