import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { createPace, PACE_MAX_WAIT_MS, PACE_SLICE_MS } from "./as-of-thread.js";

describe("a rebuild's pace", () => {
  /** Runs `pace` once at fake time `at` and says how long it kept this thread (ms of wall time). */
  const held = (pace: () => void): number => {
    const t0 = performance.now();
    pace();
    return performance.now() - t0;
  };
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
      const pace = createPace(flag, () => now);
      now = c.at;
      const ms = held(pace);
      // A pause lasts until the writer drains or PACE_MAX_WAIT_MS: here nothing wakes it.
      if (c.waits) assert.ok(ms >= PACE_MAX_WAIT_MS - 1, `paused ${ms} ms`);
      else assert.ok(ms < PACE_MAX_WAIT_MS - 1, `paused ${ms} ms`);
    });
  }
});
