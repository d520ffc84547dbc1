import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { runScenario } from "../engine/scenario/index.js";
import { createNotifyScenario } from "./notify-scenario.js";

// Tests run from dist/; the scenario files stay in src/.
const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, "..", "..", "..");
const dir = join(root, "src", "notify", "testdata");
const files = readdirSync(dir)
  .filter((f) => f.endsWith(".txt"))
  .sort();

test("there are notification scenario files", () => {
  assert.ok(files.length >= 10, `only ${files.length} scenario files in ${dir}`);
});

for (const f of files) {
  test(`notify scenario ${f}`, () => {
    const path = join(dir, f);
    const failures = runScenario(readFileSync(path, "utf8"), [createNotifyScenario()]);
    const where = relative(root, path);
    assert.equal(failures.length, 0, failures.map((x) => `${where}:${x.line}: ${x.message}`).join("\n"));
  });
}
