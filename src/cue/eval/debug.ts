/**
 * A CUE-like rendering of an evaluated vertex (non-concrete values included), for debugging and
 * the command-line tool.
 */

import { evaluate } from "./evaluate.js";
import { formatValue } from "./values.js";
import { displayLabel, OPTIONAL, REQUIRED, type Vertex } from "./vertex.js";

/** Renders `v` as CUE text, including definitions, hidden and optional fields. */
export function debugString(v: Vertex, indent = ""): string {
  evaluate(v);
  if (v.err !== undefined) return `_|_ // ${v.err.err.code}: ${v.err.err.message}`;
  if (v.disj !== undefined) {
    const d = v.disj;
    return d.values
      .map((x, i) => (d.hasDefault && d.defaults[i] ? "*" : "") + debugString(x, indent))
      .join(" | ");
  }
  const inner = `${indent}  `;
  if (v.isList) {
    const items: string[] = [];
    for (let i = 0; i < v.listLen; i++) {
      const a = v.arcs?.get(String(i));
      items.push(a === undefined ? "_" : debugString(a, inner));
    }
    if (v.listOpen) items.push("...");
    return `[${items.join(", ")}]`;
  }
  if (v.structMark === 0 && (v.arcs === undefined || v.scalar.t === "top")) return formatValue(v.scalar);
  const lines: string[] = [];
  // A scalar embedded beside definitions or hidden fields (`{"s", #a: "s"}`) is written first.
  if (v.structMark === 0) lines.push(`${inner}${formatValue(v.scalar)}`);
  if (v.arcs !== undefined) {
    for (const [k, a] of v.arcs) {
      const mark = a.fieldType === OPTIONAL ? "?" : a.fieldType === REQUIRED ? "!" : "";
      lines.push(`${inner}${displayLabel(k)}${mark}: ${debugString(a, inner)}`);
    }
  }
  if (lines.length === 0) return "{}";
  return `{\n${lines.join("\n")}\n${indent}}`;
}
