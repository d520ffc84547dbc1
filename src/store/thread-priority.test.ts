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

/**
 * Runs applyThreadPolicy("auto") in a fresh worker sampling every 50 ms; `busy`: the worker then
 * runs flat out (CPU work with a turn of its event loop between chunks) until it is lowered, else
 * it waits for `waitMs`. Resolves with the worker's id, its policy afterwards, and what was lowered.
 */
function autoInWorker(
  busy: boolean,
  waitMs: number,
): Promise<{ tid: number; policy: number; lowered: string }> {
  const url = new URL("./thread-priority.js", import.meta.url).href;
  const code = `
    const { parentPort } = require("node:worker_threads");
    const { readFileSync, readlinkSync } = require("node:fs");
    const tid = Number(readlinkSync("/proc/thread-self").split("/").pop());
    const policy = () => {
      const stat = readFileSync("/proc/thread-self/stat", "utf8");
      return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[38]);
    };
    import(${JSON.stringify(url)}).then(({ applyThreadPolicy }) => {
      let lowered = "unchanged";
      const first = applyThreadPolicy("auto", 10, { sampleMs: 50, onLowered: (l) => { lowered = l; } });
      const report = () => parentPort.postMessage({ tid, policy: policy(), lowered: first === "unchanged" ? lowered : "at once" });
      if (!${busy}) return setTimeout(report, ${waitMs});
      const spin = () => {
        if (lowered !== "unchanged") return report();
        const end = performance.now() + 20;
        while (performance.now() < end);
        setImmediate(spin);
      };
      spin();
    });`;
  const w = new Worker(code, { eval: true });
  return new Promise((resolve, reject) => {
    w.once("message", (m: { tid: number; policy: number; lowered: string }) => {
      resolve(m);
      void w.terminate();
    });
    w.once("error", reject);
  });
}

describe("applyThreadPolicy", () => {
  it("normal: the thread keeps the process's priority", async () => {
    const url = new URL("./thread-priority.js", import.meta.url).href;
    const { applyThreadPolicy } = (await import(url)) as typeof import("./thread-priority.js");
    const before = schedOf("self");
    assert.equal(applyThreadPolicy("normal", 10), "unchanged");
    assert.deepEqual(schedOf("self"), before);
  });

  it("auto: a thread that runs flat out moves itself to SCHED_IDLE", async () => {
    const { tid, policy, lowered } = await autoInWorker(true, 0);
    assert.equal(lowered, "idle");
    assert.equal(policy, SCHED_IDLE);
    assert.ok(tid > 0);
    assert.deepEqual(schedOf("self").policy, SCHED_OTHER, "the caller's other threads keep theirs");
  });

  it("auto: a thread that mostly waits keeps the process's priority", async () => {
    const { policy, lowered } = await autoInWorker(false, 600);
    assert.equal(lowered, "unchanged");
    assert.equal(policy, SCHED_OTHER);
  });
});
