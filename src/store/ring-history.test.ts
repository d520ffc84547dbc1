import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { createHistoryRing } from "./history-ring.js";
import type { HistoryRecord } from "./records.js";
import { ringHistoryPage } from "./ring-history.js";

const entry = (seq: number, key: string): HistoryRecord => ({
  seq,
  at: seq * 1000,
  kind: "StateChange",
  key,
  output: "",
  author: "",
  comment: "",
});

/** A ring of `capacity` after entries at seqs 1..n, key "a" for odd seqs and "b" for even ones. */
function ring(capacity: number, n: number) {
  const r = createHistoryRing(capacity);
  for (let s = 1; s <= n; s++) r.push(entry(s, s % 2 === 1 ? "a" : "b"), s % 2 === 1 ? "a" : "b");
  return r;
}

describe("ringHistoryPage", () => {
  const cases: {
    name: string;
    capacity: number;
    n: number;
    key?: string;
    cursor?: number;
    limit: number;
    want: { seqs: number[]; cursor?: number; below?: number };
  }[] = [
    { name: "a page with more below", capacity: 100, n: 10, limit: 3, want: { seqs: [10, 9, 8], cursor: 8 } },
    {
      name: "the last page of a ring that never dropped",
      capacity: 100,
      n: 10,
      cursor: 3,
      limit: 3,
      want: { seqs: [2, 1] },
    },
    {
      name: "exactly the rest: no empty page after it",
      capacity: 100,
      n: 6,
      cursor: 4,
      limit: 3,
      want: { seqs: [3, 2, 1] },
    },
    { name: "one object", capacity: 100, n: 10, key: "b", limit: 2, want: { seqs: [10, 8], cursor: 8 } },
    {
      name: "a full ring: a page with more below it",
      capacity: 5,
      n: 20,
      limit: 2,
      want: { seqs: [20, 19], cursor: 19 },
    },
    {
      name: "a full ring: the page reaches its end (the rest is in the log)",
      capacity: 5,
      n: 20,
      limit: 5,
      want: { seqs: [20, 19, 18, 17, 16], below: 16 },
    },
    {
      name: "a full ring: the object's page reaches its end",
      capacity: 5,
      n: 20,
      key: "a",
      limit: 2,
      want: { seqs: [19, 17], below: 16 },
    },
    {
      name: "a full ring: a cursor below it",
      capacity: 5,
      n: 20,
      cursor: 10,
      limit: 2,
      want: { seqs: [], below: 10 },
    },
    {
      name: "a ring that never dropped: a cursor below it",
      capacity: 50,
      n: 20,
      cursor: 1,
      limit: 2,
      want: { seqs: [] },
    },
    { name: "an object with no entry", capacity: 50, n: 20, key: "c", limit: 2, want: { seqs: [] } },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const page = ringHistoryPage(ring(c.capacity, c.n), c.key, c.cursor, c.limit);
      assert.deepEqual(
        {
          seqs: page.items.map((h) => h.seq),
          ...(page.cursor === undefined ? {} : { cursor: page.cursor }),
          ...(page.below === undefined ? {} : { below: page.below }),
        },
        c.want,
      );
    });
  }
});
