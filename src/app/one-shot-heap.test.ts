import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";

const ONE_SHOT_HEAP = fileURLToPath(new URL("./one-shot-heap.js", import.meta.url));

/**
 * A fresh process started as bin/lookout.js starts `lookout validate` that (maybe) applies the
 * one-shot heap flags, then does what the evaluator does with a fleet: one allocation site first
 * makes 300,000 objects that stay (the hosts), then 3 million that die young (each host evaluated
 * and released). Prints the most the old space ever committed during the second phase, in MiB.
 */
function oldSpaceAfterTemplate(apply: boolean): number {
  const script = `
    ${apply ? `(await import(${JSON.stringify(ONE_SHOT_HEAP)})).applyOneShotHeap();` : ""}
    const { getHeapSpaceStatistics } = await import("node:v8");
    const oldSpace = () => getHeapSpaceStatistics().find((s) => s.space_name === "old_space").space_size;
    const make = (i, next) => ({ i, next, a: undefined, b: undefined, c: undefined });
    const keep = (globalThis.keep = []);
    for (let i = 0; i < 300000; i++) keep.push(make(i, undefined));
    let most = 0;
    let chain;
    for (let i = 0; i < 3e6; i++) {
      chain = i % 20 === 0 ? make(i, undefined) : make(i, chain);
      if (i % 100000 === 0) most = Math.max(most, oldSpace());
    }
    process.stdout.write(String(most / 1048576));
  `;
  const args = ["--max-semi-space-size=1", "--single-threaded-gc", "--input-type=module", "-e", script];
  return Number(execFileSync(process.execPath, args, { encoding: "utf8" }));
}

describe("the one-shot commands' V8 heap flags", () => {
  it("short-lived objects from a site whose first objects lived stay out of the old generation", () => {
    const without = oldSpaceAfterTemplate(false);
    const withFlags = oldSpaceAfterTemplate(true);
    const what = `old space: without ${without.toFixed(1)} MiB, with ${withFlags.toFixed(1)} MiB`;
    assert.ok(withFlags <= 0.5 * without, what);
  });
});
