import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { conflict } from "./meet.js";
import { bottom, type Value } from "./values.js";

const int = (v: bigint): Value => ({ t: "int", v });
const str = (v: string): Value => ({ t: "string", v });
const float = (v: number, text: string): Value => ({ t: "float", v, text });

/** The message of `conflict(a, b)`. */
const text = (a: Value, b: Value): string => {
  const r = conflict(a, b);
  assert.equal(r.t, "bottom");
  return r.t === "bottom" ? r.err.message : "";
};

// A conflict's text is made once for the same two values and reused (every instance of a template
// meets them again): a value that only looks alike must still get its own text.
describe("conflict messages reused across equal values", () => {
  const shared = str("10s");
  const rows: { name: string; a: Value; b: Value; want: string }[] = [
    {
      name: "first",
      a: shared,
      b: int(5n),
      want: 'conflicting values "10s" and 5 (mismatched types string and int)',
    },
    {
      name: "an equal int, another object",
      a: shared,
      b: int(5n),
      want: 'conflicting values "10s" and 5 (mismatched types string and int)',
    },
    {
      name: "another int",
      a: shared,
      b: int(6n),
      want: 'conflicting values "10s" and 6 (mismatched types string and int)',
    },
    { name: "a string", a: shared, b: str("5"), want: 'conflicting values "10s" and "5"' },
    { name: "an equal string", a: shared, b: str("5"), want: 'conflicting values "10s" and "5"' },
    {
      name: "a float spelled otherwise",
      a: shared,
      b: float(5, "5.0"),
      want: 'conflicting values "10s" and 5.0 (mismatched types string and float)',
    },
    {
      name: "the same value, spelled 5.00",
      a: shared,
      b: float(5, "5.00"),
      want: 'conflicting values "10s" and 5.00 (mismatched types string and float)',
    },
    {
      name: "null",
      a: shared,
      b: { t: "null" },
      want: 'conflicting values "10s" and null (mismatched types string and null)',
    },
    {
      name: "back to the int",
      a: shared,
      b: int(5n),
      want: 'conflicting values "10s" and 5 (mismatched types string and int)',
    },
  ];
  for (const r of rows) {
    it(r.name, () => {
      assert.equal(text(r.a, r.b), r.want);
    });
  }
  it("a bottom operand is no atom", () => {
    assert.match(text(shared, bottom("eval", "x")), /^conflicting values "10s" and /);
  });
});
