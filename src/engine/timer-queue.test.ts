import assert from "node:assert/strict";
import { test } from "node:test";
import { createTimerQueue, DOWNTIME_END, DOWNTIME_START, FRESHNESS, type TimerKind } from "./timer-queue.js";

test("timers pop in (due, kind, ordinal) order whatever the push order", () => {
  const entries: [number, TimerKind, number][] = [
    [10, FRESHNESS, 2],
    [10, FRESHNESS, 1],
    [10, DOWNTIME_START, 9],
    [10, DOWNTIME_END, 9],
    [5, FRESHNESS, 7],
    [20, DOWNTIME_END, 0],
    [10, DOWNTIME_END, 3],
  ];
  const want = [...entries].sort((a, b) => a[0] - b[0] || a[1] - b[1] || a[2] - b[2]).map((e) => e.join(","));
  // Every rotation of the push order gives the same pop order.
  for (let r = 0; r < entries.length; r++) {
    const q = createTimerQueue<string>();
    const order = [...entries.slice(r), ...entries.slice(0, r)];
    for (const [at, kind, ord] of order) q.push({ at, kind, ord, ref: `${at},${kind},${ord}` });
    assert.equal(q.size, entries.length);
    const got: string[] = [];
    for (let e = q.pop(); e !== undefined; e = q.pop()) got.push(e.ref);
    assert.deepEqual(got, want, `rotation ${r}`);
    assert.equal(q.peek(), undefined);
  }
});
