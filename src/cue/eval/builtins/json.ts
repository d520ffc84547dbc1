/**
 * The `encoding/json` package: Marshal (of concrete values), Unmarshal, Valid, Compact, Indent.
 */

import type { CueError } from "../errors.js";
import { exportTree, toJSONText } from "../export.js";
import { bottom, FALSE, TRUE, type Value } from "../values.js";
import { Vertex } from "../vertex.js";
import { concrete, listArcs, str } from "./args.js";
import { makeList, makeStruct } from "./make.js";
import { ArgError, fn, registerPackage } from "./registry.js";

function marshal(v: Value, name: string): string {
  if (v.t === "vertex") {
    const errs: CueError[] = [];
    const t = exportTree(v.v, [], errs);
    if (t === undefined || errs.length > 0) {
      const e = errs[0];
      // cue: `error in call to encoding/json.Marshal: cannot convert incomplete value "string" to JSON`.
      const open = e?.code === "incomplete" ? /^incomplete value (.+)$/.exec(e.message) : null;
      if (open !== null) {
        const what = JSON.stringify(open[1]);
        throw new ArgError(
          bottom(
            "incomplete",
            `error in call to encoding/${name}: cannot convert incomplete value ${what} to JSON`,
          ),
        );
      }
      throw new ArgError(
        bottom(e?.code === "incomplete" ? "incomplete" : "eval", `${name}: ${e?.message ?? "invalid value"}`),
      );
    }
    return toJSONText(t, 0);
  }
  const w = new Vertex(undefined, "");
  w.scalar = v;
  w.status = 2;
  const errs: CueError[] = [];
  const t = exportTree(w, [], errs);
  if (t === undefined)
    throw new ArgError(bottom("incomplete", `${name}: ${errs[0]?.message ?? "invalid value"}`));
  return toJSONText(t, 0);
}

/** Converts parsed JSON to a CUE value (numbers with a fraction or exponent are floats). */
export function fromJSON(text: string): Value {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text, (_k, v, ctx?: { source?: string }) =>
      typeof v === "number" && ctx?.source !== undefined ? { __num: ctx.source } : v,
    );
  } catch (e) {
    return bottom("eval", `json: invalid JSON: ${(e as Error).message}`);
  }
  const conv = (x: unknown): Value => {
    if (x === null) return { t: "null" };
    if (typeof x === "boolean") return x ? TRUE : FALSE;
    if (typeof x === "string") return { t: "string", v: x };
    if (typeof x === "number") return Number.isInteger(x) ? { t: "int", v: BigInt(x) } : { t: "float", v: x };
    if (Array.isArray(x)) return makeList(x.map(conv));
    if (typeof x === "object") {
      const o = x as Record<string, unknown>;
      if (typeof o.__num === "string" && Object.keys(o).length === 1) {
        const s = o.__num;
        if (/^-?\d+$/.test(s)) return { t: "int", v: BigInt(s) };
        return { t: "float", v: Number(s), text: s };
      }
      return makeStruct(Object.entries(o).map(([k, v]) => [k, conv(v)]));
    }
    return bottom("eval", "json: unsupported value");
  };
  return conv(parsed);
}

function reindent(src: string, prefix: string, indent: string): string {
  const v = JSON.parse(src) as unknown;
  const out = JSON.stringify(v, null, indent);
  return out
    .split("\n")
    .map((l, i) => (i === 0 ? l : prefix + l))
    .join("\n");
}

registerPackage("encoding/json", {
  Marshal: fn(1, (a) => ({ t: "string", v: marshal(concrete(a, 0, "json.Marshal"), "json.Marshal") })),
  MarshalStream: fn(1, (a) => ({
    t: "string",
    v: listArcs(a, 0, "json.MarshalStream")
      .map((x) => `${marshal({ t: "vertex", v: x }, "json.MarshalStream")}\n`)
      .join(""),
  })),
  Unmarshal: fn(1, (a) => {
    const v = concrete(a, 0, "json.Unmarshal");
    const s = v.t === "bytes" ? Buffer.from(v.v).toString("utf8") : str(a, 0, "json.Unmarshal");
    return fromJSON(s);
  }),
  Valid: fn(
    1,
    (a) => {
      try {
        JSON.parse(str(a, 0, "json.Valid"));
        return TRUE;
      } catch {
        return FALSE;
      }
    },
    { validator: true },
  ),
  Compact: fn(1, (a) => {
    try {
      return { t: "string", v: JSON.stringify(JSON.parse(str(a, 0, "json.Compact"))) };
    } catch (e) {
      return bottom("eval", `json.Compact: ${(e as Error).message}`);
    }
  }),
  Indent: fn(3, (a) => {
    try {
      return {
        t: "string",
        v: reindent(str(a, 0, "json.Indent"), str(a, 1, "json.Indent"), str(a, 2, "json.Indent")),
      };
    } catch (e) {
      return bottom("eval", `json.Indent: ${(e as Error).message}`);
    }
  }),
});
