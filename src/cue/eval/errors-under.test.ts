import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { compile } from "./instance.js";

const DOC = `
a: {x: 1 & 2, y: 3 & 4, ok: 1}
_h: "s" & 5
b: 5 & 6
c: *{d: 1 & 2} | {e: 1}
`;

describe("errorsUnder: errors in some subtrees only, in the order errors gives them", () => {
  const cases: { paths: string[][]; want: string[] }[] = [
    { paths: [["a", "x"]], want: ["a.x"] },
    { paths: [["a"]], want: ["a.x", "a.y"] },
    // A path the value does not have: its nearest ancestor, whole.
    { paths: [["a", "z", "q"]], want: ["a.x", "a.y"] },
    { paths: [["b"], ["a", "y"]], want: ["a.y", "b"] },
    { paths: [["a", "ok"]], want: [] },
    { paths: [["_h"]], want: ["_h"] },
    { paths: [["c", "d"]], want: [] },
    { paths: [[]], want: ["a.x", "a.y", "_h", "b"] },
    { paths: [], want: [] },
  ];
  for (const c of cases) {
    it(JSON.stringify(c.paths), () => {
      const v = compile([{ name: "doc.cue", text: DOC }]);
      const got = v.errorsUnder(c.paths).map((e) => e.path.join("."));
      assert.deepEqual(got, c.want);
      // The same errors `errors` reports there.
      const all = v.errors.filter((e) => c.want.includes(e.path.join(".")));
      assert.deepEqual(v.errorsUnder(c.paths), all);
    });
  }
  it("gives the same after errors was asked for", () => {
    const v = compile([{ name: "doc.cue", text: DOC }]);
    assert.equal(v.errors.length, 4);
    assert.deepEqual(
      v.errorsUnder([["a"]]).map((e) => e.path.join(".")),
      ["a.x", "a.y"],
    );
  });
});

describe("compileErrors: what compile knows without evaluating", () => {
  const cases: { text: string; want: number }[] = [
    { text: "a: 1 & 2", want: 0 },
    { text: "a: {", want: 1 },
    { text: 'import "example.com/x"\na: 1', want: 1 },
  ];
  for (const c of cases) {
    it(c.text, () => {
      const v = compile([{ name: "doc.cue", text: c.text }]);
      assert.equal(v.compileErrors.length, c.want);
      for (const e of v.compileErrors) assert.ok(v.errors.includes(e));
    });
  }
});
