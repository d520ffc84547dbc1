import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, it } from "node:test";
import { Worker } from "node:worker_threads";

/** A thread's nice value, from /proc (field 19 of its stat line). */
function niceOf(tid: number | "self"): number {
  const path = tid === "self" ? "/proc/thread-self/stat" : `/proc/self/task/${tid}/stat`;
  const stat = readFileSync(path, "utf8");
  return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[16]);
}

/** Runs lowerThreadPriority(nice) in a fresh worker thread; resolves with its id and the answer. */
function inWorker(nice: number): Promise<{ tid: number; lowered: boolean }> {
  const url = new URL("./thread-priority.js", import.meta.url).href;
  const code = `
    const { parentPort } = require("node:worker_threads");
    const { readlinkSync } = require("node:fs");
    import(${JSON.stringify(url)}).then(({ lowerThreadPriority }) => {
      const lowered = lowerThreadPriority(${nice});
      const tid = Number(readlinkSync("/proc/thread-self").split("/").pop());
      parentPort.postMessage({ tid, lowered });
      setTimeout(() => {}, 2000);
    });`;
  const w = new Worker(code, { eval: true });
  return new Promise((resolve, reject) => {
    w.once("message", (m: { tid: number; lowered: boolean }) => {
      resolve(m);
      // Read the worker's nice before it exits.
      setTimeout(() => void w.terminate(), 200);
    });
    w.once("error", reject);
  });
}

describe("lowerThreadPriority", () => {
  const cases: { nice: number; want: number; lowered: boolean }[] = [
    { nice: 10, want: 10, lowered: true },
    { nice: 25, want: 19, lowered: true },
    { nice: 0, want: niceOf("self"), lowered: false },
  ];
  for (const c of cases) {
    it(`nice ${c.nice}: only the calling thread, at ${c.want}`, async () => {
      const before = niceOf("self");
      const { tid, lowered } = await inWorker(c.nice);
      assert.equal(lowered, c.lowered);
      assert.equal(niceOf(tid), c.want);
      assert.equal(niceOf("self"), before, "the caller's other threads keep theirs");
    });
  }
});
