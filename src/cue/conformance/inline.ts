/**
 * Checks inline `@test(...)` assertions (cue's `internal/cuetxtar/inline.go` format) against the
 * evaluated value through the public API: `eq` (check-eq.ts), `err` (check-err.ts), `permute`
 * (permute.ts), and `kind`, `closed`, `allows` here. `:todo` and informational directives are not
 * assertions; a `:v3` form overrides the unversioned one; anything else counts as unsupported, as
 * does any case near an engine `unsupported` error.
 */

import { checkEq } from "./check-eq.js";
import { checkErr } from "./check-err.js";
import { type CaseResult, type CheckOptions, type Directive, pathOption, stringArg } from "./directive.js";
import type { AllowsSelector, Engine, EngineOptions, EngineValue } from "./engine.js";
import { checkPermute } from "./permute.js";
import { plainFromJSON } from "./plain.js";
import { engineErrsAt } from "./silent.js";

export {
  type CaseResult,
  type CheckOptions,
  collectDirectives,
  type Directive,
  hasInlineTests,
  type Range,
} from "./directive.js";

/** Directives that document rather than assert. */
const informational = new Set(["todo", "desc", "debug", "ignore", "p", "skip", "shareID"]);

/**
 * The directives that are assertions, each with its case name: `:v3` forms override unversioned
 * ones, other versions and informational directives are dropped, and a field-form `permute` group
 * is one case.
 */
export function assertions(
  directives: readonly Directive[],
  prefix: string,
): { d: Directive; name: string }[] {
  const v3 = new Set(
    directives.filter((d) => d.version === "v3").map((d) => `${d.path.join(".")}|${d.name}`),
  );
  const skipped = new Set(
    directives.filter((d) => d.name === "skip" && (d.version ?? "v3") === "v3").map((d) => d.path.join(".")),
  );
  const counters = new Map<string, number>();
  const seenGroups = new Set<string>();
  const out: { d: Directive; name: string }[] = [];
  for (const d of directives) {
    if (d.version !== undefined && d.version !== "v3") continue;
    if (d.version === undefined && v3.has(`${d.path.join(".")}|${d.name}`)) continue;
    if (informational.has(d.name) || skipped.has(d.path.join("."))) continue;
    // `@test(eq)` without a value asserts nothing.
    if (d.name === "eq" && !d.args.some((a, i) => i > 0 && a.key === undefined && a.text !== "incorrect")) {
      continue;
    }
    if (d.name === "permute" && d.siblings === undefined) {
      const key = `${d.file}|${d.structPath.join(".")}`;
      if (seenGroups.has(key)) continue;
      seenGroups.add(key);
    }
    const base = `${prefix}${d.path.length === 0 ? "<root>" : d.path.join(".")} ${d.name}`;
    const n = (counters.get(base) ?? 0) + 1;
    counters.set(base, n);
    out.push({ d, name: n === 1 ? base : `${base}#${n}` });
  }
  return out;
}

/** Checks the directives of one archive against its evaluated root value. */
export function checkDirectives(
  engine: Engine,
  root: EngineValue,
  directives: readonly Directive[],
  prefix: string,
  files: readonly { name: string; text: string }[] = [],
  options: EngineOptions = {},
  check: CheckOptions = {},
): CaseResult[] {
  const results: CaseResult[] = [];
  // Structs whose `@test(eq)` passed, and the permute results judged against them (after the loop).
  const eqPassed = new Set<string>();
  const permuteAt: { i: number; key: string }[] = [];
  // Field-form `@test(permute)` marks several fields of one struct: one case per struct.
  const permuteGroups = new Map<string, Directive[]>();
  for (const d of directives) {
    if (d.name !== "permute" || d.version !== undefined || d.siblings !== undefined) continue;
    const key = `${d.file}|${d.structPath.join(".")}`;
    permuteGroups.set(key, [...(permuteGroups.get(key) ?? []), d]);
  }
  for (const { d, name } of assertions(directives, prefix)) {
    let r: Omit<CaseResult, "name">;
    try {
      if (d.unlocatable !== undefined) r = { status: "unsupported", reason: d.unlocatable };
      else if (d.name === "permute") {
        const key = `${d.file}|${d.structPath.join(".")}`;
        const group = d.siblings === undefined ? (permuteGroups.get(key) ?? [d]) : [d];
        const ranges = d.siblings ?? group.flatMap((g) => (g.declRange === undefined ? [] : [g.declRange]));
        const countArg = d.args.find((a, i) => i > 0 && a.key === "count")?.text;
        const count = countArg === undefined || countArg === "" ? undefined : Number(countArg);
        r = checkPermute(engine, files, options, d.file, d.structPath, ranges, count);
      } else r = checkOne(engine, root, d, check);
    } catch (e) {
      r = { status: "failed", reason: `engine threw: ${(e as Error)?.stack ?? String(e)}` };
    }
    if (r.status === "failed" && d.name !== "permute") {
      // `@test(X:todo=…)` beside `@test(X=…)` records the answer CUE's authors intend where CUE's
      // own is known to be wrong: giving that answer is not a failure, but is not counted a pass.
      const intended = todoFormOf(directives, d);
      if (intended !== undefined) {
        let ri: Omit<CaseResult, "name"> | undefined;
        try {
          ri = checkOne(engine, root, intended, check);
        } catch {
          ri = undefined;
        }
        if (ri?.status === "passed")
          r = { status: "unsupported", reason: `gives the answer @test(${d.name}:todo) marks as intended` };
      }
    }
    if (d.todo && r.status === "failed") {
      r = { status: "unsupported", reason: `expected failure (@test(todo)): ${r.reason}` };
    }
    // An export that fails where CUE has concrete data is an error the user sees.
    if (r.status === "failed" && !/^(engine threw|export failed)/.test(r.reason ?? "")) {
      const at = d.name === "permute" ? d.structPath : [...d.path, ...pathOption(d, "at")];
      if (!engineErrsAt(root, at, engine)) r = { ...r, silent: true };
    }
    const key = `${d.file}|${(d.name === "permute" ? d.structPath : d.path).join(".")}`;
    if (d.name === "eq" && r.status === "passed" && pathOption(d, "at").length === 0) eqPassed.add(key);
    if (r.refusedInOtherOrder === true && r.silent === true) permuteAt.push({ i: results.length, key });
    results.push({ name, ...r });
  }
  // An order that refuses, beside an original order that gives CUE's value, is loud in every order.
  for (const { i, key } of permuteAt) {
    const r = results[i];
    if (r !== undefined && eqPassed.has(key)) {
      const { silent: _silent, ...loud } = r;
      results[i] = loud;
    }
  }
  return results;
}

/**
 * The `:todo` form of an assertion at the same place, rewritten as a plain directive (its first
 * argument keyed by the bare name), or undefined.
 */
function todoFormOf(directives: readonly Directive[], d: Directive): Directive | undefined {
  for (const t of directives) {
    if (t === d || t.version !== "todo" || t.name !== d.name || t.file !== d.file) continue;
    if (t.path.join("\u0000") !== d.path.join("\u0000")) continue;
    const [first, ...rest] = t.args;
    if (first === undefined) continue;
    const args = [first.key === undefined ? { ...first, text: t.name } : { ...first, key: t.name }, ...rest];
    return { ...t, version: undefined, args };
  }
  return undefined;
}

function checkOne(
  engine: Engine,
  root: EngineValue,
  d: Directive,
  check: CheckOptions,
): Omit<CaseResult, "name"> {
  switch (d.name) {
    case "eq":
      return checkEq(engine, root, d);
    case "err":
      return checkErr(root, d, check);
    case "kind":
      return checkKind(engine, root, d);
    case "closed": {
      if (engine.inspect.closed === undefined)
        return { status: "unsupported", reason: "closed needs inspect.closed" };
      const v = root.lookup(d.path);
      if (v === undefined) return { status: "failed", reason: "field not found" };
      // `@test(closed)` or `@test(closed=false)`: the value sits on the directive argument itself.
      const first = d.args[0];
      const want = first?.key === "closed" ? first.text !== "false" : true;
      const got = engine.inspect.closed(v);
      return got === want
        ? { status: "passed" }
        : { status: "failed", reason: `closed: want ${want}, got ${got}` };
    }
    case "allows":
      return checkAllows(engine, root, d);
    default:
      return { status: "unsupported", reason: `directive ${d.name}` };
  }
}

function checkKind(engine: Engine, root: EngineValue, d: Directive): Omit<CaseResult, "name"> {
  const want = d.args[0]?.key === "kind" ? d.args[0].text : "";
  const v = root.lookup(d.path);
  if (v === undefined) return { status: "failed", reason: "field not found" };
  if (engine.inspect.kind !== undefined) {
    const got = engine.inspect.kind(v);
    return got === want
      ? { status: "passed" }
      : { status: "failed", reason: `kind: want ${want}, got ${got}` };
  }
  const j = v.toJSON(0);
  if (!j.ok) return { status: "unsupported", reason: "kind of a non-concrete value needs inspect.kind" };
  const p = plainFromJSON(j.text);
  const got = p.t === "list" ? "list" : p.t;
  return got === want ? { status: "passed" } : { status: "failed", reason: `kind: want ${want}, got ${got}` };
}

function checkAllows(engine: Engine, root: EngineValue, d: Directive): Omit<CaseResult, "name"> {
  const allows = engine.inspect.allows;
  if (allows === undefined) return { status: "unsupported", reason: "allows needs inspect.allows" };
  const first = d.args[0];
  const want = first?.key === "allows" ? first.text !== "false" : true;
  const selText = d.args.find((a, i) => i > 0 && a.key === undefined)?.text;
  if (selText === undefined || first?.text === "expr")
    return { status: "unsupported", reason: "allows without a selector" };
  const selector: AllowsSelector =
    selText === "string"
      ? { kind: "anyString" }
      : selText === "int"
        ? { kind: "anyIndex" }
        : { kind: "label", name: stringArg(selText) };
  const v = root.lookup(d.path);
  if (v === undefined) return { status: "failed", reason: "field not found" };
  const got = allows(v, selector);
  return got === want
    ? { status: "passed" }
    : { status: "failed", reason: `allows ${selText}: want ${want}, got ${got}` };
}
