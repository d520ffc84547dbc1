import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { parseDurationMs } from "./duration.js";
import { DURATION_PATTERN } from "./patterns.js";

/** [text, milliseconds or undefined when invalid]. */
const cases: [string, number | undefined][] = [
  ["0", 0],
  ["60s", 60_000],
  ["15s", 15_000],
  ["1h", 3_600_000],
  ["336h", 336 * 3_600_000],
  ["1h30m", 5_400_000],
  ["1.5s", 1500],
  [".5s", 500],
  ["1.s", 1000],
  ["250ms", 250],
  ["500us", 0.5],
  ["500µs", 0.5],
  ["1000000ns", 1],
  ["-5s", -5000],
  ["+5s", 5000],
  ["1m0s", 60_000],
  ["", undefined],
  ["5", undefined],
  ["s", undefined],
  [".s", undefined],
  ["5d", undefined],
  ["5 s", undefined],
  ["5s ", undefined],
  ["1h-5m", undefined],
  ["--5s", undefined],
  ["9999999999h", undefined],
];

describe("parseDurationMs", () => {
  for (const [text, want] of cases) {
    it(`${JSON.stringify(text)} → ${want}`, () => {
      assert.equal(parseDurationMs(text), want);
    });
  }
  it("agrees with the schema's duration pattern on syntax", () => {
    for (const [text, want] of cases) {
      if (text === "9999999999h") continue; // syntactically fine, out of range
      assert.equal(DURATION_PATTERN.test(text), want !== undefined, text);
    }
  });
});
