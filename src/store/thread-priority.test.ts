import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, it } from "node:test";
import { Worker } from "node:worker_threads";

/** A thread's nice value and scheduling policy, from /proc (fields 19 and 41 of its stat line). */
function schedOf(tid: number | "self"): { nice: number; policy: number } {
  const path = tid === "self" ? "/proc/thread-self/stat" : `/proc/self/task/${tid}/stat`;
  const stat = readFileSync(path, "utf8");
  const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return { nice: Number(f[16]), policy: Number(f[38]) };
}

const SCHED_OTHER = 0;
const SCHED_IDLE = 5;

/** Runs lowerThreadPriority(policy, nice) in a fresh worker thread; resolves with its id and the answer. */
function inWorker(policy: string, nice: number): Promise<{ tid: number; lowered: string }> {
  const url = new URL("./thread-priority.js", import.meta.url).href;
  const code = `
    const { parentPort } = require("node:worker_threads");
    const { readlinkSync } = require("node:fs");
    import(${JSON.stringify(url)}).then(({ lowerThreadPriority }) => {
      const lowered = lowerThreadPriority(${JSON.stringify(policy)}, ${nice});
      const tid = Number(readlinkSync("/proc/thread-self").split("/").pop());
      parentPort.postMessage({ tid, lowered });
      setTimeout(() => {}, 2000);
    });`;
  const w = new Worker(code, { eval: true });
  return new Promise((resolve, reject) => {
    w.once("message", (m: { tid: number; lowered: string }) => {
      resolve(m);
      // Read the worker's priority before it exits.
      setTimeout(() => void w.terminate(), 200);
    });
    w.once("error", reject);
  });
}

describe("lowerThreadPriority", () => {
  const own = schedOf("self");
  // CI runs Debian with util-linux (chrt), so SCHED_IDLE is expected, not merely tolerated.
  const cases: { policy: string; nice: number; want: { nice: number; policy: number }; lowered: string }[] = [
    { policy: "nice", nice: 10, want: { nice: 10, policy: SCHED_OTHER }, lowered: "nice" },
    { policy: "nice", nice: 25, want: { nice: 19, policy: SCHED_OTHER }, lowered: "nice" },
    { policy: "nice", nice: 0, want: own, lowered: "unchanged" },
    { policy: "idle", nice: 10, want: { nice: own.nice, policy: SCHED_IDLE }, lowered: "idle" },
  ];
  for (const c of cases) {
    it(`${c.policy} (nice ${c.nice}): only the calling thread, ${c.lowered}`, async () => {
      const { tid, lowered } = await inWorker(c.policy, c.nice);
      assert.equal(lowered, c.lowered);
      assert.deepEqual(schedOf(tid), c.want);
      assert.deepEqual(schedOf("self"), own, "the caller's other threads keep theirs");
    });
  }
});
