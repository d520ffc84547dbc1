#!/usr/bin/env node
// Runs every compiled test (dist/**/*.test.js) with node's test runner. Arguments narrow the set to
// files whose path contains one of them: `node scripts/run-tests.mjs cue/ engine/`.
import { spawnSync } from "node:child_process";
import { readdirSync } from "node:fs";
import { join } from "node:path";

function walk(dir, out) {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) walk(p, out);
    else if (e.name.endsWith(".test.js")) out.push(p);
  }
  return out;
}

const filters = process.argv.slice(2);
const files = walk("dist", [])
  .filter((f) => filters.length === 0 || filters.some((x) => f.includes(x)))
  .sort();
if (files.length === 0) {
  console.error("no test files matched");
  process.exit(1);
}
const r = spawnSync(process.execPath, ["--test", "--test-concurrency=2", "--test-reporter=spec", ...files], {
  stdio: "inherit",
});
process.exit(r.status ?? 1);
