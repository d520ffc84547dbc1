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

test("a heap of many timers, pushed and popped interleaved, pops in order", () => {
  // A deterministic pseudo-random sequence (no Math.random: the test must not flake).
  let x = 12345;
  const next = (): number => {
    x = (x * 1103515245 + 12345) % 2147483648;
    return x;
  };
  const q = createTimerQueue<number>();
  const live: [number, TimerKind, number][] = [];
  const kinds: TimerKind[] = [DOWNTIME_END, DOWNTIME_START, FRESHNESS];
  for (let i = 0; i < 5000; i++) {
    if (next() % 3 !== 0 || q.size === 0) {
      const e: [number, TimerKind, number] = [next() % 100, kinds[next() % 3] as TimerKind, i];
      q.push({ at: e[0], kind: e[1], ord: e[2], ref: i });
      live.push(e);
    } else {
      live.sort((a, b) => a[0] - b[0] || a[1] - b[1] || a[2] - b[2]);
      const want = live.shift();
      const got = q.pop();
      assert.deepEqual([got?.at, got?.kind, got?.ord], want);
      assert.equal(got?.ref, want?.[2]);
    }
    assert.equal(q.size, live.length);
  }
});
