import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { unifiedDiff } from "./text-diff.js";

const dir = mkdtempSync(join(tmpdir(), "lookout-text-diff-"));
after(() => rmSync(dir, { recursive: true, force: true }));

const lines = (n: number, f: (i: number) => string) =>
  Array.from({ length: n }, (_, i) => `${f(i)}\n`).join("");

/** Each pair's diff, applied by GNU patch to the first text, must give the second. */
const PAIRS: { name: string; from: string; to: string }[] = [
  { name: "one line changed", from: "a\nb\nc\n", to: "a\nB\nc\n" },
  { name: "from empty", from: "", to: "a\nb\n" },
  { name: "to empty", from: "a\nb\n", to: "" },
  { name: "no newline at the end", from: "a\nb", to: "a\nb\n" },
  { name: "no newline on either side, last line changed", from: "a\nb", to: "a\nc" },
  {
    name: "two changes far apart: two hunks",
    from: lines(40, (i) => `line ${i}`),
    to: lines(40, (i) => (i === 3 ? "three" : i === 30 ? "thirty" : `line ${i}`)),
  },
  {
    name: "insertions and deletions interleaved",
    from: lines(30, (i) => `x${i}`),
    to: lines(30, (i) => (i % 7 === 0 ? `y${i}` : `x${i}`)).replace("x5\n", "") + "tail\n",
  },
  {
    name: "rewritten wholesale (past the edit bound)",
    from: lines(2_500, (i) => `old ${i}`),
    to: lines(2_500, (i) => `new ${i}`),
  },
];

describe("unifiedDiff", () => {
  test("equal documents: no diff", () => {
    assert.equal(unifiedDiff("a\n", "a\n", { from: "v1", to: "v2" }), "");
  });

  test("the form of diff -u", () => {
    assert.equal(
      unifiedDiff("a\nb\nc\nd\ne\n", "a\nb\nC\nd\ne\n", { from: "v1", to: "v2" }),
      "--- v1\n+++ v2\n@@ -1,5 +1,5 @@\n a\n b\n-c\n+C\n d\n e\n",
    );
    assert.equal(
      unifiedDiff("a", "b", { from: "v1", to: "v2" }),
      "--- v1\n+++ v2\n@@ -1 +1 @@\n-a\n\\ No newline at end of file\n+b\n\\ No newline at end of file\n",
    );
  });

  for (const p of PAIRS) {
    test(`GNU patch applies it: ${p.name}`, () => {
      const file = join(dir, "doc.cue");
      writeFileSync(file, p.from);
      const diff = unifiedDiff(p.from, p.to, { from: "v1", to: "v2" });
      writeFileSync(join(dir, "doc.patch"), diff);
      execFileSync("patch", ["--quiet", "--force", file, join(dir, "doc.patch")]);
      assert.equal(readFileSync(file, "utf8"), p.to);
    });
  }
});
