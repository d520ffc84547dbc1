import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { parseRange, RangeSyntaxError } from "./range.js";

// The examples table of the monitoring-plugins development guidelines ("Threshold and ranges"),
// plus decimals and negatives. Each value is [value, alerts?].
const cases: { range: string; start: number; end: number; inside: boolean; values: [number, boolean][] }[] = [
  // "10": alert if < 0 or > 10 (outside the range of {0 .. 10})
  {
    range: "10",
    start: 0,
    end: 10,
    inside: false,
    values: [
      [-1, true],
      [0, false],
      [10, false],
      [10.1, true],
      [5, false],
    ],
  },
  // "10:": alert if < 10 (outside {10 .. ∞})
  {
    range: "10:",
    start: 10,
    end: Infinity,
    inside: false,
    values: [
      [9.99, true],
      [10, false],
      [1e9, false],
    ],
  },
  // "~:10": alert if > 10 (outside the range of {-∞ .. 10})
  {
    range: "~:10",
    start: -Infinity,
    end: 10,
    inside: false,
    values: [
      [-1e9, false],
      [10, false],
      [11, true],
    ],
  },
  // "10:20": alert if < 10 or > 20 (outside the range of {10 .. 20})
  {
    range: "10:20",
    start: 10,
    end: 20,
    inside: false,
    values: [
      [9, true],
      [10, false],
      [15, false],
      [20, false],
      [21, true],
    ],
  },
  // "@10:20": alert if >= 10 and <= 20 (inside the range of {10 .. 20})
  {
    range: "@10:20",
    start: 10,
    end: 20,
    inside: true,
    values: [
      [9, false],
      [10, true],
      [15, true],
      [20, true],
      [21, false],
    ],
  },
  // Decimals and negatives.
  {
    range: "0.5:1.5",
    start: 0.5,
    end: 1.5,
    inside: false,
    values: [
      [0.49, true],
      [0.5, false],
      [1.5, false],
      [1.51, true],
    ],
  },
  {
    range: "-10:-5",
    start: -10,
    end: -5,
    inside: false,
    values: [
      [-11, true],
      [-10, false],
      [-5, false],
      [0, true],
    ],
  },
  {
    range: "@-1.5:2.5",
    start: -1.5,
    end: 2.5,
    inside: true,
    values: [
      [-2, false],
      [0, true],
      [2.5, true],
      [3, false],
    ],
  },
  {
    range: "~:-3",
    start: -Infinity,
    end: -3,
    inside: false,
    values: [
      [-4, false],
      [-2.9, true],
    ],
  },
  {
    range: "-5:",
    start: -5,
    end: Infinity,
    inside: false,
    values: [
      [-6, true],
      [100, false],
    ],
  },
  // An empty start is 0, as strtod gives in monitoring-plugins.
  {
    range: ":10",
    start: 0,
    end: 10,
    inside: false,
    values: [
      [-1, true],
      [3, false],
    ],
  },
  {
    range: "@~:0",
    start: -Infinity,
    end: 0,
    inside: true,
    values: [
      [-1, true],
      [0, true],
      [1, false],
    ],
  },
  {
    range: " 1e3 ",
    start: 0,
    end: 1000,
    inside: false,
    values: [
      [1000, false],
      [1001, true],
    ],
  },
  {
    range: "~:",
    start: -Infinity,
    end: Infinity,
    inside: false,
    values: [
      [-1e300, false],
      [1e300, false],
    ],
  },
];

describe("parseRange", () => {
  for (const c of cases) {
    it(`parses ${JSON.stringify(c.range)}`, () => {
      const r = parseRange(c.range);
      assert.equal(r.start, c.start);
      assert.equal(r.end, c.end);
      assert.equal(r.inside, c.inside);
      assert.equal(r.text, c.range.trim());
      for (const [v, want] of c.values) assert.equal(r.alerts(v), want, `${c.range} alerts(${v})`);
    });
  }

  const bad = ["", "@", "abc", "10:5", "1:2:3", "~", "10x", "@20:10", "1..2", "--1"];
  for (const text of bad) {
    it(`rejects ${JSON.stringify(text)}`, () => {
      assert.throws(() => parseRange(text), RangeSyntaxError);
    });
  }

  it("treats NaN as alerting", () => {
    assert.equal(parseRange("10").alerts(Number.NaN), true);
  });
});
