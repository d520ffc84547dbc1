/**
 * Worker side of `isolated.ts`: loads the engine, runs the given archives in order and reports each
 * start and result to the parent.
 */

import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parentPort, workerData } from "node:worker_threads";
import { loadEngine } from "./engine.js";
import type { WorkerInput, WorkerMessage } from "./isolated.js";
import { runArchive } from "./runner.js";

const input = workerData as WorkerInput;
const engine = await loadEngine();
for (const archive of input.archives) {
  parentPort?.postMessage({ type: "start", archive } satisfies WorkerMessage);
  const start = performance.now();
  let cases: ReturnType<typeof runArchive>;
  try {
    cases = runArchive(
      engine,
      readFileSync(join(input.root, archive), "utf8"),
      archive,
      input.engineOptions,
      input.check,
    );
  } catch (e) {
    cases = [{ name: archive, status: "failed", reason: `runner error: ${(e as Error)?.message}` }];
  }
  const i = archive.lastIndexOf("/");
  parentPort?.postMessage({
    type: "done",
    result: { archive, dir: i < 0 ? "." : archive.slice(0, i), cases, ms: performance.now() - start },
  } satisfies WorkerMessage);
}
