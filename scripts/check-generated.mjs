#!/usr/bin/env node
// Regenerates src/api/gen from proto/ and fails when the committed output differs: generated code
// is committed so that a reader sees it, and this check keeps it honest. Also runs `buf lint`.
import { spawnSync } from "node:child_process";

function run(cmd, args) {
  const r = spawnSync(cmd, args, { stdio: "inherit" });
  if (r.status !== 0) process.exit(r.status ?? 1);
}
run("npx", ["buf", "lint"]);
run("npx", ["buf", "generate"]);
const diff = spawnSync("git", ["status", "--porcelain", "--", "src/api/gen"], { encoding: "utf8" });
if (diff.stdout.trim() !== "") {
  console.error(
    "generated code in src/api/gen is out of date; run `npm run generate` and commit:\n" + diff.stdout,
  );
  process.exit(1);
}
