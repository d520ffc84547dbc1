/**
 * Golden sections of archives without inline tests. Two shapes occur:
 *  - cue's debug printing of the evaluated value (`(struct){ a: (int){ 1 } }`), and
 *  - an error listing (`path: message:` followed by `    ./file:line:col` lines).
 *
 * A debug tree is checkable when its leaves are concrete atoms or errors: regular fields are compared
 * with the exported JSON, definitions and hidden fields by lookup, errors by their code at the path.
 * Optional/required fields, non-concrete values and disjunctions cannot be checked through the public
 * API: the case is then unsupported. An error listing is checked by its set of error paths (messages
 * are not compared). Closedness markers (`#struct`) are not checked.
 */

import { splitPath } from "./attr-args.js";
import type { EngineError, EngineValue } from "./engine.js";
import { diffPlain, type Plain, plainFromJSON } from "./plain.js";

/** A parsed debug-printer value. */
export type DebugNode =
  | { readonly t: "atom"; readonly value: Plain }
  | { readonly t: "error"; readonly code: string }
  | { readonly t: "struct"; readonly fields: readonly DebugField[] }
  | { readonly t: "list"; readonly items: readonly DebugField[] }
  | { readonly t: "other"; readonly text: string };

export interface DebugField {
  readonly label: string;
  readonly mark: "" | "?" | "!";
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
        return kind.endsWith("list") ? { t: "list", items: [] } : { t: "struct", fields: [] };
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
      if (kind.endsWith("list")) return { t: "list", items: fields };
      return { t: "struct", fields };
    }
    const body = balanced().trim();
    if (kind === "_|_") {
      const m = /\/\/ \[([a-z ]+)\]/.exec(body);
      return { t: "error", code: m?.[1] ?? "eval" };
    }
    const atom = atomOf(kind, body);
    return atom === undefined ? { t: "other", text: `(${kind}){ ${body} }` } : { t: "atom", value: atom };
  };
  const field = (): DebugField => {
    let label: string;
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
    return { label, mark, value: value() };
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
    if (line.trim() === "" || /^\s/.test(line)) continue;
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

/** The outcome of comparing a golden section. */
export type GoldenOutcome = { status: "passed" } | { status: "failed" | "unsupported"; reason: string };

/** Compares a debug tree with the evaluated value. */
export function compareDebug(root: EngineValue, node: DebugNode): GoldenOutcome {
  const why = uncheckable(node, []);
  if (why !== undefined) return { status: "unsupported", reason: why };
  return compareNode(root, [], node);
}

function uncheckable(n: DebugNode, path: readonly string[]): string | undefined {
  switch (n.t) {
    case "atom":
    case "error":
      return undefined;
    case "other":
      return `${path.join(".") || "<root>"}: non-concrete ${n.text.slice(0, 60)}`;
    case "struct":
    case "list": {
      const fields = n.t === "struct" ? n.fields : n.items;
      for (const f of fields) {
        if (f.mark !== "")
          return `${[...path, f.label].join(".")}: ${f.mark === "?" ? "optional" : "required"} field`;
        const w = uncheckable(f.value, [...path, f.label]);
        if (w !== undefined) return w;
      }
      return undefined;
    }
    default: {
      const never: never = n;
      return String(never);
    }
  }
}

function isRegular(label: string): boolean {
  return !label.startsWith("#") && !label.startsWith("_");
}

function containsError(n: DebugNode): boolean {
  if (n.t === "error") return true;
  if (n.t === "struct") return n.fields.some((f) => containsError(f.value));
  if (n.t === "list") return n.items.some((f) => containsError(f.value));
  return false;
}

function compareNode(root: EngineValue, path: readonly string[], n: DebugNode): GoldenOutcome {
  const at = path.join(".") || "<root>";
  if (n.t === "error") {
    const v = root.lookup(path);
    const errs: EngineError[] = root.errors.filter((e) => e.path.join(".") === path.join("."));
    if (v !== undefined) {
      errs.push(...v.errors);
      const x = v.export();
      if (!x.ok) errs.push(...x.errors);
    }
    if (errs.length === 0) return { status: "failed", reason: `${at}: expected an error [${n.code}]` };
    const code = n.code === "structural cycle" ? "structural cycle" : n.code;
    if (!errs.some((e) => e.code === code)) {
      return {
        status: "failed",
        reason: `${at}: expected error code ${n.code}, got ${errs.map((e) => e.code).join(",")}`,
      };
    }
    return { status: "passed" };
  }
  if (!containsError(n)) {
    const v = root.lookup(path);
    if (v === undefined) return { status: "failed", reason: `${at}: not found` };
    const j = v.toJSON(0);
    if (!j.ok) {
      const e = j.errors[0];
      return { status: "failed", reason: `${at}: export failed: ${e ? `[${e.code}] ${e.message}` : "?"}` };
    }
    const want = toPlain(n);
    const d = diffPlain(want, plainFromJSON(j.text), path);
    if (d !== undefined) return { status: "failed", reason: d };
    // Hidden fields and definitions are not exported: check them by lookup.
    return compareHidden(root, path, n);
  }
  // Mixed: compare field by field.
  const fields = n.t === "struct" ? n.fields : n.t === "list" ? n.items : [];
  for (const f of fields) {
    const r = compareNode(root, [...path, f.label], f.value);
    if (r.status !== "passed") return r;
  }
  return { status: "passed" };
}

function compareHidden(root: EngineValue, path: readonly string[], n: DebugNode): GoldenOutcome {
  const fields = n.t === "struct" ? n.fields : n.t === "list" ? n.items : [];
  for (const f of fields) {
    const r = isRegular(f.label)
      ? compareHidden(root, [...path, f.label], f.value)
      : compareNode(root, [...path, f.label], f.value);
    if (r.status !== "passed") return r;
  }
  return { status: "passed" };
}

/** Regular content of a debug node as plain data (no errors or non-concrete leaves inside). */
function toPlain(n: DebugNode): Plain {
  switch (n.t) {
    case "atom":
      return n.value;
    case "list":
      return { t: "list", items: n.items.map((f) => toPlain(f.value)) };
    case "struct": {
      const fields = new Map<string, Plain>();
      for (const f of n.fields) if (isRegular(f.label)) fields.set(f.label, toPlain(f.value));
      return { t: "struct", fields, extra: new Map() };
    }
    default:
      return { t: "null" };
  }
}

/** Compares an error listing: the set of error paths must match. */
export function compareErrorListing(root: EngineValue, want: readonly string[]): GoldenOutcome {
  const got = new Set<string>();
  for (const e of root.errors) got.add(e.path.join("\u0000"));
  const x = root.export();
  if (!x.ok) for (const e of x.errors) got.add(e.path.join("\u0000"));
  const w = new Set(want);
  const missing = [...w].filter((p) => !got.has(p));
  const extra = [...got].filter((p) => !w.has(p));
  if (missing.length === 0 && extra.length === 0) return { status: "passed" };
  return {
    status: "failed",
    reason: `error paths differ: missing [${missing.map(show).join(", ")}] unexpected [${extra.map(show).join(", ")}]`,
  };
}

function show(p: string): string {
  return p.split("\u0000").join(".") || "<root>";
}
