import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import type { PerfDatum } from "../model/check-result.js";
import { formatPerfdata, parsePerfdata } from "./perfdata.js";
import { parsePluginOutput } from "./plugin-output.js";

// Labels: any printable text without a bar or a line break (those end perfdata or a line).
const label = fc.string({ minLength: 1, maxLength: 12, unit: fc.constantFrom(..."ab Z_/'=\"-.:%~@é漢") });
// -0 prints as 0, which is the same number for any consumer of perfdata.
const finite = fc
  .double({ noNaN: true, noDefaultInfinity: true, min: -1e12, max: 1e12 })
  .map((v) => (Object.is(v, -0) ? 0 : v));
const uom = fc.constantFrom("", "s", "ms", "us", "%", "B", "KB", "MB", "GB", "TB", "c", "dBm");
const range = fc.constantFrom("", "10", "10:", "~:10", "10:20", "@10:20", "-1.5:2.5");
const datum = fc
  .record({
    label,
    value: finite,
    uom,
    warn: range,
    crit: range,
    min: fc.option(finite),
    max: fc.option(finite),
  })
  .map(
    ({ min, max, ...d }): PerfDatum => ({
      ...d,
      ...(min === null ? {} : { min }),
      ...(max === null ? {} : { max }),
    }),
  );

describe("perfdata properties", () => {
  it("parse(format(points)) gives the points back", () => {
    fc.assert(
      fc.property(fc.array(datum, { maxLength: 6 }), (points) => {
        const text = formatPerfdata(points);
        // Labels made only of blanks are quoted; trailing blanks of a value part cannot exist.
        assert.deepEqual(parsePerfdata(text), points, text);
      }),
      { numRuns: 500 },
    );
  });

  it("points survive the trip through plugin output on the first and later lines", () => {
    fc.assert(
      fc.property(fc.array(datum, { maxLength: 4 }), fc.array(datum, { maxLength: 4 }), (first, later) => {
        const text = `OK - fine | ${formatPerfdata(first)}\nlong line\nmore | ${formatPerfdata(later)}\n`;
        const got = parsePluginOutput(text);
        assert.equal(got.output, "OK - fine");
        assert.equal(got.longOutput, "long line\nmore");
        assert.deepEqual(got.perfdata, [...first, ...later]);
      }),
      { numRuns: 300 },
    );
  });

  it("never throws and only yields finite values, whatever the text", () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 200 }), (text) => {
        for (const d of parsePluginOutput(text).perfdata) assert.ok(Number.isFinite(d.value));
      }),
      { numRuns: 1000 },
    );
  });
});
