/**
 * Inline `@test(...)` assertions (cue's `internal/cuetxtar/inline.go` format): collects them from the
 * parsed files and checks each against the evaluated value through the public API.
 *
 * What is checked: `eq` with a literal expectation (exported data for regular fields, lookups for
 * definitions and hidden fields), `err` (code alternatives, `contains` with cue's `%s`/`%v`
 * placeholders, `args` as substrings of the message, `at=`, `path=` as a suffix of the error path,
 * `any`), `kind` for concrete values. `pos=` is not compared. Everything else (`permute`, `allows`,
 * `closed`, `debugCheck`, `shareID`, `file`, non-literal `eq` expectations...) is unsupported unless
 * the engine offers the matching `inspect` hook. `:todo` directives are not assertions and are skipped.
 */

import type * as ast from "../syntax/ast.js";
import { parseExpression } from "../syntax/parser.js";
import { type AttrArg, splitAttrArgs, splitPath } from "./attr-args.js";
import type { AllowsSelector, Engine, EngineError, EngineOptions, EngineValue } from "./engine.js";
import { checkPermute } from "./permute.js";
import { diffPlain, type Plain, plainFromExpr, plainFromJSON } from "./plain.js";

/** How strictly assertions are checked. */
export interface CheckOptions {
  /** Also compare the `pos=[…]` positions of `@test(err)` (cue compares them; by default we do not). */
  readonly strictPos?: boolean;
}

/** The outcome of one assertion. */
export interface CaseResult {
  readonly name: string;
  readonly status: "passed" | "failed" | "unsupported";
  readonly reason?: string;
}

/** One `@test` attribute with where it applies. */
export interface Directive {
  readonly file: string;
  readonly source: string;
  /** Path of the annotated field, or of the struct holding a declaration attribute. */
  readonly path: readonly string[];
  readonly name: string;
  readonly version?: string;
  readonly args: readonly AttrArg[];
  /** Set when the field cannot be located statically (under a comprehension or dynamic label). */
  readonly unlocatable?: string;
  /** Source range of the declaration (in its explicit struct) carrying a field attribute. */
  readonly declRange?: Range;
  /** Path of the explicit struct whose declarations `permute` reorders. */
  readonly structPath: readonly string[];
  /** For declaration attributes: ranges of the fields of the struct they sit in. */
  readonly siblings?: readonly Range[];
  /** The imports of the file (local name and path), so expectations can use the same packages. */
  readonly imports: readonly { readonly name: string; readonly path: string }[];
  /** The field carries `@test(todo)`: failures are expected. */
  todo: boolean;
}

/** A 0-based source range. */
export interface Range {
  readonly start: number;
  readonly end: number;
}

/** Whether any file contains an `@test(` attribute (inline mode). */
export function hasInlineTests(files: readonly { text: string }[]): boolean {
  return files.some((f) => f.text.includes("@test("));
}

/** Collects the directives of one parsed file. */
export function collectDirectives(file: ast.File, source: string): Directive[] {
  const out: Directive[] = [];
  const imports = file.imports.map((i) => ({
    name: i.name?.name ?? i.path.split(":")[0]?.split("/").pop() ?? "",
    path: i.path,
  }));
  const fromAttrs = (
    attrs: readonly ast.Attribute[],
    path: readonly string[],
    unlocatable: string | undefined,
    place: { declRange?: Range; structPath: readonly string[]; siblings?: readonly Range[] },
  ): void => {
    const here: Directive[] = [];
    for (const a of attrs) {
      if (a.name !== "test") continue;
      const args = splitAttrArgs(source, a.bodyOffset, a.body.length);
      const first = args[0];
      if (first === undefined) continue; // `@test()` placeholder
      const full = first.key ?? first.text;
      const [name = "", version] = full.split(":");
      here.push({
        file: file.filename,
        source,
        path,
        name,
        version,
        args,
        unlocatable,
        todo: false,
        imports,
        ...place,
      });
    }
    const todo = here.some((d) => d.name === "todo" && d.version === undefined);
    for (const d of here) {
      d.todo = todo;
      out.push(d);
    }
  };
  const walkDecls = (
    decls: readonly ast.Decl[],
    path: readonly string[],
    unlocatable?: string,
    outer?: { declRange: Range; structPath: readonly string[] },
  ): void => {
    const siblings = decls
      .filter((d) => d.kind === "Field")
      .map((d) => ({ start: d.pos.offset, end: d.end }));
    for (const d of decls) {
      switch (d.kind) {
        case "Attribute":
          fromAttrs([d], path, unlocatable, { structPath: path, siblings });
          break;
        case "Field": {
          const label = staticLabel(d.label);
          const p = [...path, label ?? "?"];
          const why = unlocatable ?? (label === undefined ? `dynamic label ${d.label.kind}` : undefined);
          // In `a: b: c` shorthand the unit a struct reorders is the outermost field.
          const here = outer ?? { declRange: { start: d.pos.offset, end: d.end }, structPath: path };
          fromAttrs(d.attributes, p, why, here);
          if (d.value.kind === "Struct" && d.value.implicit) walkDecls(d.value.decls, p, why, here);
          else walkExpr(d.value, p, why);
          break;
        }
        case "Comprehension":
          walkDecls(d.value.decls, path, unlocatable ?? "inside a comprehension");
          break;
        case "Embed":
          walkExpr(d.expr, path, unlocatable);
          break;
        case "Let":
        case "Ellipsis":
        case "BadDecl":
          break;
        default: {
          const never: never = d;
          throw new Error(`unexpected declaration ${String(never)}`);
        }
      }
    }
  };
  const walkExpr = (e: ast.Expr, path: readonly string[], unlocatable?: string): void => {
    switch (e.kind) {
      case "Struct":
        walkDecls(e.decls, path, unlocatable);
        break;
      case "Paren":
        walkExpr(e.expr, path, unlocatable);
        break;
      case "Alias":
        walkExpr(e.expr, path, unlocatable);
        break;
      case "Binary":
        if (e.op === "&") {
          walkExpr(e.left, path, unlocatable);
          walkExpr(e.right, path, unlocatable);
        } else {
          walkExpr(e.left, path, unlocatable ?? `operand of ${e.op}`);
          walkExpr(e.right, path, unlocatable ?? `operand of ${e.op}`);
        }
        break;
      case "Call":
        for (const a of e.args) walkExpr(a, path, unlocatable ?? "inside a call");
        break;
      case "List":
        e.elems.forEach((el, i) => {
          if (el.kind === "Comprehension")
            walkDecls(el.value.decls, path, unlocatable ?? "inside a comprehension");
          else walkExpr(el, [...path, String(i)], unlocatable);
        });
        break;
      default:
        break;
    }
  };
  walkDecls(file.decls, []);
  return out;
}

function staticLabel(l: ast.Label): string | undefined {
  switch (l.kind) {
    case "Ident":
      return l.name;
    case "String":
      return l.value;
    default:
      return undefined;
  }
}

/** Directives that document rather than assert. */
const informational = new Set(["todo", "desc", "debug", "ignore", "p", "skip", "shareID"]);

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
  // Field-form `@test(permute)` marks several fields of one struct: one case per struct.
  const permuteGroups = new Map<string, Directive[]>();
  for (const d of directives) {
    if (d.name !== "permute" || d.version !== undefined || d.siblings !== undefined) continue;
    const key = `${d.file}|${d.structPath.join(".")}`;
    permuteGroups.set(key, [...(permuteGroups.get(key) ?? []), d]);
  }
  const seenGroups = new Set<string>();
  // A `:v3` form takes precedence over the unversioned form of the same directive on the same field.
  const v3 = new Set(
    directives.filter((d) => d.version === "v3").map((d) => `${d.path.join(".")}|${d.name}`),
  );
  const skipped = new Set(
    directives.filter((d) => d.name === "skip" && (d.version ?? "v3") === "v3").map((d) => d.path.join(".")),
  );
  const counters = new Map<string, number>();
  for (const d of directives) {
    if (d.version !== undefined && d.version !== "v3") continue;
    if (d.version === undefined && v3.has(`${d.path.join(".")}|${d.name}`)) continue;
    if (informational.has(d.name) || skipped.has(d.path.join("."))) continue;
    // `@test(eq)` without a value asserts nothing.
    if (d.name === "eq" && !d.args.some((a, i) => i > 0 && a.key === undefined && a.text !== "incorrect"))
      continue;
    const base = `${prefix}${d.path.length === 0 ? "<root>" : d.path.join(".")} ${d.name}`;
    const n = (counters.get(base) ?? 0) + 1;
    counters.set(base, n);
    const name = n === 1 ? base : `${base}#${n}`;
    let r: Omit<CaseResult, "name">;
    try {
      if (d.unlocatable !== undefined) r = { status: "unsupported", reason: d.unlocatable };
      else if (d.name === "permute") {
        const key = `${d.file}|${d.structPath.join(".")}`;
        const group = d.siblings === undefined ? (permuteGroups.get(key) ?? [d]) : [d];
        if (d.siblings === undefined && seenGroups.has(key)) continue;
        seenGroups.add(key);
        const ranges = d.siblings ?? group.flatMap((g) => (g.declRange === undefined ? [] : [g.declRange]));
        const countArg = d.args.find((a, i) => i > 0 && a.key === "count")?.text;
        const count = countArg === undefined || countArg === "" ? undefined : Number(countArg);
        r = checkPermute(engine, files, options, d.file, d.structPath, ranges, count);
      } else r = checkOne(engine, root, d, check);
    } catch (e) {
      r = { status: "failed", reason: `engine threw: ${(e as Error)?.stack ?? String(e)}` };
    }
    if (d.todo && r.status === "failed")
      r = { status: "unsupported", reason: `expected failure (@test(todo)): ${r.reason}` };
    results.push({ name, ...r });
  }
  return results;
}

function option(d: Directive, key: string): AttrArg | undefined {
  return d.args.find((a, i) => i > 0 && a.key === key);
}
function flag(d: Directive, word: string): boolean {
  return d.args.some((a, i) => i > 0 && a.key === undefined && a.text === word);
}
function pathOption(d: Directive, key: string): string[] {
  const a = option(d, key);
  if (a === undefined) return [];
  return splitPath(a.text);
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

function unsupportedNear(errors: readonly EngineError[], target: readonly string[]): EngineError | undefined {
  return errors.find(
    (e) => e.code === "unsupported" && (isPrefix(e.path, target) || isPrefix(target, e.path)),
  );
}

function isPrefix(p: readonly string[], of: readonly string[]): boolean {
  return p.length <= of.length && p.every((x, i) => x === of[i]);
}

function checkEq(engine: Engine, root: EngineValue, d: Directive): Omit<CaseResult, "name"> {
  const exp = d.args.find((a, i) => i > 0 && a.key === undefined && a.text !== "incorrect");
  if (exp === undefined) return { status: "unsupported", reason: "eq without an expected value" };
  const target = [...d.path, ...pathOption(d, "at")];
  // Nested directives (`@test(ignore)`, `@test(err)`, `@test(shareID=…)`) change what the
  // expectation means field by field; the runner does not model that.
  if (exp.text.includes("@test("))
    return { status: "unsupported", reason: "nested @test in the expectation" };
  const parsed = parseExpression(
    "expected.cue",
    d.source,
    {},
    { start: exp.offset, end: exp.offset + exp.text.length },
  );
  if (parsed.errors.length > 0)
    return { status: "unsupported", reason: `expected value: ${parsed.errors[0]?.message}` };
  const want = plainFromExpr(parsed.node);
  const unsup = unsupportedNear(root.errors, target);
  if (unsup !== undefined) return { status: "unsupported", reason: `engine: ${unsup.message}` };
  if (typeof want === "string") {
    const equal = engine.inspect.equal;
    if (equal === undefined) return { status: "unsupported", reason: `non-literal expectation (${want})` };
    const got = root.lookup(target);
    if (got === undefined) return { status: "failed", reason: `${target.join(".")}: not found` };
    const e = compileExpected(engine, exp.text, d.imports);
    if (typeof e === "string") return { status: "unsupported", reason: e };
    return equal(got, e)
      ? { status: "passed" }
      : { status: "failed", reason: notEqual(engine, exp.text, got) };
  }
  const r = comparePlain(root, target, want);
  // The export comparison cannot see optional fields or extra definitions; CUE equality can.
  if (r.status === "passed" && engine.inspect.equal !== undefined) {
    const got = root.lookup(target);
    const e = compileExpected(engine, exp.text, d.imports);
    if (
      got !== undefined &&
      typeof e !== "string" &&
      e.errors.length === 0 &&
      !engine.inspect.equal(got, e)
    ) {
      return { status: "failed", reason: `exports as expected but ${notEqual(engine, exp.text, got)}` };
    }
  }
  return r;
}

/** Evaluates an expectation on its own; a string explains why it cannot be used. */
function compileExpected(
  engine: Engine,
  text: string,
  fileImports: Directive["imports"],
): EngineValue | string {
  const imports = fileImports
    .filter((i) => text.includes(`${i.name}.`))
    .map((i) => `import ${i.name} ${JSON.stringify(i.path)}\n`)
    .join("");
  // `_x$pkg` names a hidden field of package pkg; in a single-package engine that is just `_x`.
  const src = text.replace(/(\b_#?[A-Za-z0-9_]+)\$[A-Za-z0-9_]+(?=\s*[?!]?:)/g, "$1");
  const root = engine.compile([{ name: "expected.cue", text: `${imports}__expected: ${src}\n` }]);
  const bad = root.errors.find(
    (x) => x.code === "syntax" || x.code === "unsupported" || /reference "[^"]*" not found/.test(x.message),
  );
  if (bad !== undefined) return `expectation cannot be evaluated on its own: ${bad.message}`;
  return root.lookup(["__expected"]) ?? "cannot evaluate the expectation";
}

function notEqual(engine: Engine, expected: string, got: EngineValue): string {
  const flat = (s: string): string => s.replace(/\s+/g, " ").slice(0, 200);
  let shown = "";
  try {
    shown = engine.describe === undefined ? "" : `; got ${flat(engine.describe(got))}`;
  } catch {
    shown = "";
  }
  return `not equal to ${flat(expected)}${shown}`;
}

function comparePlain(root: EngineValue, target: readonly string[], want: Plain): Omit<CaseResult, "name"> {
  const v = root.lookup(target);
  if (v === undefined) return { status: "failed", reason: `${target.join(".") || "<root>"}: not found` };
  const j = v.toJSON(0);
  if (!j.ok) {
    const u = j.errors.find((e) => e.code === "unsupported");
    if (u !== undefined) return { status: "unsupported", reason: `engine: ${u.message}` };
    const e = j.errors[0];
    return {
      status: "failed",
      reason: `export failed: ${e ? `${e.path.join(".")}: [${e.code}] ${e.message}` : "?"}`,
    };
  }
  let got: Plain;
  try {
    got = plainFromJSON(j.text);
  } catch (e) {
    return { status: "failed", reason: `engine produced invalid JSON: ${(e as Error).message}` };
  }
  const diff = diffPlain(want, got);
  if (diff !== undefined) return { status: "failed", reason: diff };
  // Definitions and hidden fields are not exported: check each by lookup.
  const extras: [string[], Plain][] = [];
  collectExtras(want, [], extras);
  for (const [sub, w] of extras) {
    const r = comparePlain(root, [...target, ...sub], w);
    if (r.status !== "passed") return r;
  }
  return { status: "passed" };
}

function collectExtras(p: Plain, at: string[], out: [string[], Plain][]): void {
  if (p.t === "struct") {
    for (const [k, v] of p.extra) out.push([[...at, k], v]);
    for (const [k, v] of p.fields) collectExtras(v, [...at, k], out);
  } else if (p.t === "list") {
    p.items.forEach((v, i) => {
      collectExtras(v, [...at, String(i)], out);
    });
  }
}

function normCode(c: string): string {
  return c === "structural cycle" ? "structural_cycle" : c;
}

/** Turns cue's message format (`conflicting values %s and %s`) into a pattern. */
function containsPattern(s: string): RegExp {
  const parts = s.split(/%[-+# 0-9.]*[a-zA-Z]/);
  return new RegExp(parts.map((p) => p.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")).join("[\\s\\S]*?"));
}

function stringArg(text: string): string {
  if (text.startsWith('"') || text.startsWith("#")) {
    const r = parseExpression("arg.cue", text);
    if (r.node.kind === "String") return r.node.value;
  }
  return text;
}

function checkErr(root: EngineValue, d: Directive, check: CheckOptions): Omit<CaseResult, "name"> {
  const target = [...d.path, ...pathOption(d, "at")];
  const unsup = unsupportedNear(root.errors, target);
  if (unsup !== undefined) return { status: "unsupported", reason: `engine: ${unsup.message}` };
  const all: EngineError[] = [...root.errors];
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
    if (errPath !== undefined) return isSuffix(errPath, e.path);
    if (any) return isPrefix(target, e.path);
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
      (pattern === undefined || pattern.test(e.message)) &&
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

function isSuffix(s: readonly string[], of: readonly string[]): boolean {
  return s.length <= of.length && s.every((x, i) => x === of[of.length - s.length + i]);
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

/** `pos=[0:5, -1:3, other.cue:4:2]`: deltas are relative to the line of the `@test` attribute. */
function expectedPositions(
  d: Directive,
  text: string,
): { file: string; line: number; column: number }[] | undefined {
  const inner = text.trim().replace(/^\[/, "").replace(/\]$/, "");
  const offset = d.args[0]?.offset ?? 0;
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
