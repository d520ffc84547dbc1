/**
 * `@test(err, …)`: an error must exist at the annotated field (or below it with `any`, or with a
 * reported path ending in `path=`), with one of the `code=` alternatives, a message matching
 * `contains=` (cue's `%s`/`%v` placeholders match anything) and containing every `args=` value;
 * with `strictPos`, also exactly the `pos=` positions.
 */

import { splitAttrArgs } from "./attr-args.js";
import {
  type CaseResult,
  type CheckOptions,
  type Directive,
  flag,
  isPrefix,
  option,
  pathOption,
  stringArg,
  unsupportedNear,
} from "./directive.js";
import type { EngineError, EngineValue } from "./engine.js";

function normCode(c: string): string {
  return c === "structural cycle" ? "structural_cycle" : c;
}

/** Turns cue's message format (`conflicting values %s and %s`) into a pattern. */
function containsPattern(s: string): RegExp {
  const parts = s.split(/%[-+# 0-9.]*[a-zA-Z]/);
  return new RegExp(parts.map((p) => p.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")).join("[\\s\\S]*?"));
}

export function checkErr(root: EngineValue, d: Directive, check: CheckOptions): Omit<CaseResult, "name"> {
  const target = [...d.path, ...pathOption(d, "at")];
  const unsup = unsupportedNear(root.errors, target);
  if (unsup !== undefined) return { status: "unsupported", reason: `engine: ${unsup.message}` };
  const all: EngineError[] = [...root.errors];
  const missing = optionalLookup(d);
  if (missing !== undefined) all.push(missing);
  const v = root.lookup(target);
  if (v !== undefined) {
    all.push(...v.errors);
    const x = v.export();
    if (!x.ok) all.push(...x.errors);
  }
  const any = flag(d, "any");
  const errPath = option(d, "path") === undefined ? undefined : pathOption(d, "path");
  const codes = option(d, "code")
    ?.text.split("|")
    .filter((c) => c !== "");
  const contains = option(d, "contains");
  const pattern = contains === undefined ? undefined : containsPattern(stringArg(contains.text));
  const argsOpt = option(d, "args");
  const args =
    argsOpt === undefined
      ? []
      : splitAttrArgs(argsOpt.text.replace(/^\[/, " ").replace(/\]$/, " "), 0, argsOpt.text.length).map((a) =>
          stringArg(a.text),
        );
  const located = all.filter((e) => {
    if (errPath !== undefined) return underTargetScope(errPath, e.path, target);
    if (any) return isPrefix(target, e.path);
    // The harness's failed lookup of the annotated optional field is what it sees at that field.
    if (e === missing) return true;
    return e.path.length === target.length && isPrefix(target, e.path);
  });
  if (located.length === 0) {
    const seen = all.slice(0, 3).map((e) => `${e.path.join(".")}: [${e.code}] ${e.message}`);
    return {
      status: "failed",
      reason: `no error at ${target.join(".") || "<root>"}${seen.length ? `; errors: ${seen.join(" | ")}` : ""}`,
    };
  }
  const matching = located.filter(
    (e) =>
      (codes === undefined || codes.length === 0 || codes.includes(normCode(e.code))) &&
      (pattern === undefined ||
        pattern.test(e.message) ||
        pattern.test(`${cuePath(e.path)}: ${e.message}`)) &&
      args.every((a) => e.message.includes(a)),
  );
  if (matching.length > 0) {
    const posOpt = option(d, "pos");
    if (!check.strictPos || posOpt === undefined) return { status: "passed" };
    const want = expectedPositions(d, posOpt.text);
    if (want === undefined) return { status: "unsupported", reason: `cannot read pos=${posOpt.text}` };
    const key = (p: { file: string; line: number; column: number }): string =>
      `${p.file.replace(/^.*\//, "")}:${p.line}:${p.column}`;
    const wantSet = [...new Set(want.map(key))].sort().join(" ");
    for (const e of matching) {
      if ([...new Set(e.positions.map(key))].sort().join(" ") === wantSet) return { status: "passed" };
    }
    const got = [...new Set((matching[0] as EngineError).positions.map(key))].sort().join(" ");
    return { status: "failed", reason: `positions: want [${wantSet}], got [${got}]` };
  }
  const e0 = located[0] as EngineError;
  return {
    status: "failed",
    reason: `error mismatch at ${target.join(".")}: want code=${codes?.join("|") ?? "*"}${contains ? ` contains=${contains.text}` : ""}${args.length ? ` args=${args.join(",")}` : ""}; got [${e0.code}] ${e0.message}`,
  };
}

/**
 * cue's harness looks the annotated field up with `LookupPath`, which does not find an optional
 * field: an `@test(err)` on `a?: …` sees `field not found: a`, an incomplete error at the parent's
 * path (as the corpus's expectations on optional fields say).
 */
function optionalLookup(d: Directive): EngineError | undefined {
  const r = d.declRange;
  const label = d.path[d.path.length - 1];
  if (r === undefined || label === undefined) return undefined;
  const text = d.source.slice(r.start, r.end);
  const colon = text.indexOf(":");
  if (colon < 0 || !text.slice(0, colon).trimEnd().endsWith("?")) return undefined;
  return {
    path: d.path.slice(0, -1),
    code: "incomplete",
    message: `field not found: ${label}`,
    positions: [],
  };
}

/**
 * Whether an error at `at` is the one `path=` names: `path` is relative to the annotated field or to
 * one of the structs around it (cue's inline tests write it either way, up to a full path), so `at`
 * must be such a struct's path followed by `path`. An error with the same tail elsewhere in the file
 * is another field's.
 */
function underTargetScope(
  path: readonly string[],
  at: readonly string[],
  target: readonly string[],
): boolean {
  if (!isSuffix(path, at)) return false;
  const base = at.length - path.length;
  return base <= target.length && isPrefix(at.slice(0, base), target);
}

function isSuffix(s: readonly string[], of: readonly string[]): boolean {
  return s.length <= of.length && s.every((x, i) => x === of[of.length - s.length + i]);
}

/**
 * `pos=[0:5, -1:3, other.cue:4:2]`: deltas are relative to the line of the annotated field, or, for
 * a declaration attribute, of the struct it sits in (as cue's inline tests count them).
 */
function expectedPositions(
  d: Directive,
  text: string,
): { file: string; line: number; column: number }[] | undefined {
  const inner = text.trim().replace(/^\[/, "").replace(/\]$/, "");
  const offset = d.baseOffset ?? d.args[0]?.offset ?? 0;
  let attrLine = 1;
  for (let i = 0; i < offset; i++) if (d.source.charCodeAt(i) === 10) attrLine++;
  const out: { file: string; line: number; column: number }[] = [];
  for (const part of inner.split(/[\s,]+/).filter((x) => x !== "")) {
    const m = /^(?:(.+):)?(-?\d+):(\d+)$/.exec(part);
    if (m === null) return undefined;
    const file = m[1];
    const line = Number(m[2]);
    out.push(
      file === undefined
        ? { file: d.file, line: attrLine + line, column: Number(m[3]) }
        : { file, line, column: Number(m[3]) },
    );
  }
  return out;
}

/** A path as cue prints it in error messages: `a.b."not-an-ident".#D.0`. */
function cuePath(path: readonly string[]): string {
  return path
    .map((l) => (/^(?:[#_]{0,2}[A-Za-z$][A-Za-z0-9_$]*|\d+)$/.test(l) ? l : JSON.stringify(l)))
    .join(".");
}
