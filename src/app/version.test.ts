import assert from "node:assert/strict";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { resolveVersion } from "./version.js";

test("resolveVersion reports a release only for a well-formed stamp", async () => {
  const dir = await mkdtemp(join(tmpdir(), "lookout-version-"));
  try {
    const cases: [string | undefined, string][] = [
      [undefined, "dev"],
      ["v1.2.3\n", "v1.2.3"],
      ["v10.0.12", "v10.0.12"],
      ["", "dev"],
      ["1.2.3", "dev"],
      ["v1.2", "dev"],
      ["v1.2.3-rc1", "dev"],
      ["v1.2.3\nextra", "dev"],
    ];
    for (const [i, [content, want]] of cases.entries()) {
      const f = join(dir, `VERSION${i}`);
      if (content !== undefined) await writeFile(f, content);
      assert.equal(resolveVersion(f), want, JSON.stringify(content));
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
