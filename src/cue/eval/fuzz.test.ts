import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { compile } from "../index.js";

// CUE-ish token soup: mostly valid fragments so that evaluation (not just parsing) is exercised.
const atom = fc.constantFrom(
  "a",
  "b",
  "#D",
  "_h",
  "x",
  "1",
  "2.5",
  '"s"',
  "int",
  "string",
  "_",
  "null",
  "true",
  "[1, 2]",
  "[...int]",
  "{}",
  "{a: 1}",
  "#D & {a: 1}",
  "*1 | 2",
  ">0",
  '=~"^a"',
  "len(a)",
  "a.b",
  "a[0]",
  "[for y in a {y}]",
  "{for k, v in b {(k): v}}",
  "{if a == 1 {c: 2}}",
  "close({a: int})",
  "[string]: int",
  "...",
  "a + 1",
  "b | *a",
);
const field = fc
  .tuple(fc.constantFrom("a", "b", "#D", "_h", "x", "c", "d"), fc.constantFrom(": ", "?: ", "!: "), atom)
  .map(([l, c, v]) => `${l}${c}${v}`);
const file = fc
  .array(
    fc.oneof(
      field,
      atom.map((a) => `e: {${a}}`),
      field.map((f) => `s: {${f}}`),
    ),
    {
      minLength: 1,
      maxLength: 12,
    },
  )
  .map((fs) => fs.join("\n"));

describe("cue evaluator fuzz", () => {
  it("terminates without throwing on arbitrary input", () => {
    fc.assert(
      fc.property(file, (text) => {
        const v = compile([{ name: "f.cue", text }], { maxSteps: 200_000, maxDisjuncts: 200 });
        const r = v.toJSON();
        assert.equal(typeof r.ok, "boolean");
        v.validate({ concrete: true });
        v.lookup(["a"])?.export();
      }),
      { numRuns: 300, seed: 42 },
    );
  });

  it("terminates on random bytes", () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 200 }), (text) => {
        const v = compile([{ name: "r.cue", text }], { maxSteps: 100_000 });
        assert.equal(typeof v.toJSON().ok, "boolean");
      }),
      { numRuns: 200, seed: 7 },
    );
  });
});
