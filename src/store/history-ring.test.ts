import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { createHistoryRing } from "./history-ring.js";
import type { HistoryRecord } from "./records.js";

const T = Date.UTC(2026, 0, 1);

/** Entry n: every shape the fold writes, in turn (kinds, optional fields, notes). */
function entry(n: number): HistoryRecord {
  const base = { seq: n, at: T + n * 1000, key: `host-${n % 7}!svc-${n % 5}`, author: "", comment: "" };
  switch (n % 5) {
    case 0:
      return {
        ...base,
        kind: "StateChange",
        output: `CRITICAL - ${n}`,
        state: "CRITICAL",
        stateType: "SOFT",
        attempt: 2,
      };
    case 1:
      return {
        ...base,
        kind: "AcknowledgementSet",
        output: "",
        state: "WARNING",
        author: "ops",
        comment: `ack ${n}`,
      };
    case 2:
      return { ...base, kind: "FlappingStart", output: "" };
    case 3:
      return { ...base, kind: "DowntimeDeleted", output: "", comment: "object-removed" };
    default:
      return { ...base, kind: "StateChange", output: "OK", state: "OK", stateType: "HARD", attempt: 1 };
  }
}

describe("HistoryRing", () => {
  // [capacity, entries pushed]: the newest min(capacity, pushed) entries come back as pushed, across
  // growth (arrays start at 1,024) and wrapping.
  const cases: [number, number][] = [
    [1, 3],
    [8, 5],
    [8, 100],
    [1000, 999],
    [3000, 2500],
    [3000, 10_000],
    [50_000, 120_000],
  ];
  for (const [capacity, pushed] of cases) {
    it(`keeps the newest ${capacity} of ${pushed}`, () => {
      const ring = createHistoryRing(capacity);
      for (let n = 1; n <= pushed; n++) {
        const h = entry(n);
        ring.push(h, h.key);
      }
      const kept = Math.min(capacity, pushed);
      assert.equal(ring.size, kept);
      const want = Array.from({ length: kept }, (_, i) => entry(pushed - kept + 1 + i));
      assert.deepStrictEqual(ring.toArray(), want);
      for (const i of [0, kept >> 1, kept - 1]) {
        assert.deepStrictEqual(ring.at(i), want[i]);
        assert.equal(ring.seqAt(i), want[i]?.seq);
        assert.equal(ring.keyAt(i), want[i]?.key);
      }
      assert.throws(() => ring.at(kept), RangeError);
      assert.throws(() => ring.at(-1), RangeError);
    });
  }

  // [capacity, pushed before freezing, pushed after]: a frozen view keeps what the ring held, across
  // wrapping and growth after it was taken, new kinds included.
  const frozenCases: [number, number, number][] = [
    [8, 5, 100],
    [3000, 1500, 3000],
    [3000, 10_000, 2000],
    [50_000, 60_000, 30_000],
  ];
  for (const [capacity, before, after] of frozenCases) {
    it(`freezes ${Math.min(capacity, before)} entries of a ring of ${capacity} while ${after} more arrive`, () => {
      const ring = createHistoryRing(capacity);
      for (let n = 1; n <= before; n++) ring.push(entry(n), entry(n).key);
      const frozen = ring.frozen();
      const want = ring.toArray();
      for (let n = before + 1; n <= before + after; n++) {
        ring.push({ ...entry(n), kind: `Later${n % 3}`, comment: "later" }, entry(n).key);
      }
      assert.equal(frozen.size, want.length);
      const got: HistoryRecord[] = [];
      for (let from = 0; from < frozen.size; from += 700) got.push(...frozen.slice(from, from + 700));
      assert.deepStrictEqual(got, want);
      assert.deepStrictEqual(frozen.slice(-5, 2), want.slice(0, 2));
      assert.deepStrictEqual(frozen.slice(frozen.size - 1, frozen.size + 10), want.slice(-1));
    });
  }

  it("holds the key it is given", () => {
    const ring = createHistoryRing(4);
    ring.push(entry(1), "the arena's copy");
    assert.equal(ring.keyAt(0), "the arena's copy");
    assert.equal(ring.at(0).key, "the arena's copy");
  });

  it("holds 50,000 entries in under 110 bytes each, outputs included", () => {
    setFlagsFromString("--expose-gc");
    const gc = runInNewContext("gc") as () => void;
    const heap = (): number => {
      gc();
      gc();
      return process.memoryUsage().heapUsed + process.memoryUsage().arrayBuffers;
    };
    const keys = Array.from({ length: 5000 }, (_, i) => `host-${i >> 4}!svc-${i & 15}`);
    // The entries arrive as a delta does, each its own object with its own strings.
    const arriving = Array.from({ length: 50_000 }, (_, n) => ({
      ...entry(n),
      key: `host-${(n % 5000) >> 4}!svc-${n & 15}`,
      output: `OK - all good ${n}`,
    }));
    const before = heap();
    const ring = createHistoryRing(50_000);
    for (const h of arriving) ring.push(h, keys[h.seq % 5000] as string);
    arriving.length = 0;
    const per = (heap() - before) / ring.size;
    assert.ok(per < 110, `${per.toFixed(0)} bytes per entry`);
  });
});
