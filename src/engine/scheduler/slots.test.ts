import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import { hashKey, phaseOf, slotAfter, slotAtOrAfter, slotAtOrBefore } from "./slots.js";

test("slots lie on the object's grid and bracket t", () => {
  fc.assert(
    fc.property(
      fc.string(),
      fc.integer({ min: 1_000, max: 86_400_000 }),
      fc.integer({ min: 0, max: 2 ** 45 }),
      (key, interval, t) => {
        const phase = phaseOf(key, interval);
        assert.ok(phase >= 0 && phase < interval);
        const after = slotAtOrAfter(key, interval, t);
        const before = slotAtOrBefore(key, interval, t);
        const strict = slotAfter(key, interval, t);
        for (const s of [after, before, strict])
          assert.equal((((s - phase) % interval) + interval) % interval, 0);
        assert.ok(after >= t && after - t < interval);
        assert.ok(before <= t && t - before < interval);
        assert.ok(strict > t && strict - t <= interval);
        assert.equal(after === t, before === t);
      },
    ),
  );
});

test("hashKey is FNV-1a (stable across processes)", async (t) => {
  const cases: [string, number][] = [
    ["", 0x811c9dc5],
    ["a", 0xe40c292c],
    ["foobar", 0xbf9cf968],
  ];
  for (const [key, want] of cases) await t.test(JSON.stringify(key), () => assert.equal(hashKey(key), want));
});

test("phases of many keys spread evenly over the interval", () => {
  const interval = 60_000;
  const buckets = new Array<number>(60).fill(0);
  const n = 60_000;
  for (let i = 0; i < n; i++) buckets[Math.floor(phaseOf(`host${i % 500}!svc${i}`, interval) / 1000)]!++;
  const mean = n / buckets.length;
  for (const b of buckets) assert.ok(Math.abs(b - mean) < mean * 0.15, `bucket of ${b}, mean ${mean}`);
});
