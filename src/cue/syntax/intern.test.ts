import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { createInterner, hashChar, hashSeed } from "./intern.js";

function hashOf(text: string, start: number, end: number): number {
  let h = hashSeed;
  for (let i = start; i < end; i++) h = hashChar(h, text.charCodeAt(i));
  return h;
}

describe("interner", () => {
  // Each text is looked up at both of its occurrences (the second hits the table, unless the text
  // is too long to be interned), with and without a precomputed hash: always the sliced text.
  const cases: [string, string, string][] = [
    ["identifier", "check: check", "check"],
    ["empty", "ab", ""],
    ["non-ASCII", "αβγ+αβγ", "αβγ"],
    ["prefix of another entry", "type types type", "type"],
    ["longest interned", `${"x".repeat(48)}-${"x".repeat(48)}`, "x".repeat(48)],
    ["too long to intern", `${"y".repeat(49)}-${"y".repeat(49)}`, "y".repeat(49)],
  ];
  for (const [name, text, word] of cases) {
    it(name, () => {
      const t = createInterner();
      const first = text.indexOf(word);
      const second = text.lastIndexOf(word);
      for (const at of [first, second, first]) {
        const end = at + word.length;
        assert.equal(t.intern(text, at, end), word);
        assert.equal(t.internHashed(text, at, end, hashOf(text, at, end)), word);
      }
    });
  }

  it("keeps every string through table growth", () => {
    const t = createInterner();
    const words = Array.from({ length: 5000 }, (_, i) => `w${i}`);
    const text = words.join(" ");
    for (let pass = 0; pass < 2; pass++) {
      let at = 0;
      for (const w of words) {
        assert.equal(t.intern(text, at, at + w.length), w);
        at += w.length + 1;
      }
    }
  });
});
