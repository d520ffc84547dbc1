#!/usr/bin/env node
// Builds lookout-spawn-helper (src/checks/process/spawn-helper.c) with the machine's C compiler into
// dist/, beside the module that starts it. `npm run build` runs this after tsc. Without a compiler
// it says so and exits 0: Lookout then starts plugins from its own process (same contract, slower).
// `--if-stale` rebuilds only when the binary is missing or older than its source (tests use it).
import { spawnSync } from "node:child_process";
import { mkdirSync, statSync } from "node:fs";
import { dirname } from "node:path";

const src = "src/checks/process/spawn-helper.c";
const out = "dist/src/checks/process/lookout-spawn-helper";
const mtime = (p) => {
  try {
    return statSync(p).mtimeMs;
  } catch {
    return -1;
  }
};
if (process.argv.includes("--if-stale") && mtime(out) >= mtime(src)) process.exit(0);
mkdirSync(dirname(out), { recursive: true });
const cc = process.env.CC || "cc";
const r = spawnSync(cc, ["-O2", "-Wall", "-Wextra", "-o", out, src], { stdio: "inherit" });
if (r.error !== undefined || r.status !== 0) {
  console.error(
    `build-spawn-helper: ${cc} failed (${r.error?.message ?? `exit ${r.status}`}); plugins will be started from Lookout's own process`,
  );
}
