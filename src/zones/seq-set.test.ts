import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { MAX_RANGES, SeqSet } from "./seq-set.js";

describe("the set of logged results stream sequences", () => {
  it("holds everything up to the floor and the ranges above it, and nothing else", () => {
    const s = new SeqSet({ floor: 10, above: [[15, 17]] });
    for (const n of [1, 10, 15, 16, 17]) assert.equal(s.has(n), true, `${n}`);
    for (const n of [11, 14, 18, 1000]) assert.equal(s.has(n), false, `${n}`);
    assert.equal(s.high, 17);
  });

  it("a redelivery behind newer sequences is not in it, and once added the floor closes the gap", () => {
    // A dead leader took 4 and 5 and logged neither; the new one logs 6..9 first.
    const s = new SeqSet({ floor: 3, above: [] });
    for (const n of [6, 7, 8, 9]) s.add(n);
    assert.deepEqual(s.toJSON(), { floor: 3, above: [[6, 9]] });
    assert.equal(s.has(4), false, "the redelivered 4 is logged, not skipped");
    s.add(5);
    assert.deepEqual(s.toJSON(), { floor: 3, above: [[5, 9]] });
    s.add(4);
    assert.deepEqual(s.toJSON(), { floor: 9, above: [] });
  });

  it("merges ranges that touch, in any order of arrival", () => {
    const s = new SeqSet();
    for (const n of [20, 5, 7, 6, 21, 19, 30]) s.add(n);
    assert.deepEqual(s.toJSON(), {
      floor: 0,
      above: [
        [5, 7],
        [19, 21],
        [30, 30],
      ],
    });
    s.add(3);
    s.add(1);
    s.add(2);
    assert.deepEqual(s.toJSON(), {
      floor: 3,
      above: [
        [5, 7],
        [19, 21],
        [30, 30],
      ],
    });
    s.add(4);
    assert.deepEqual(s.toJSON(), {
      floor: 7,
      above: [
        [19, 21],
        [30, 30],
      ],
    });
  });

  it("the union of two records holds what either does", () => {
    const a = new SeqSet({ floor: 5, above: [[8, 9]] });
    a.union({ floor: 7, above: [[12, 12]] });
    assert.deepEqual(a.toJSON(), { floor: 9, above: [[12, 12]] });
    const b = new SeqSet({ floor: 20, above: [] });
    b.union({
      floor: 7,
      above: [
        [9, 25],
        [30, 31],
      ],
    });
    assert.deepEqual(b.toJSON(), { floor: 25, above: [[30, 31]] });
  });

  it("keeps at most MAX_RANGES ranges by giving up the oldest gap, and says how many sequences", () => {
    const s = new SeqSet();
    for (let i = 1; i <= MAX_RANGES; i++) assert.equal(s.add(i * 10), 0);
    assert.equal(s.toJSON().above.length, MAX_RANGES);
    assert.equal(s.add(MAX_RANGES * 10 + 5), 9, "1..9 given up");
    assert.equal(s.floor, 10);
    assert.equal(s.toJSON().above.length, MAX_RANGES);
    assert.equal(s.has(9), true);
    assert.equal(s.has(11), false);
  });

  it("ignores what is at or below the floor, and a malformed range", () => {
    const s = new SeqSet({
      floor: 10,
      above: [
        [3, 4],
        [9, 12],
        [20, 18],
      ],
    });
    assert.deepEqual(s.toJSON(), { floor: 12, above: [] });
    assert.equal(s.add(5), 0);
    assert.deepEqual(s.toJSON(), { floor: 12, above: [] });
  });
});
