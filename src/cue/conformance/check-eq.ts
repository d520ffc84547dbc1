/**
 * `@test(eq, X)`: a literal X is compared with the exported data (and definitions / hidden fields by
 * lookup), plus CUE equality when the engine offers it; a non-literal X needs CUE equality.
 */

import type * as ast from "../syntax/ast.js";
import { parseExpression, parseFile } from "../syntax/parser.js";
import { checkErr } from "./check-err.js";
import {
  type CaseResult,
  collectDirectives,
  type Directive,
  pathOption,
  unsupportedNear,
} from "./directive.js";
import type { Engine, EngineValue } from "./engine.js";
import { diffPlain, type Plain, plainFromExpr, plainFromJSON } from "./plain.js";

/**
 * An expectation with nested `@test(err)` fields, checked field by field: each such field must be
 * an error as its directive says, and every other field of the expectation must equal the actual
 * field (CUE equality). Comparing the whole struct at once would depend on whether the engine
 * propagates the expected errors to the enclosing struct. Fields present only in the actual value
 * are not detected this way.
 */
function checkNested(
  engine: Engine,
  root: EngineValue,
  target: readonly string[],
  text: string,
  imports: Directive["imports"],
): Omit<CaseResult, "name"> {
  const equal = engine.inspect.equal;
  if (equal === undefined) return { status: "unsupported", reason: "nested @test needs inspect.equal" };
  const synthetic = `__expected: ${text}\n`;
  const file = parseFile("expected.cue", synthetic);
  const top = file.node.decls[0];
  if (file.errors.length > 0 || top?.kind !== "Field") {
    return { status: "unsupported", reason: "nested @test: expectation does not parse" };
  }
  const errs = new Map<string, Directive[]>();
  // `@test(ignore)` on a field of the expectation: cue's harness skips it (it need not exist).
  const ignored = new Set<string>();
  for (const n of collectDirectives(file.node, synthetic)) {
    if (n.version === "todo" || n.name === "shareID") continue;
    if (n.name === "ignore" && n.unlocatable === undefined && n.path.length > 1) {
      ignored.add(n.path.slice(1).map(unqualified).join("\u0000"));
      continue;
    }
    if (n.name !== "err" || n.unlocatable !== undefined) {
      return { status: "unsupported", reason: `nested @test(${n.name}) in the expectation` };
    }
    const key = n.path.slice(1).map(unqualified).join("\u0000");
    errs.set(key, [...(errs.get(key) ?? []), n]);
  }
  const walk = (e: ast.Expr, rel: readonly string[]): Omit<CaseResult, "name"> => {
    if (e.kind === "List") {
      // A list element holding a nested @test (`[{_x: _ @test(ignore)}]`) is checked element by element.
      for (let i = 0; i < e.elems.length; i++) {
        const el = e.elems[i];
        if (el === undefined || el.kind === "Comprehension") {
          return { status: "unsupported", reason: "nested @test next to a list comprehension" };
        }
        const r = entry(el, [...rel, String(i)]);
        if (r.status !== "passed") return r;
      }
      const extra = [...target, ...rel, String(e.elems.length)];
      if (e.ellipsis === undefined && root.lookup(extra) !== undefined) {
        return { status: "failed", reason: `${extra.join(".")}: not in the expected list` };
      }
      return { status: "passed" };
    }
    if (e.kind !== "Struct") return { status: "unsupported", reason: "nested @test below a non-struct" };
    for (const f of e.decls) {
      if (f.kind === "Attribute") continue;
      if (f.kind !== "Field" || (f.label.kind !== "Ident" && f.label.kind !== "String")) {
        return { status: "unsupported", reason: `nested @test next to a ${f.kind}` };
      }
      const label = f.label.kind === "Ident" ? unqualified(f.label.name) : f.label.value;
      const r = entry(f.value, [...rel, label]);
      if (r.status !== "passed") return r;
    }
    return { status: "passed" };
  };
  const entry = (value: ast.Expr, sub: readonly string[]): Omit<CaseResult, "name"> => {
    const key = sub.join("\u0000");
    if (ignored.has(key)) return { status: "passed" };
    const here = errs.get(key);
    if (here !== undefined) {
      for (const n of here) {
        const r = checkErr(root, { ...n, path: [...target, ...sub] }, {});
        if (r.status !== "passed") return { ...r, reason: `nested err at ${sub.join(".")}: ${r.reason}` };
      }
      return { status: "passed" };
    }
    if ([...errs.keys(), ...ignored].some((k) => k.startsWith(`${key}\u0000`))) return walk(value, sub);
    const got = root.lookup([...target, ...sub]);
    if (got === undefined) return { status: "failed", reason: `${[...target, ...sub].join(".")}: not found` };
    const want = compileExpected(engine, synthetic.slice(value.pos.offset, value.end), imports);
    if (typeof want === "string") return { status: "unsupported", reason: want };
    if (!equal(got, want)) {
      return {
        status: "failed",
        reason: `${sub.join(".")}: ${notEqual(engine, synthetic.slice(value.pos.offset, value.end), got)}`,
      };
    }
    return { status: "passed" };
  };
  return walk(top.value, []);
}

/** A hidden label without its package qualifier (`_x$pkg` is `_x` in a single-package engine). */
function unqualified(label: string): string {
  return label.replace(/^(_#?[A-Za-z0-9_]+)\$[A-Za-z0-9_]+$/, "$1");
}

export function checkEq(engine: Engine, root: EngineValue, d: Directive): Omit<CaseResult, "name"> {
  const exp = d.args.find((a, i) => i > 0 && a.key === undefined && a.text !== "incorrect");
  if (exp === undefined) return { status: "unsupported", reason: "eq without an expected value" };
  const target = [...d.path, ...pathOption(d, "at")];
  // Nested `@test(err)` marks fields of the expectation that must be errors: compare field by field.
  // `ignore` skips a field; other nested directives (`final`, `eq`) change the comparison in ways
  // not implemented here: they are unsupported.
  if (exp.text.includes("@test(")) {
    const unsup = unsupportedNear(root.errors, target);
    if (unsup !== undefined) return { status: "unsupported", reason: `engine: ${unsup.message}` };
    return checkNested(engine, root, target, exp.text, d.imports);
  }
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
  // A value whose export is only incomplete (a struct whose comprehension or validator waits for
  // a value) is compared as cue's harness does, with CUE equality: there the struct is its fields.
  const incomplete = incompleteOnly(root, target);
  if (incomplete !== undefined && engine.inspect.equal !== undefined) {
    const e = compileExpected(engine, exp.text, d.imports);
    if (typeof e !== "string" && e.errors.length === 0 && engine.inspect.equal(incomplete, e)) {
      return { status: "passed" };
    }
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

/** The value at `target` when it exists and its export fails with incomplete errors only. */
function incompleteOnly(root: EngineValue, target: readonly string[]): EngineValue | undefined {
  const v = root.lookup(target);
  if (v === undefined) return undefined;
  const j = v.toJSON(0);
  if (j.ok || j.errors.length === 0 || j.errors.some((e) => e.code !== "incomplete")) return undefined;
  return v;
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
