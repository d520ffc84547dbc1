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
import type { Engine, EngineError, EngineValue } from "./engine.js";
import { diffPlain, type Plain, plainFromJSON } from "./plain.js";

/** A parsed debug-printer value. */
export type DebugNode =
  | { readonly t: "atom"; readonly value: Plain; readonly raw: string }
  | { readonly t: "error"; readonly code: string }
  | { readonly t: "struct"; readonly fields: readonly DebugField[] }
  | { readonly t: "list"; readonly items: readonly DebugField[]; readonly open: boolean }
  | { readonly t: "other"; readonly text: string; readonly kind: string; readonly body: string };

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
      // An error value that still shows fields (an error propagated from a child): not modelled.
      return { t: "other", text: `(${kind}){ ${body} }`, kind, body };
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

/** The outcome of comparing a golden section. */
export type GoldenOutcome = { status: "passed" } | { status: "failed" | "unsupported"; reason: string };

/**
 * Compares a debug tree with the evaluated value. Trees with non-concrete parts are compared with
 * the engine's CUE-level equality (`inspect.equal`) against the tree rewritten as CUE, when the
 * engine offers it and the tree can be written as CUE (closed lists only); error leaves are then
 * also checked for their code.
 */
export function compareDebug(engine: Engine, root: EngineValue, node: DebugNode): GoldenOutcome {
  const why = uncheckable(node, []);
  if (why === undefined) return compareNode(root, [], node);
  const equal = engine.inspect.equal;
  if (equal === undefined) return { status: "unsupported", reason: why };
  const text = toCue(node);
  if (text === undefined) return { status: "unsupported", reason: `${why} (cannot be written as CUE)` };
  const compiled = engine.compile([{ name: "golden.cue", text: `__golden: ${text}\n` }]);
  const want = compiled.lookup(["__golden"]);
  if (want === undefined || compiled.errors.some((e) => e.code === "syntax")) {
    return {
      status: "unsupported",
      reason: `golden rewritten as CUE does not compile: ${compiled.errors[0]?.message}`,
    };
  }
  if (!equal(root, want)) {
    let got = "";
    try {
      got =
        engine.describe === undefined
          ? ""
          : `; got ${engine.describe(root).replace(/\s+/g, " ").slice(0, 200)}`;
    } catch {
      got = "";
    }
    return { status: "failed", reason: `not equal to ${text.replace(/\s+/g, " ").slice(0, 200)}${got}` };
  }
  return checkErrorLeaves(root, [], node);
}

function checkErrorLeaves(root: EngineValue, path: readonly string[], n: DebugNode): GoldenOutcome {
  if (n.t === "error") return compareNode(root, path, n);
  const fields = n.t === "struct" ? n.fields : n.t === "list" ? n.items : [];
  for (const f of fields) {
    const r = checkErrorLeaves(root, [...path, f.label], f.value);
    if (r.status !== "passed") return r;
  }
  return { status: "passed" };
}

/** The debug tree as a CUE expression, or undefined when it cannot be written faithfully. */
export function toCue(n: DebugNode): string | undefined {
  switch (n.t) {
    case "atom":
      return n.raw;
    case "error":
      return "_|_";
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
        const label = /^[#_]?#?[A-Za-z_$][A-Za-z0-9_$]*$/.test(f.label) ? f.label : JSON.stringify(f.label);
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
