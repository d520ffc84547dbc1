#!/usr/bin/env node
// Fails when the work tree holds what a merge or a patch leaves behind (`*.orig`, `*.rej`, and the
// `name_BASE_1234.ts`-style copies `git mergetool` makes), tracked or about to be: such a file once
// reached a commit. Run by `npm run lint`, so `npm test` and CI refuse it.
import { spawnSync } from "node:child_process";

const STRAY = /(\.(orig|rej)|_(BACKUP|BASE|LOCAL|REMOTE)_\d+(\.[^/]*)?)$/;

const r = spawnSync("git", ["ls-files", "--cached", "--others", "--exclude-standard"], { encoding: "utf8" });
if (r.status !== 0) {
  console.error(`check-tree: git ls-files failed: ${r.stderr || r.error}`);
  process.exit(1);
}
const stray = r.stdout.split("\n").filter((f) => f !== "" && STRAY.test(f));
if (stray.length > 0) {
  console.error(`check-tree: merge or patch leftovers in the tree; delete them:\n  ${stray.join("\n  ")}`);
  process.exit(1);
}
