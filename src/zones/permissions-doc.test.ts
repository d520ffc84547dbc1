import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { workerPermissions } from "./permissions.js";

test("docs/zones.md shows z1's permissions as workerPermissions makes them (what the server test runs)", () => {
  const doc = readFileSync("docs/zones.md", "utf8");
  const block =
    /\{user: w-z1,[\s\S]*?publish: \{allow: \[([\s\S]*?)\]\}\s*subscribe: \{allow: \[([^\]]*)\]\}/.exec(doc);
  assert.ok(block !== null, "the z1 user's block");
  const list = (s: string | undefined) => [...(s ?? "").matchAll(/"([^"]+)"/g)].map((m) => m[1]);
  const p = workerPermissions("z1");
  assert.deepEqual(list(block[1]), p.publish);
  assert.deepEqual(list(block[2]), p.subscribe);
});
