import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { watchLongestTask } from "./task-watch.js";

/** The calling thread's CPU time in ms (Linux), for the cases that spend a given amount of it. */
function threadCpuMs(): number {
  return Number(readFileSync("/proc/thread-self/schedstat", "latin1").split(" ", 1)[0]) / 1e6;
}

/** One task that holds the event loop while the thread computes for `ms` of its own CPU time. */
function compute(ms: number): void {
  const end = threadCpuMs() + ms;
  while (threadCpuMs() < end) {}
}

/** One task that holds the event loop for `ms` without using the CPU (as a thread that waits for one). */
function block(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

const cases: {
  name: string;
  run: () => Promise<void>;
  /** Bounds on what the watch reports, in ms. */
  ms: readonly [number, number];
  cpuMs: readonly [number, number];
}[] = [
  {
    name: "a loop that only waits: short turns, little CPU",
    run: () => sleep(150),
    // A busy machine makes a timer late now and then, but not for a whole 150 ms task.
    ms: [0, 100],
    cpuMs: [0, 30],
  },
  {
    name: "a task computing for 150 ms: a long turn, all of it CPU",
    run: async () => {
      await sleep(20);
      compute(150);
      await sleep(20);
    },
    ms: [140, 5_000],
    cpuMs: [145, 5_000],
  },
  {
    name: "a task that holds the loop without the CPU (a starved thread): a long turn, little CPU",
    run: async () => {
      await sleep(20);
      block(150);
      await sleep(20);
    },
    ms: [140, 5_000],
    cpuMs: [0, 30],
  },
];

for (const c of cases) {
  test(`watchLongestTask: ${c.name}`, async () => {
    const watch = watchLongestTask();
    await c.run();
    const got = watch.stop();
    const what = JSON.stringify(got);
    assert.ok(got.ms >= c.ms[0] && got.ms <= c.ms[1], `ms outside ${c.ms}: ${what}`);
    assert.ok(got.cpuMs !== undefined, "Linux reads the thread's CPU time");
    assert.ok(got.cpuMs >= c.cpuMs[0] && got.cpuMs <= c.cpuMs[1], `cpuMs outside ${c.cpuMs}: ${what}`);
  });
}
