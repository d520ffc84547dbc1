/**
 * Golden sections of archives without inline tests: cue's debug printing of the evaluated value, or
 * an error listing (formats read in `debug-format.ts`).
 *
 * A concrete debug tree is compared with the exported JSON (definitions and hidden fields by
 * lookup, error leaves by their code at the path) and, when the engine offers `inspect.equal`, with
 * CUE equality against the tree written as CUE; a tree with non-concrete parts needs that equality
 * (else it is unsupported). An error listing is checked by its set of error paths (messages are not
 * compared). Closedness markers (`#struct`) are not checked.
 */

import { type DebugField, type DebugNode, toCue } from "./debug-format.js";
import type { Engine, EngineError, EngineValue } from "./engine.js";
import { diffPlain, type Plain, plainFromJSON } from "./plain.js";

export { type DebugNode, parseDebug, parseErrorListing, toCue } from "./debug-format.js";

/** The outcome of comparing a golden section. */
export type GoldenOutcome =
  | { status: "passed" }
  | {
      status: "failed" | "unsupported";
      reason: string;
      /** The path the failure is about (for telling a silent wrong answer; the root when unknown). */
      at?: readonly string[];
    };

/**
 * Compares a debug tree with the evaluated value. Trees with non-concrete parts are compared with
 * the engine's CUE-level equality (`inspect.equal`) against the tree rewritten as CUE, when the
 * engine offers it and the tree can be written as CUE (closed lists only); error leaves are then
 * also checked for their code.
 */
export function compareDebug(engine: Engine, root: EngineValue, node: DebugNode): GoldenOutcome {
  const why = uncheckable(node, []);
  const equal = engine.inspect.equal;
  if (why === undefined) {
    const r = compareNode(root, [], node);
    // Export cannot see extra definitions or hidden fields; CUE equality can, when available.
    if (r.status !== "passed" || equal === undefined || containsError(node)) return r;
    const text = toCue(node);
    const want =
      text === undefined ? undefined : engine.compile([{ name: "golden.cue", text: `__golden: ${text}\n` }]);
    const w = want?.lookup(["__golden"]);
    if (want !== undefined && want.errors.length === 0 && w !== undefined && !equal(root, w)) {
      return {
        status: "failed",
        reason: `exports as expected but not equal to ${(text ?? "").slice(0, 200)}`,
        at: [],
      };
    }
    return r;
  }
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
    return {
      status: "failed",
      reason: `not equal to ${text.replace(/\s+/g, " ").slice(0, 200)}${got}`,
      at: [],
    };
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

function uncheckable(n: DebugNode, path: readonly string[]): string | undefined {
  switch (n.t) {
    case "atom":
      return undefined;
    case "error":
      for (const f of n.fields ?? []) {
        const w = uncheckable(f.value, [...path, f.label]);
        if (w !== undefined) return w;
      }
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

function isRegular(f: DebugField): boolean {
  if (f.quoted) return true;
  const label = f.label;
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
    if (errs.length === 0)
      return { status: "failed", reason: `${at}: expected an error [${n.code}]`, at: path };
    const code = n.code === "structural cycle" ? "structural cycle" : n.code;
    if (!errs.some((e) => e.code === code)) {
      return {
        status: "failed",
        reason: `${at}: expected error code ${n.code}, got ${errs.map((e) => e.code).join(",")}`,
      };
    }
    // An error propagated from a child still shows the fields: check them too.
    for (const f of n.fields ?? []) {
      const r = compareNode(root, [...path, f.label], f.value);
      if (r.status !== "passed") return r;
    }
    return { status: "passed" };
  }
  if (!containsError(n)) {
    const v = root.lookup(path);
    if (v === undefined) return { status: "failed", reason: `${at}: not found`, at: path };
    const j = v.toJSON(0);
    if (!j.ok) {
      const e = j.errors[0];
      return { status: "failed", reason: `${at}: export failed: ${e ? `[${e.code}] ${e.message}` : "?"}` };
    }
    const want = toPlain(n);
    const d = diffPlain(want, plainFromJSON(j.text), path);
    if (d !== undefined) return { status: "failed", reason: d, at: path };
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
    const r = isRegular(f)
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
      for (const f of n.fields) if (isRegular(f)) fields.set(f.label, toPlain(f.value));
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
  const at = missing[0] === undefined ? undefined : missing[0] === "" ? [] : missing[0].split("\u0000");
  if (missing.length === 0 && extra.length === 0) return { status: "passed" };
  const parts = [
    missing.length > 0 ? `missing errors at [${missing.map(show).join(", ")}]` : "",
    extra.length > 0 ? `unexpected errors at [${extra.map(show).join(", ")}]` : "",
  ].filter((x) => x !== "");
  return {
    status: "failed",
    reason: `error paths differ: ${parts.join("; ")}`,
    ...(at === undefined ? {} : { at }),
  };
}

function show(p: string): string {
  return p.split("\u0000").join(".") || "<root>";
}
