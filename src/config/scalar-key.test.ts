import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { scalarKey } from "./scalar-key.js";

describe("scalarKey", () => {
  // [value, its key]: equal scalars key equal, different ones (even "1" and 1, -0 and 0) never do.
  const cases: [unknown, string | undefined][] = [
    ["1", '"1"'],
    [1, "n1"],
    [0, "n0"],
    [-0, "n-0"],
    [true, "t"],
    [false, "f"],
    [undefined, "u"],
    [null, "z"],
    ['a"b', '"a\\"b"'],
    [{}, undefined],
    [[], undefined],
    [10n, undefined],
  ];
  for (const [v, key] of cases) {
    it(`${typeof v} ${String(v)}`, () => assert.equal(scalarKey(v), key));
  }
  it("no two different scalars share a key", () => {
    const keys = cases.filter(([, k]) => k !== undefined).map(([, k]) => k);
    assert.equal(new Set(keys).size, keys.length);
  });
});
