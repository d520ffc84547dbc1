import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { HttpProbe } from "../../model/config.js";
import { bodyFindings, v8Regexp } from "./body-match.js";

const probe = (extra: Partial<HttpProbe>): HttpProbe => ({ type: "http", url: "http://x/", ...extra });
const BODY = "<html><title>Status: all good</title>\nbuild 1234\n</html>";

describe("body expectations", () => {
  /** [pattern, matched by V8, found in BODY]. */
  const table: [string, boolean, boolean][] = [
    ["all good", true, true],
    ["build [0-9]{4}", true, true],
    ["build \\d+$", true, false], // $ is the end of the text in RE2, not of a line
    ["(?m)build \\d+$", false, true],
    ["(?i)STATUS: ALL GOOD", true, true],
    ["(?i)status: bad", true, false],
    ["[[:alpha:]]+: all good", false, true],
    ["\\pL+: nothing", false, false],
    ["(?s)title>.*build", false, true],
    ["title>.*build", true, false], // . does not cross a newline without (?s)
    ["(?P<word>good)", false, true],
  ];
  for (const [pattern, v8, found] of table) {
    it(`${pattern} (${v8 ? "V8" : "re2js on a worker"})`, async () => {
      assert.equal(v8Regexp(pattern) !== null, v8);
      const v = await bodyFindings(probe({ expectBodyRegex: pattern }), BODY, AbortSignal.timeout(10_000));
      assert.deepEqual(v, {
        aborted: false,
        missing: found ? [] : [`body does not match ${JSON.stringify(pattern)}`],
      });
    });
  }

  it("both expectations are reported", async () => {
    const v = await bodyFindings(
      probe({ expectBody: "bad", expectBodyRegex: "[[:digit:]]{5}" }),
      BODY,
      AbortSignal.timeout(10_000),
    );
    assert.deepEqual(v, {
      aborted: false,
      missing: ['body does not contain "bad"', 'body does not match "[[:digit:]]{5}"'],
    });
  });

  it("a worker match stops when the signal aborts", async () => {
    const big = "x".repeat(1 << 20);
    const start = performance.now();
    const v = await bodyFindings(probe({ expectBodyRegex: "[[:alpha:]]+y" }), big, AbortSignal.timeout(20));
    assert.deepEqual(v, { aborted: true });
    assert.ok(performance.now() - start < 1_000, "settled promptly");
  });
});
