import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { runScenario } from "./runner.js";

// Tests run from dist/; the scenario files stay in src/.
const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, "..", "..", "..", "..");
const dir = join(root, "src", "engine", "testdata");
const files = readdirSync(dir)
  .filter((f) => f.endsWith(".txt"))
  .sort();

test("there are scenario files", () => {
  assert.ok(files.length >= 25, `only ${files.length} scenario files in ${dir}`);
});

for (const f of files) {
  test(`scenario ${f}`, () => {
    const path = join(dir, f);
    const failures = runScenario(readFileSync(path, "utf8"));
    const where = relative(root, path);
    assert.equal(failures.length, 0, failures.map((x) => `${where}:${x.line}: ${x.message}`).join("\n"));
  });
}
