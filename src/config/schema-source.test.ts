import assert from "node:assert/strict";
import { join } from "node:path";
import { describe, it } from "node:test";
import { pathToFileURL } from "node:url";
import { compile } from "../cue/index.js";
import { readSchemaFor, SCHEMA_FILE_NAME, schemaSource } from "./schema-source.js";
import { repoRoot } from "./testing/repo-root.js";

describe("schemaSource", () => {
  const root = repoRoot();
  const want = join(root, "src/config/schema.cue");
  /** [where the loader module runs from, expected schema path]. */
  const cases: [string, string][] = [
    ["src/config/schema-source.ts", want],
    ["dist/src/config/schema-source.js", want],
  ];
  for (const [module, path] of cases) {
    it(`finds schema.cue from ${module}`, () => {
      const r = readSchemaFor(pathToFileURL(join(root, module)));
      assert.equal(r.path, path);
      assert.match(r.text, /^#Schema: \{/m);
    });
  }
  it("says where it looked when schema.cue is missing", () => {
    assert.throws(
      () => readSchemaFor(pathToFileURL("/nonexistent/a/b/c/x.js")),
      /schema\.cue not found.*\/nonexistent/,
    );
  });
  it("the shipped schema evaluates without errors (the loader checks only its syntax)", () => {
    assert.deepEqual(compile([{ name: SCHEMA_FILE_NAME, text: schemaSource().text }]).errors, []);
  });
  it("reads the shipped schema once", () => {
    assert.equal(schemaSource(), schemaSource());
  });
});
