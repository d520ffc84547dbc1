/**
 * Property tests: arbitrary and grammar-generated (then mutated) documents never make the parser or
 * the engine throw, every parse error has a position inside the text, and with a small step limit
 * evaluation stays within a time bound (reporting a `limit` error when it runs out of steps).
 */

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { compile } from "../index.js";
import type * as ast from "./ast.js";
import { parseFile } from "./parser.js";

const idents = ["a", "b", "c", "#D", "_h", "x", "y", "int", "string", "_", "len", "null"];
const ident = fc.constantFrom(...idents);
/** Labels: identifiers except `_`, which is not a valid label. */
const label = fc.constantFrom(...idents.filter((x) => x !== "_"));

/** A small CUE grammar: expressions of bounded depth. */
const { expr } = fc.letrec<{ expr: string; struct: string; list: string }>((tie) => ({
  expr: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    fc.integer({ min: -1000, max: 1000 }).map(String),
    fc.constantFrom(
      "1.5",
      "0x1F",
      "1Ki",
      ".5",
      "1e3",
      "true",
      "false",
      "null",
      "_|_",
      '"s"',
      "'b'",
      '"x\\(a)y"',
    ),
    fc.constantFrom('"""\n  m\n  """', '#"r\\#(b)"#', "int", "string", ">=0", '=~"^a"', "!=null", "*1 | 2"),
    ident,
    fc
      .tuple(
        tie("expr"),
        fc.constantFrom("|", "&", "+", "-", "*", "/", "==", "<", "&&", "||", "=~"),
        tie("expr"),
      )
      .map(([l, op, r]) => `${l} ${op} ${r}`),
    fc.tuple(fc.constantFrom("*", "-", "!", ">=", "<"), tie("expr")).map(([op, x]) => `${op} ${x}`),
    tie("expr").map((x) => `(${x})`),
    fc.tuple(ident, ident).map(([x, y]) => `${x}.${y}`),
    fc.tuple(tie("expr"), tie("expr")).map(([x, i]) => `${x}[${i}]`),
    fc
      .tuple(fc.constantFrom("len", "close", "and", "or", "div", "strings.ToUpper"), tie("expr"))
      .map(([f, x]) => `${f}(${x})`),
    tie("struct"),
    tie("list"),
  ),
  struct: fc
    .array(
      fc.oneof(
        fc.tuple(label, fc.constantFrom(":", "?:", "!:"), tie("expr")).map(([l, m, v]) => `${l}${m} ${v}`),
        fc.tuple(tie("expr"), tie("expr")).map(([p, v]) => `[${p}]: ${v}`),
        fc.tuple(ident, tie("expr")).map(([l, v]) => `"${l}": ${v}`),
        fc.tuple(ident, tie("expr")).map(([l, v]) => `(${l}): ${v}`),
        fc.tuple(label, tie("expr")).map(([l, v]) => `let ${l}x = ${v}`),
        fc.tuple(tie("expr"), tie("struct")).map(([s, b]) => `for k, v in ${s} ${b}`),
        fc.tuple(tie("expr"), tie("struct")).map(([c, b]) => `if ${c} ${b}`),
        tie("expr"),
        fc.constantFrom("...", "...int"),
      ),
      { maxLength: 4 },
    )
    .map((ds) => `{${ds.join("\n")}}`),
  list: fc
    .array(tie("expr"), { maxLength: 4 })
    .chain((xs) => fc.constantFrom(`[${xs.join(", ")}]`, `[${[...xs, "...int"].join(", ")}]`)),
}));

const document = fc
  .array(fc.tuple(label, expr), { minLength: 1, maxLength: 6 })
  .map((fs) => fs.map(([l, v]) => `${l}: ${v}`).join("\n"));

/** Deletes, duplicates or inserts characters, to reach the parser's error paths. */
const mutated = fc
  .tuple(
    document,
    fc.array(
      fc.tuple(
        fc.nat(),
        fc.nat({ max: 5 }),
        fc.constantFrom("", "{", "}", "(", '"', "\\(", ":", ",", "\n", "#", "@x(", "'''\n"),
      ),
      { maxLength: 4 },
    ),
  )
  .map(([doc, edits]) => {
    let s = doc;
    for (const [at, len, ins] of edits) {
      const i = s.length === 0 ? 0 : at % s.length;
      s = s.slice(0, i) + ins + s.slice(i + len);
    }
    return s;
  });

function checkParse(text: string): void {
  const r = parseFile("fuzz.cue", text);
  for (const e of r.errors) {
    assert.ok(e.pos.offset >= 0 && e.pos.offset <= text.length, `error offset out of range: ${e.message}`);
    assert.ok(e.pos.line >= 1 && e.pos.column >= 1);
  }
  if (r.errors.length === 0) checkRanges(r.node, text.length);
}

/** Every node lies within the text and within its parent (what error positions rely on). */
function checkRanges(root: ast.File, length: number): void {
  const visit = (n: ast.Node, lo: number, hi: number): void => {
    const at = `${n.kind} [${n.pos.offset}, ${n.end})`;
    assert.ok(n.pos.offset <= n.end, `${at} ends before it starts`);
    assert.ok(n.pos.offset >= lo && n.end <= hi, `${at} outside its parent [${lo}, ${hi})`);
    // A `name: value` field's label is made when read: it is not among the field's own values.
    const own = n.kind === "Field" ? [n.label, ...Object.values(n)] : Object.values(n);
    for (const v of own) {
      const children = Array.isArray(v) ? v : [v];
      for (const c of children) {
        if (typeof c === "object" && c !== null && "kind" in c && "pos" in c && c !== n) {
          visit(c as ast.Node, n.pos.offset, n.end);
        }
      }
    }
  };
  for (const d of root.decls) visit(d, 0, length);
}

/** Scalar properties that tell nodes of a kind apart (positions left out). */
const scalars = ["name", "op", "constraint", "text", "path", "body", "implicit", "bytes", "multiline"];
/** Properties holding child nodes or lists of them. */
const children = [
  "label",
  "alias",
  "keyAlias",
  "value",
  "attributes",
  "decls",
  "elems",
  "ellipsis",
  "expr",
  "left",
  "right",
  "sel",
  "index",
  "low",
  "high",
  "fn",
  "args",
  "parts",
  "clauses",
  "fallback",
  "ident",
  "key",
  "source",
  "condition",
  "type",
];

/** The tree without positions, through the interfaces' properties (getters included). */
function shape(x: unknown): unknown {
  if (Array.isArray(x)) return x.map(shape);
  if (typeof x === "bigint") return `${x}n`;
  if (x instanceof Uint8Array) return [...x];
  if (typeof x !== "object" || x === null || !("kind" in x)) return x;
  const n = x as unknown as Record<string, unknown>;
  const out: Record<string, unknown> = { kind: n.kind };
  for (const k of scalars) if (n[k] !== undefined) out[k] = n[k];
  for (const k of children) if (n[k] !== undefined) out[k] = shape(n[k]);
  return out;
}

const steps = 20_000;

/**
 * CI runs a fixed seed so results are reproducible; `CUE_FUZZ_RUNS=20000` runs every property that
 * many times with random seeds (or `CUE_FUZZ_SEED=n`) for a longer hunt.
 */
function runs(n: number): { numRuns: number; seed?: number } {
  const env = Number(process.env.CUE_FUZZ_RUNS);
  const seed = Number(process.env.CUE_FUZZ_SEED);
  if (Number.isFinite(env) && env > 0)
    return Number.isFinite(seed) ? { numRuns: env, seed } : { numRuns: env };
  return { numRuns: n, seed: Number.isFinite(seed) ? seed : 20261121 };
}

function checkCompile(text: string): void {
  const start = performance.now();
  const v = compile([{ name: "fuzz.cue", text }], { maxSteps: steps, maxDepth: 100, maxDisjuncts: 200 });
  assert.ok(Array.isArray(v.errors));
  v.toJSON(2);
  v.validate({ concrete: true });
  v.lookup(["a"])?.export();
  const ms = performance.now() - start;
  // 20k steps is a few milliseconds of work; the bound is generous for a loaded CI machine.
  assert.ok(ms < 3000, `compile took ${ms.toFixed(0)} ms with maxSteps ${steps}`);
}

describe("fuzz", () => {
  it("the parser never throws on arbitrary text", () => {
    fc.assert(fc.property(fc.string({ unit: "grapheme", maxLength: 200 }), checkParse), runs(500));
  });

  it("the parser never throws on generated and mutated documents", () => {
    fc.assert(fc.property(fc.oneof(document, mutated), checkParse), runs(500));
  });

  it("generated documents parse without errors", () => {
    fc.assert(
      fc.property(document, (text) => {
        const r = parseFile("gen.cue", text);
        assert.deepEqual(
          r.errors.map((e) => e.message),
          [],
          text,
        );
      }),
      runs(300),
    );
  });

  // `name:` is parsed straight from the text; `name :` takes the general path (a label expression,
  // then the `:` token). Both must give the same tree.
  it("labels directly before their colon parse as with a space between", () => {
    fc.assert(
      fc.property(document, (text) => {
        const spaced = text.replaceAll(":", " :");
        const a = parseFile("a.cue", text);
        const b = parseFile("b.cue", spaced);
        assert.deepEqual(
          b.errors.map((e) => e.message),
          a.errors.map((e) => e.message),
        );
        assert.deepEqual(shape(b.node.decls), shape(a.node.decls), text);
      }),
      runs(300),
    );
  });

  it("compile never throws and stays within its step limit", () => {
    fc.assert(fc.property(fc.oneof(document, mutated), checkCompile), runs(300));
  });

  it("a runaway evaluation stops at the step limit with a limit error", () => {
    const text =
      "#L: {next?: #L, v: int}\na: [for i, x in [1,2,3,4,5,6,7,8,9,10] for j, y in [1,2,3,4,5,6,7,8,9,10] for k, z in [1,2,3,4,5,6,7,8,9,10] {i+j+k}]\n";
    const v = compile([{ name: "big.cue", text }], { maxSteps: 500 });
    assert.ok(
      v.errors.some((e) => e.code === "limit"),
      `expected a limit error, got ${v.errors.map((e) => e.code).join(",")}`,
    );
  });
});
