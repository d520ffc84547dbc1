/**
 * `encoding/yaml`: Marshal and MarshalStream of concrete values, in the block style `cue` emits
 * (two-space indentation, `- ` list items, quoted strings only where plain YAML would change their
 * meaning, `|`/`|-` blocks for multi-line strings). Unmarshal and Validate are not provided.
 */

import { concrete, listArcs } from "../eval/builtins/args.js";
import { fn, registerPackage } from "../eval/builtins/registry.js";
import type { Tree } from "../eval/export.js";
import { formatFloat } from "../eval/values.js";
import { str, treeOf } from "./helpers.js";

/** Strings YAML 1.1/1.2 would read as something else, or that need quoting to parse at all. */
function needsQuotes(s: string): boolean {
  if (s === "") return true;
  if (/^(?:true|false|yes|no|on|off|y|n|null|~)$/i.test(s)) return true;
  if (/^[-+]?(?:\d[\d_]*(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?$/.test(s)) return true;
  if (/^[-+]?(?:0x[0-9a-fA-F_]+|0o?[0-7_]+|0b[01_]+)$/.test(s)) return true;
  if (/^[-+]?\.(?:inf|nan)$/i.test(s)) return true;
  if (/^[-?:,[\]{}#&*!|>'"%@`\s]/.test(s) || /\s$/.test(s)) return true;
  if (s.includes(": ") || s.includes(" #") || s.endsWith(":")) return true;
  return /[\u0000-\u0008\u000b-\u001f\u007f]/.test(s);
}

function scalar(t: Tree): string | undefined {
  switch (t.k) {
    case "null":
      return "null";
    case "bool":
      return String(t.v);
    case "int":
      return t.v.toString();
    case "float":
      return formatFloat(t.v);
    case "string":
      return needsQuotes(t.v) ? JSON.stringify(t.v) : t.v;
    case "bytes":
      return `!!binary ${Buffer.from(t.v).toString("base64")}`;
    default:
      return undefined;
  }
}

/** Renders `t` as the value after `key:` or `- ` at indentation `ind`. */
function emit(t: Tree, ind: string, out: string[], prefix: string): void {
  if (t.k === "string" && t.v.includes("\n") && !/[ \t]\n|[ \t]$/.test(t.v) && !t.v.startsWith(" ")) {
    const body = t.v.endsWith("\n") ? t.v.slice(0, -1) : t.v;
    out.push(`${prefix}${t.v.endsWith("\n") ? "|" : "|-"}`);
    for (const line of body.split("\n")) out.push(line === "" ? "" : `${ind}  ${line}`);
    return;
  }
  const s = scalar(t);
  if (s !== undefined) {
    out.push(`${prefix}${s}`);
    return;
  }
  if (t.k === "list") {
    if (t.items.length === 0) {
      out.push(`${prefix}[]`);
      return;
    }
    if (prefix !== "") out.push(prefix.trimEnd());
    for (const item of t.items) item_(item, ind, out);
    return;
  }
  if (t.k === "struct") {
    if (t.fields.length === 0) {
      out.push(`${prefix}{}`);
      return;
    }
    if (prefix !== "") out.push(prefix.trimEnd());
    for (const [k, v] of t.fields) field(k, v, ind, out);
  }
}

function key(k: string): string {
  return needsQuotes(k) ? JSON.stringify(k) : k;
}

function field(k: string, v: Tree, ind: string, out: string[]): void {
  const nested = (v.k === "struct" && v.fields.length > 0) || (v.k === "list" && v.items.length > 0);
  emit(v, nested ? `${ind}  ` : ind, out, `${ind}${key(k)}: `);
}

function item_(v: Tree, ind: string, out: string[]): void {
  if (v.k === "struct" && v.fields.length > 0) {
    // The first field shares the `- ` line.
    const sub: string[] = [];
    for (const [k, x] of v.fields) field(k, x, `${ind}  `, sub);
    const first = sub[0] ?? "";
    out.push(`${ind}- ${first.slice(ind.length + 2)}`, ...sub.slice(1));
    return;
  }
  if (v.k === "list" && v.items.length > 0) {
    const sub: string[] = [];
    for (const x of v.items) item_(x, `${ind}  `, sub);
    const first = sub[0] ?? "";
    out.push(`${ind}- ${first.slice(ind.length + 2)}`, ...sub.slice(1));
    return;
  }
  emit(v, `${ind}  `, out, `${ind}- `);
}

/** The YAML document for a value, ending in a newline. */
export function toYAML(t: Tree): string {
  const out: string[] = [];
  emit(t, "", out, "");
  return `${out.join("\n")}\n`;
}

registerPackage("encoding/yaml", {
  Marshal: fn(1, (a) =>
    str(toYAML(treeOf(concrete(a, 0, "encoding/yaml.Marshal"), "encoding/yaml.Marshal"))),
  ),
  MarshalStream: fn(1, (a) => {
    // cue takes any value here: a non-concrete argument is incomplete whatever its kind.
    concrete(a, 0, "encoding/yaml.MarshalStream");
    const items = listArcs(a, 0, "encoding/yaml.MarshalStream");
    const docs = items.map((v) => toYAML(treeOf({ t: "vertex", v }, "encoding/yaml.MarshalStream")));
    return str(docs.join("---\n"));
  }),
});
