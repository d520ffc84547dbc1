import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { createPace, PACE_MAX_WAIT_MS, PACE_SLICE_MS } from "./as-of-thread.js";

describe("a rebuild's pace", () => {
  const cases = [
    { name: "within a slice, the writer busy", busy: 1, at: PACE_SLICE_MS - 1, waits: false },
    { name: "after a slice, the writer idle", busy: 0, at: PACE_SLICE_MS, waits: false },
    { name: "after a slice, the writer busy", busy: 1, at: PACE_SLICE_MS, waits: true },
  ];
  for (const c of cases) {
    it(`${c.waits ? "pauses" : "goes on"} ${c.name}`, () => {
      const flag = new Int32Array(new SharedArrayBuffer(4));
      flag[0] = c.busy;
      let now = 0;
      const waits: number[] = [];
      const pace = createPace(
        flag,
        () => now,
        (_, ms) => waits.push(ms),
      );
      now = c.at;
      pace();
      assert.deepEqual(waits, c.waits ? [PACE_MAX_WAIT_MS] : []);
      // A new slice starts after each look: right after it, no pause.
      pace();
      assert.equal(waits.length, c.waits ? 1 : 0);
    });
  }

  it("pauses for real: until the writer drains, at most PACE_MAX_WAIT_MS", () => {
    const flag = new Int32Array(new SharedArrayBuffer(4));
    flag[0] = 1;
    let now = 0;
    const pace = createPace(flag, () => now);
    now = PACE_SLICE_MS;
    const t0 = performance.now();
    pace();
    // Nothing drains it here: the pause lasts its bound (a lower bound only; a loaded machine may add to it).
    assert.ok(performance.now() - t0 >= PACE_MAX_WAIT_MS - 1);
  });
});
