/**
 * `wasm` check cost: the first run (compile + worker start), then per-run latency with one run in
 * flight (the overhead after the first), then runs/s on one worker thread (one core) and on two.
 * Usage: node dist/bench/plugins-wasm.js [seconds-per-step]
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createWasmChecker } from "../src/checks/wasm/index.js";
import { buildWat, printAndExit } from "../src/checks/wasm/wat-fixtures.js";
import { checkTarget } from "../src/testing/check-contract.js";
import { closedLoop, row } from "./plugins-common.js";

const seconds = Number(process.argv[2] ?? 3);
const dir = mkdtempSync(join(tmpdir(), "lookout-bench-wasm-"));
try {
  const module = await buildWat(dir, "hello", printAndExit("OK - hello | runs=1;;;0\n", 0));
  const target = checkTarget({ type: "wasm" as const, module, args: ["a", "b"] });
  for (const workers of [1, 2]) {
    const checker = createWasmChecker({ workers });
    const once = async (): Promise<boolean> =>
      (await checker.run(target, AbortSignal.timeout(10_000))).exitStatus === 0;
    const t0 = performance.now();
    await once();
    const first = performance.now() - t0;
    if (workers === 1) {
      console.log(`wasm hello module, ${seconds}s per step`);
      console.log(`first run (compile + worker start): ${first.toFixed(1)} ms`);
      for (let i = 0; i < 200; i++) await once();
      console.log(row("1 in flight, 1 worker", await closedLoop(1, seconds, once)));
    }
    console.log(row(`16 in flight, ${workers} worker(s)`, await closedLoop(16, seconds, once)));
    await checker.close();
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
