import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { readSilentCeiling, silentVerdict } from "./silent-gate.js";

const MAIN = fileURLToPath(new URL("./main.js", import.meta.url));
const dir = mkdtempSync(join(tmpdir(), "lookout-silent-gate-"));
after(() => rmSync(dir, { recursive: true, force: true }));

/**
 * A corpus of one archive with one silent wrong answer (`a` is 1, the assertion says 2, the engine
 * reports no error), one right answer, and one wrong answer that is not silent (an error with
 * another message).
 */
const corpus = join(dir, "corpus");
mkdirSync(join(corpus, "gate"), { recursive: true });
writeFileSync(
  join(corpus, "gate", "one.txtar"),
  [
    "-- in.cue --",
    "a: 1 @test(eq, 2)",
    "b: 3 @test(eq, 3)",
    'c: 1 & 2 @test(err, code=eval, contains="no such message")',
    "",
  ].join("\n"),
);

function ceilingFile(name: string, text: string): string {
  const f = join(dir, name);
  writeFileSync(f, text);
  return f;
}

function runGate(...args: string[]): { code: number | null; out: string; err: string } {
  const r = spawnSync(process.execPath, [MAIN, corpus, ...args], { encoding: "utf8", timeout: 120_000 });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

describe("conformance runner: the silent wrong answers gate", () => {
  it("reports without gating when no ceiling is given", () => {
    const r = runGate();
    assert.equal(r.code, 0, r.err);
    assert.match(r.out, /gate: 1 passed \/ 2 failed \/ 0 unsupported \/ 1 silently wrong/);
  });

  const cases: { name: string; file: () => string; code: number; says: RegExp }[] = [
    {
      name: "above the ceiling fails",
      file: () => ceilingFile("zero", "0\n"),
      code: 1,
      says: /FAIL: 1 silently wrong answers, more than the ceiling of 0/,
    },
    {
      name: "at the ceiling passes",
      file: () => ceilingFile("one", "# comment\n1\n"),
      code: 0,
      says: /ok: 1 silently wrong answers, the ceiling/,
    },
    {
      name: "below the ceiling passes and says so",
      file: () => ceilingFile("five", "5"),
      code: 0,
      says: /below the ceiling of 5 .* \(lower it to 1\)/,
    },
    {
      name: "an unreadable ceiling fails",
      file: () => join(dir, "absent"),
      code: 1,
      says: /cannot read .*absent: ENOENT/,
    },
    {
      name: "a ceiling that is not a number fails",
      file: () => ceilingFile("junk", "sixty\n"),
      code: 1,
      says: /must hold one non-negative integer, not "sixty"/,
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const r = runGate("--silent-ceiling", c.file());
      assert.equal(r.code, c.code, `${r.out}\n${r.err}`);
      assert.match(r.out + r.err, c.says);
    });
  }
});

describe("silent gate: reading the ceiling and the verdict", () => {
  it("reads one integer, comments aside", () => {
    assert.equal(readSilentCeiling(ceilingFile("c1", "# the ceiling\n\n 65 \n")), 65);
    assert.match(String(readSilentCeiling(ceilingFile("c2", "1\n2\n"))), /one non-negative integer/);
    assert.match(String(readSilentCeiling(ceilingFile("c3", "-1\n"))), /one non-negative integer/);
  });
  it("the checked-in ceiling CI uses is readable", () => {
    const file = fileURLToPath(new URL("../../../../.ci/cue-silent-ceiling", import.meta.url));
    assert.equal(typeof readSilentCeiling(file), "number", String(readSilentCeiling(file)));
  });
  it("fails only above the ceiling", () => {
    assert.equal(silentVerdict(3, 2, "f").ok, false);
    assert.equal(silentVerdict(2, 2, "f").ok, true);
    assert.equal(silentVerdict(0, 2, "f").ok, true);
  });
});
