import assert from "node:assert/strict";
import { test } from "node:test";
import { formatDuration } from "./format-duration.js";
import { parseDuration } from "./scenario/tokens.js";

test("formatDuration", () => {
  const cases: [number, string][] = [
    [0, "0ms"],
    [750, "750ms"],
    [1000, "1s"],
    [5 * 60_000, "5m"],
    [5 * 60_000 + 12_000, "5m12s"],
    [3_600_000 + 5000, "1h5s"],
    [86_400_000 + 3 * 3_600_000, "1d3h"],
    [61_999, "1m1s"],
  ];
  for (const [ms, want] of cases) assert.equal(formatDuration(ms), want, `${ms} ms`);
});

test("parseDuration", () => {
  const cases: [string, number | Error][] = [
    ["0", 0],
    ["90s", 90_000],
    ["5m12s", 312_000],
    ["1h30m", 5_400_000],
    ["250ms", 250],
    ["1d", 86_400_000],
    ["5", new Error("bad duration")],
    ["5m x", new Error("bad duration")],
    ["", new Error("bad duration")],
  ];
  for (const [text, want] of cases) {
    if (want instanceof Error) assert.throws(() => parseDuration(text), /bad duration/, text);
    else assert.equal(parseDuration(text), want, text);
  }
});
