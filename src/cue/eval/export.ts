/**
 * Export of a value inside evaluation: the concrete value of a vertex as a {@link Tree} (builtins
 * such as `json.Marshal` and `yaml.Marshal`, and concreteness checks, use it), the errors that
 * prevent it (conflicts, non-concrete values, unresolved disjunctions, missing required fields), and
 * `cue export`-style JSON text of a tree. The public `export()` / `toJSON()` go through
 * `export-walk.ts`, which writes data or text directly and records positions.
 */

import { resolveDefaultValue } from "./defaults.js";
import { type CueError, type ErrInfo, type Position, toCueErrors } from "./errors.js";
import { evaluate } from "./evaluate.js";
import { floatJSON, quoteKey } from "./export-atoms.js";
import { type FloatV, formatValue, type Value } from "./values.js";
import { displayLabel, OPTIONAL, posArray, REQUIRED, soleDefault, type Vertex } from "./vertex.js";

/** Exported data: floats stay distinguishable from integers until converted. */
export type Tree =
  | { readonly k: "null" }
  | { readonly k: "bool"; readonly v: boolean }
  | { readonly k: "int"; readonly v: bigint }
  | { readonly k: "float"; readonly v: FloatV }
  | { readonly k: "string"; readonly v: string }
  | { readonly k: "bytes"; readonly v: Uint8Array }
  | { readonly k: "list"; readonly items: Tree[]; readonly src: Vertex[] }
  | { readonly k: "struct"; readonly fields: [string, Tree][]; readonly src: Vertex[] };

function err(errs: CueError[], e: ErrInfo, path: readonly string[]): undefined {
  errs.push(...toCueErrors(e, e.path ?? path));
  return undefined;
}

/** The concrete value of `v` as a tree; errors are appended to `errs` (then the result is undefined). */
export function exportTree(v: Vertex, path: string[], errs: CueError[], depth = 0): Tree | undefined {
  evaluate(v);
  if (depth > 10_000)
    return err(errs, { code: "limit", message: "export nesting too deep", positions: [] }, path);
  if (v.err !== undefined) return err(errs, v.err.err, path);
  if (v.disj !== undefined) {
    const d = v.disj;
    const def = soleDefault(d);
    if (def !== undefined) return exportTree(def, path, errs, depth + 1);
    const text = d.values.map((x) => x.shortText()).join(" | ");
    return err(
      errs,
      { code: "incomplete", message: `incomplete value ${text}`, positions: [...posArray(v.declPos)] },
      path,
    );
  }
  if (v.isList) {
    const items: Tree[] = [];
    const src: Vertex[] = [];
    let ok = true;
    for (let i = 0; i < v.listLen; i++) {
      const a = v.arcs?.get(String(i));
      if (a === undefined) continue;
      path.push(String(i));
      const t = exportTree(a, path, errs, depth + 1);
      path.pop();
      if (t === undefined) ok = false;
      else {
        items.push(t);
      }
    }
    return ok ? { k: "list", items, src } : undefined;
  }
  if (v.structMark > 0) {
    const fields: [string, Tree][] = [];
    const src: Vertex[] = [];
    let ok = true;
    if (v.arcs !== undefined) {
      v.arcs.forEach((a, label) => {
        if (label.startsWith("_") || label.startsWith("#")) return;
        if (a.fieldType === OPTIONAL) return;
        path.push(displayLabel(label));
        if (a.fieldType === REQUIRED) {
          evaluate(a);
          ok = false;
          err(
            errs,
            {
              code: "incomplete",
              message: "field is required but not present",
              positions: [...posArray(a.declPos)],
            },
            path,
          );
          path.pop();
          return;
        }
        const t = exportTree(a, path, errs, depth + 1);
        path.pop();
        if (t === undefined) ok = false;
        else {
          fields.push([displayLabel(label), t]);
        }
      });
    }
    return ok ? { k: "struct", fields, src } : undefined;
  }
  return scalarTree(v.scalar, v, path, errs);
}

function scalarTree(raw: Value, v: Vertex, path: string[], errs: CueError[]): Tree | undefined {
  const s = resolveDefaultValue(raw);
  switch (s.t) {
    case "null":
      return { k: "null" };
    case "bool":
      return { k: "bool", v: s.v };
    case "int":
      return { k: "int", v: s.v };
    case "float":
      return { k: "float", v: s };
    case "string":
      return { k: "string", v: s.v };
    case "bytes":
      return { k: "bytes", v: s.v };
    case "bottom":
      return err(errs, s.err, path);
    case "vertex":
      return exportTree(s.v, path, errs);
    default:
      return err(
        errs,
        {
          code: "incomplete",
          message: `incomplete value ${formatValue(s)}`,
          positions: [...posArray(v.scalarPos ?? v.declPos)],
        },
        path,
      );
  }
}

/** Where exported fields and elements came from. */
export interface PositionIndex {
  /** The field's (or element's) declarations: user-written ones first. */
  of(container: object, key: string | number): readonly Position[];
  /** Where its value expressions start: user-written ones first. */
  values(container: object, key: string | number): readonly Position[];
}

export type CueData =
  | null
  | boolean
  | number
  | bigint
  | string
  | readonly CueData[]
  | { readonly [key: string]: CueData };

/** JSON text as `cue export` prints it (floats keep their decimal form, e.g. `1.0`). */
export function toJSONText(t: Tree, indent = 4): string {
  const out: string[] = [];
  const pads: string[] = [];
  const pad = (n: number): string => {
    if (indent <= 0) return "";
    let p = pads[n];
    if (p === undefined) {
      p = `\n${" ".repeat(n * indent)}`;
      pads[n] = p;
    }
    return p;
  };
  const sep = indent > 0 ? ": " : ":";
  const w = (x: Tree, lvl: number): void => {
    switch (x.k) {
      case "null":
        out.push("null");
        return;
      case "bool":
        out.push(x.v ? "true" : "false");
        return;
      case "int":
        out.push(String(x.v));
        return;
      case "float":
        out.push(floatJSON(x.v));
        return;
      case "string":
        out.push(JSON.stringify(x.v));
        return;
      case "bytes":
        out.push(JSON.stringify(Buffer.from(x.v).toString("base64")));
        return;
      case "list": {
        if (x.items.length === 0) {
          out.push("[]");
          return;
        }
        out.push("[");
        x.items.forEach((it, i) => {
          if (i > 0) out.push(",");
          out.push(pad(lvl + 1));
          w(it, lvl + 1);
        });
        out.push(pad(lvl), "]");
        return;
      }
      case "struct": {
        if (x.fields.length === 0) {
          out.push("{}");
          return;
        }
        out.push("{");
        x.fields.forEach(([k, it], i) => {
          if (i > 0) out.push(",");
          out.push(pad(lvl + 1), quoteKey(k), sep);
          w(it, lvl + 1);
        });
        out.push(pad(lvl), "}");
        return;
      }
      default: {
        const never: never = x;
        throw new Error(`unexpected tree ${String(never)}`);
      }
    }
  };
  w(t, 0);
  return out.join("");
}
