#!/usr/bin/env node
// Runs every compiled test (dist/**/*.test.js) with node's test runner. Arguments narrow the set to
// files whose path contains one of them: `node scripts/run-tests.mjs cue/ engine/`.
import { spawn } from "node:child_process";
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
// No test may hang the suite: one test gets at most LOOKOUT_TEST_TIMEOUT_MIN minutes (default 10;
// the longest take ~100 s on a quiet machine; the fault suite's long mode sets more), a file whose
// tests are done exits even if something it started still holds the event loop, and the whole run
// is stopped after LOOKOUT_TEST_WATCHDOG_MIN minutes (default 40; CI gives both legs 90 in all).
const TEST_TIMEOUT_MS = Number(process.env.LOOKOUT_TEST_TIMEOUT_MIN ?? 10) * 60_000;
const watchdogMin = Number(process.env.LOOKOUT_TEST_WATCHDOG_MIN ?? 40);
const args = [
  "--test",
  "--test-concurrency=2",
  `--test-timeout=${TEST_TIMEOUT_MS}`,
  "--test-force-exit",
  "--test-reporter=spec",
  ...files,
];
const started = Date.now();
// The runner leads a process group of its own: the test files and every process they start (servers,
// peers, browsers) are in it, so the watchdog or an interrupt stops all of them, not just the runner
// (whose children would otherwise live on as orphans holding ports and CPU).
const child = spawn(process.execPath, args, { stdio: "inherit", detached: true });
const killGroup = (signal) => {
  try {
    process.kill(-child.pid, signal);
  } catch {
    // Already gone.
  }
};
let stoppedBy;
const watchdog = setTimeout(() => {
  stoppedBy = `watchdog after ${Math.round((Date.now() - started) / 1000)} s`;
  killGroup("SIGKILL");
}, watchdogMin * 60_000);
for (const sig of ["SIGINT", "SIGTERM"]) {
  process.on(sig, () => {
    stoppedBy = sig;
    killGroup("SIGTERM");
    setTimeout(() => killGroup("SIGKILL"), 5_000).unref();
  });
}
const [code, signal] = await new Promise((resolve, reject) => {
  child.on("error", reject);
  child.on("exit", (c, s) => resolve([c, s]));
});
clearTimeout(watchdog);
// Whatever the outcome, nothing the suite started outlives it.
killGroup("SIGKILL");
if (stoppedBy !== undefined || signal !== null) {
  console.error(
    `run-tests: the suite did not finish within ${watchdogMin} min (${Math.round((Date.now() - started) / 1000)} s): ${stoppedBy ?? `signal ${signal}`}`,
  );
  process.exit(1);
}
process.exit(code ?? 1);
