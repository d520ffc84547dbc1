/**
 * Tests: the sink thread's module (sink-worker.ts) with one way to die. On a `wake` while the file
 * `die` exists in the data directory, the file is removed and the thread throws an uncaught error,
 * as a bug in a sink would: the thread ends, and the main thread's SinkThread starts a new one.
 */
import { existsSync, unlinkSync } from "node:fs";
import { join } from "node:path";
import { parentPort, workerData } from "node:worker_threads";
import type { SinkThreadInit } from "../sinks/thread/protocol.js";
import "../sinks/thread/sink-worker.js";

const die = join((workerData as SinkThreadInit).dataDir, "die");
parentPort?.on("message", (m: { t: string }) => {
  if (m.t === "wake" && existsSync(die)) {
    unlinkSync(die);
    throw new Error("the test made the sink thread die");
  }
});
