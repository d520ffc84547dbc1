import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { compile } from "../index.js";
import { parseFile } from "../syntax/parser.js";
import { isErrorFreePlainData } from "./plain-data.js";

const cases: { name: string; src: string; plain: boolean; errors?: number }[] = [
  {
    name: "literals, lists and structs",
    src: "a: 1\nb: {c: \"x\", d: [1, 2.5, null, true, {e: 'b'}]}",
    plain: true,
  },
  { name: "quoted and identifier labels", src: 'a: {"x-y": 1, z: 2}\n"b": 3', plain: true },
  { name: "a label twice", src: "a: {x: 1, x: 2}", plain: false, errors: 2 },
  { name: "the same label quoted and not", src: 'a: {x: 1, "x": 2}', plain: false, errors: 2 },
  { name: "a top-level label twice", src: "a: {x: 1}\na: {y: 2}", plain: false, errors: 0 },
  {
    name: "a label twice in a large struct",
    src: `a: {${Array.from({ length: 12 }, (_, i) => `f${i}: ${i}`).join(", ")}, f3: 9}`,
    plain: false,
    errors: 2,
  },
  { name: "a reference", src: "a: 1\nb: a", plain: false, errors: 0 },
  { name: "an operator", src: "a: 1 + 1", plain: false, errors: 0 },
  { name: "a disjunction", src: "a: *1 | 2", plain: false, errors: 0 },
  { name: "interpolation", src: 'a: "\\(1)"', plain: false, errors: 0 },
  { name: "a definition", src: "#A: {x: 1}", plain: false, errors: 0 },
  { name: "a hidden field", src: '_a: 1\n_lookout: listen: "127.0.0.1:8080"', plain: true },
  { name: "a hidden field twice", src: "_a: {x: 1}\n_a: {y: 2}", plain: false, errors: 0 },
  { name: "a hidden definition", src: "_#a: 1", plain: false, errors: 0 },
  { name: "a reserved name", src: "__a: 1", plain: false, errors: 0 },
  { name: "an optional field", src: "a?: 1", plain: false, errors: 0 },
  { name: "a pattern", src: "a: [string]: int", plain: false, errors: 0 },
  { name: "an embedding", src: "a: {1}", plain: false, errors: 0 },
  { name: "an open list", src: "a: [1, ...]", plain: false, errors: 0 },
  { name: "a comprehension", src: "a: [for x in [1] {x}]", plain: false, errors: 0 },
  { name: "an import", src: 'import "strings"\na: 1', plain: false, errors: 0 },
];

describe("plain data", () => {
  for (const c of cases) {
    it(c.name, () => {
      const f = parseFile("a.cue", c.src);
      assert.deepEqual(f.errors, []);
      assert.equal(isErrorFreePlainData([f.node], 400, 20_000_000), c.plain);
      // The evaluator agrees: plain data has no errors (looked up: a full evaluation; a conflict
      // counts twice there, at the field and inherited at the root).
      const errs = compile([{ name: "a.cue", text: c.src }]).lookup([])?.errors ?? [];
      if (c.plain) assert.deepEqual(errs, []);
      else assert.equal(errs.length, c.errors);
    });
  }

  it("deep or large documents are left to the evaluator and its limits", () => {
    const deep = parseFile("a.cue", `a: ${"{b: ".repeat(50)}1${"}".repeat(50)}`).node;
    assert.equal(isErrorFreePlainData([deep], 400, 20_000_000), true);
    assert.equal(isErrorFreePlainData([deep], 40, 20_000_000), false);
    const wide = parseFile("a.cue", `a: [${Array.from({ length: 1000 }, (_, i) => i).join(", ")}]`).node;
    assert.equal(isErrorFreePlainData([wide], 400, 4000), false);
    const v = compile([{ name: "a.cue", text: `a: ${"{b: ".repeat(50)}1${"}".repeat(50)}` }], {
      maxDepth: 40,
    });
    assert.ok(v.errors.length > 0);
  });
});
