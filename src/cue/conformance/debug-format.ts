/**
 * cue's golden output formats, read into data: the debug printing of an evaluated value
 * (`(struct){ a: (int){ 1 } }`, `(#list)`, `(_|_){ // [eval] … }`, `|(*(int){ 1 }, …)`), error
 * listings (`path: message:` then `    ./file:line:col`), and the debug tree written back as CUE.
 */

import { splitPath } from "./attr-args.js";
import type { Plain } from "./plain.js";

/** A parsed debug-printer value. */
export type DebugNode =
  | { readonly t: "atom"; readonly value: Plain; readonly raw: string }
  | { readonly t: "error"; readonly code: string; readonly fields?: readonly DebugField[] }
  | { readonly t: "struct"; readonly fields: readonly DebugField[] }
  | { readonly t: "list"; readonly items: readonly DebugField[]; readonly open: boolean }
  | { readonly t: "other"; readonly text: string; readonly kind: string; readonly body: string };

export interface DebugField {
  readonly label: string;
  readonly mark: "" | "?" | "!";
  /** Written quoted (`"#a"` is a regular field, `#a` a definition). */
  readonly quoted: boolean;
  readonly value: DebugNode;
}

/** Parses cue's debug format; undefined if the text is not in that format. */
export function parseDebug(text: string): DebugNode | undefined {
  let i = 0;
  const ws = (): void => {
    while (i < text.length && /\s/.test(text[i] ?? "")) i++;
  };
  /** Skips to the `}` matching the `{` just consumed; returns the body. */
  const balanced = (): string => {
    const start = i;
    let depth = 1;
    while (i < text.length) {
      const c = text[i];
      if (c === '"' || c === "'") {
        const q = c;
        i++;
        while (i < text.length && text[i] !== q && text[i] !== "\n") i += text[i] === "\\" ? 2 : 1;
        i++;
        continue;
      }
      if (c === "/" && text[i + 1] === "/") {
        while (i < text.length && text[i] !== "\n") i++;
        continue;
      }
      if (c === "{") depth++;
      else if (c === "}") {
        depth--;
        if (depth === 0) {
          i++;
          return text.slice(start, i - 1);
        }
      }
      i++;
    }
    throw new Error("unbalanced");
  };
  const kindSpec = (): string => {
    // `(int)`, `((int|string))`, `(#struct)`, `(_|_)`.
    const start = i;
    let depth = 0;
    while (i < text.length) {
      const c = text[i];
      if (c === "(") depth++;
      else if (c === ")") {
        depth--;
        if (depth === 0) {
          i++;
          return text.slice(start + 1, i - 1);
        }
      }
      i++;
    }
    throw new Error("bad kind");
  };
  const value = (): DebugNode => {
    ws();
    if (text[i] !== "(") throw new Error("expected (");
    const kind = kindSpec();
    ws();
    if (text[i] !== "{") throw new Error("expected {");
    i++;
    if (kind === "struct" || kind === "#struct" || kind === "list" || kind === "#list") {
      const save = i;
      ws();
      // Empty `{ }` or a field block.
      if (text[i] === "}") {
        i++;
        return kind.endsWith("list")
          ? { t: "list", items: [], open: kind === "list" }
          : { t: "struct", fields: [] };
      }
      i = save;
      const fields: DebugField[] = [];
      for (;;) {
        ws();
        if (text[i] === "}") {
          i++;
          break;
        }
        if (text.startsWith("//", i)) {
          while (i < text.length && text[i] !== "\n") i++;
          continue;
        }
        fields.push(field());
      }
      if (kind.endsWith("list")) return { t: "list", items: fields, open: kind === "list" };
      return { t: "struct", fields };
    }
    const body = balanced().trim();
    if (kind === "_|_" && body.split("\n").some((l) => l.trim() !== "" && !l.trim().startsWith("//"))) {
      // An error value that still shows its fields (an error propagated from a child).
      const m = /\/\/ \[([a-z ]+)\]/.exec(body);
      const inner = parseDebug(`(struct){\n${body}\n}`);
      if (inner?.t !== "struct") return { t: "other", text: `(${kind}){ ${body} }`, kind, body };
      return { t: "error", code: m?.[1] ?? "eval", fields: inner.fields };
    }
    if (kind === "_|_") {
      const m = /\/\/ \[([a-z ]+)\]/.exec(body);
      return { t: "error", code: m?.[1] ?? "eval" };
    }
    const atom = atomOf(kind, body);
    return atom === undefined
      ? { t: "other", text: `(${kind}){ ${body} }`, kind, body }
      : { t: "atom", value: atom, raw: body };
  };
  const field = (): DebugField => {
    let label: string;
    const quoted = text[i] === '"';
    if (text[i] === '"') {
      const start = i;
      i++;
      while (i < text.length && text[i] !== '"') i += text[i] === "\\" ? 2 : 1;
      i++;
      label = JSON.parse(text.slice(start, i)) as string;
    } else {
      const start = i;
      while (i < text.length && !/[\s:?!]/.test(text[i] ?? "")) i++;
      label = text.slice(start, i);
      if (label.startsWith("let ") || label === "let") throw new Error("let in output");
    }
    let mark: "" | "?" | "!" = "";
    if (text[i] === "?" || text[i] === "!") {
      mark = text[i] as "?" | "!";
      i++;
    }
    if (text[i] !== ":") throw new Error(`expected : after ${label}`);
    i++;
    return { label, mark, quoted, value: value() };
  };
  try {
    const v = value();
    ws();
    return i >= text.length ? v : undefined;
  } catch {
    return undefined;
  }
}

function atomOf(kind: string, body: string): Plain | undefined {
  switch (kind) {
    case "null":
      return body === "null" ? { t: "null" } : undefined;
    case "bool":
      return body === "true" || body === "false" ? { t: "bool", v: body === "true" } : undefined;
    case "int":
      return /^-?[0-9]+$/.test(body) ? { t: "int", v: BigInt(body) } : undefined;
    case "float":
      return /^-?[0-9]+(\.[0-9]*)?([eE][+-]?[0-9]+)?$/.test(body)
        ? { t: "float", v: Number(body) }
        : undefined;
    case "number":
      return undefined;
    case "string":
      if (/^"(?:[^"\\]|\\.)*"$/.test(body)) {
        try {
          return { t: "string", v: JSON.parse(body) as string };
        } catch {
          return undefined;
        }
      }
      return undefined;
    default:
      return undefined;
  }
}

/** Parses an error listing: `path: message:` lines followed by indented positions. */
export function parseErrorListing(text: string): string[] | undefined {
  const paths: string[] = [];
  for (const line of text.split("\n")) {
    if (line.trim() === "") continue;
    if (/^\s/.test(line)) {
      // Only position lines may be indented; anything else is another format.
      if (!/^\s+\S*:\d+:\d+$/.test(line)) return undefined;
      continue;
    }
    if (line.startsWith("(") || line.startsWith("Errors:") || line.startsWith("Result:")) return undefined;
    const m = /^([^\s:]+(?:\.[^\s:]+)*|"[^"]*"(?:\.\S+)?): /.exec(line);
    if (m === null) {
      // A message without a path (`conflicting values...` at the root) still counts as an error.
      paths.push("");
      continue;
    }
    paths.push(splitPath(m[1] ?? "").join("\u0000"));
  }
  return paths.length > 0 ? paths : undefined;
}

/** The debug tree as a CUE expression, or undefined when it cannot be written faithfully. */
export function toCue(n: DebugNode): string | undefined {
  switch (n.t) {
    case "atom":
      return n.raw;
    case "error":
      // An error that still shows fields is not the plain `_|_` CUE could state.
      return n.fields === undefined ? "_|_" : undefined;
    case "other":
      return scalarCue(n.body);
    case "list": {
      if (n.open) return undefined;
      const items: string[] = [];
      for (const f of n.items) {
        const x = toCue(f.value);
        if (x === undefined) return undefined;
        items.push(x);
      }
      return `[${items.join(", ")}]`;
    }
    case "struct": {
      const fields: string[] = [];
      for (const f of n.fields) {
        const x = toCue(f.value);
        if (x === undefined) return undefined;
        const label =
          !f.quoted && /^[#_]?#?[A-Za-z_$][A-Za-z0-9_$]*$/.test(f.label) ? f.label : JSON.stringify(f.label);
        fields.push(`${label}${f.mark}: ${x}`);
      }
      return `{${fields.join(", ")}}`;
    }
    default: {
      const never: never = n;
      return String(never);
    }
  }
}

/** A debug scalar body (`int`, `&(>=1, <=5)`, `|(*(int){ 1 }, (int){ 2 })`) as CUE. */
function scalarCue(body: string): string | undefined {
  if (body.startsWith("&(") && body.endsWith(")")) {
    const parts = splitTop(body.slice(2, -1)).map(scalarCue);
    if (parts.some((p) => p === undefined)) return undefined;
    return parts.map((p) => `(${p})`).join(" & ");
  }
  if (body.startsWith("|(") && body.endsWith(")")) {
    const parts: string[] = [];
    for (const el of splitTop(body.slice(2, -1))) {
      const def = el.startsWith("*");
      const node = parseDebug(def ? el.slice(1) : el);
      const x = node === undefined ? undefined : toCue(node);
      if (x === undefined) return undefined;
      parts.push(`${def ? "*" : ""}(${x})`);
    }
    return parts.join(" | ");
  }
  if (body.includes("\n") || body.includes("//")) return undefined;
  return body;
}

/** Splits at top-level commas (outside brackets and strings). */
function splitTop(s: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (c === '"' || c === "'") {
      const q = c;
      i++;
      while (i < s.length && s[i] !== q) i += s[i] === "\\" ? 2 : 1;
      continue;
    }
    if (c === "(" || c === "[" || c === "{") depth++;
    else if (c === ")" || c === "]" || c === "}") depth--;
    else if (c === "," && depth === 0) {
      out.push(s.slice(start, i).trim());
      start = i + 1;
    }
  }
  out.push(s.slice(start).trim());
  return out.filter((x) => x !== "");
}
