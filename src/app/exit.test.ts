import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { MAIN_JS } from "../testing/server-process.js";

const dir = mkdtempSync(join(tmpdir(), "lookout-exit-"));
after(() => rmSync(dir, { recursive: true, force: true }));

/** A CUE document whose export is about 1.5 MB of JSON. */
function bigData(): string {
  const lines = ["items: {"];
  for (let i = 0; i < 25_000; i++) lines.push(`\tk${i}: {name: "item-${i}", note: "${"x".repeat(24)}"}`);
  lines.push("}");
  return `${lines.join("\n")}\n`;
}

/**
 * A configuration with 25,000 mistakes: the loader returns its first 1,000 diagnostics (about
 * 100 KB, more than a pipe holds).
 */
function badConfig(): string {
  const lines = ["hosts: {"];
  for (let i = 0; i < 25_000; i++) lines.push(`\th${i}: {address: "", check: {type: "tcp", address: "a:1"}}`);
  lines.push("}");
  return `${lines.join("\n")}\n`;
}

const cases = [
  { name: "cue export", document: bigData, args: (f: string) => ["cue", "export", f], least: 1_000_000 },
  { name: "validate", document: badConfig, args: (f: string) => ["validate", f], least: 80_000 },
];

describe("output through a pipe", () => {
  for (const c of cases) {
    const file = join(dir, `${c.name.replace(" ", "-")}.cue`);
    writeFileSync(file, c.document());
    it(`${c.name}: the whole output reaches a real pipe, as it reaches a file`, () => {
      const direct = join(dir, `${c.name.replace(" ", "-")}.direct`);
      const piped = join(dir, `${c.name.replace(" ", "-")}.piped`);
      const argv = c
        .args(file)
        .map((a) => `'${a}'`)
        .join(" ");
      // sh's `|` is a pipe(2); `cat` reads slowly enough that most of the output is still queued
      // in the process when it is done.
      const sh = (cmd: string) =>
        execFileSync("/bin/sh", ["-c", cmd], { encoding: "utf8", maxBuffer: 64 << 20 }).trim();
      const codeDirect = sh(`'${process.execPath}' '${MAIN_JS}' ${argv} > '${direct}' 2>&1; echo $?`);
      sh(`'${process.execPath}' '${MAIN_JS}' ${argv} 2>&1 | (sleep 0.3; cat > '${piped}')`);
      const a = readFileSync(direct);
      const b = readFileSync(piped);
      // Well over the 64 KiB a pipe holds, so that most of it is still queued in the process.
      assert.ok(
        a.length > c.least,
        `more than ${c.least} bytes of output (${a.length} bytes, exit ${codeDirect})`,
      );
      assert.equal(b.length, a.length, "the piped output is as long as the file's");
      assert.ok(b.equals(a), "and the same bytes");
    });
  }
});
