import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { RE2JS } from "re2js";
import { matchRegexp, nativeRegexp } from "./regex.js";

// Patterns and inputs where RE2 and a careless JavaScript translation would disagree, and the
// patterns the configuration schema uses. Each pair must match exactly as re2js does.
const patterns: { p: string; native: boolean }[] = [
  { p: "^[a-z][a-z0-9_.-]*$", native: true },
  { p: "^[a-zA-Z0-9][a-zA-Z0-9_.:/-]*$", native: true },
  { p: "^(\\[[^\\]\\s]+\\]|[^\\s:[\\]]+):[0-9]{1,5}$", native: true },
  { p: "^[a[]+$", native: true },
  { p: "^[-+]?(0|(([0-9]+(\\.[0-9]*)?|\\.[0-9]+)(ns|us|µs|μs|ms|s|m|h))+)$", native: true },
  { p: "^([01][0-9]|2[0-3]):[0-5][0-9]$", native: true },
  { p: "^https?://", native: true },
  { p: "^.$", native: true },
  { p: "a.b", native: true },
  { p: "^\\s+$", native: true },
  { p: "^\\S+$", native: true },
  { p: "^[\\s]$", native: true },
  { p: "^[]a]+$", native: true },
  { p: "^[^]a]+$", native: true },
  { p: "x{2,3}", native: true },
  { p: "(?i)abc", native: false },
  { p: "\\bfoo\\b", native: false },
  { p: "\\pL+", native: false },
  { p: "[[:alpha:]]+", native: false },
  { p: "\\x41", native: false },
  { p: "a]", native: false },
];
const inputs = [
  "",
  "a",
  "ab",
  "a\nb",
  "a\rb",
  "a\u2028b",
  "\u00a0",
  " ",
  "\t\n",
  "😀",
  "x",
  "xx",
  "xxxx",
  "]",
  "a]",
  "A",
  "abc",
  "ABC",
  "foo bar",
  "10s",
  "1h30m",
  "-1.5ms",
  "0",
  "23:59",
  "24:00",
  "https://x",
  "127.0.0.1:80",
  "[::1]:9",
  "host:123456",
  "web-1.example",
  "Zz9_.:/-",
];

describe("regular expressions", () => {
  for (const { p, native } of patterns) {
    it(p, () => {
      assert.equal(nativeRegexp(p) !== null, native, "matched natively");
      const re = RE2JS.compile(p);
      for (const s of inputs) assert.equal(matchRegexp(p, s), re.matcher(s).find(), JSON.stringify(s));
    });
  }

  it("an invalid pattern is an error, never a native regexp", () => {
    assert.equal(nativeRegexp("a**"), null);
    assert.equal(nativeRegexp("a{1001}"), null);
    const big = matchRegexp("a{1001}", "a");
    assert.equal(typeof big === "object" && big.t === "bottom", true);
    const r = matchRegexp("(", "x");
    assert.equal(typeof r === "object" && r.t === "bottom", true);
  });
});
