import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { MetricPoint } from "../sink.js";
import { createSampleTimes } from "./sample-times.js";
import { encodeWriteRequest } from "./write-request.js";

// One labels object for the series, as the mapper gives one per object.
const labels = {};
const point = (seq: number, time: number, value: number, series?: object): MetricPoint => ({
  kind: "metric",
  seq,
  time,
  host: "h",
  service: "s",
  zone: "",
  labels,
  name: "x",
  value,
  unit: "",
  warn: "",
  crit: "",
  ...(series === undefined ? {} : { series }),
});

/** The (value, timestamp) pairs of a one-series request, read back through a recording SeriesTimes. */
function sent(times: ReturnType<typeof createSampleTimes>, points: MetricPoint[]): [number, number][] {
  const stamp = times.stamp(points);
  const out: [number, number][] = [];
  encodeWriteRequest(points, (key, samples) => {
    const at = stamp(key, samples);
    samples.forEach((p, i) => {
      out.push([p.value, at[i] as number]);
    });
    return at;
  });
  return out;
}

describe("remote_write sample times", () => {
  it("per series strictly increasing, a part of a batch as before, an older point at its own time", () => {
    const t = createSampleTimes();
    // Batch 1: three results in one ms, and one checked earlier but logged later.
    const b1 = [point(1, 100, 1), point(2, 100, 2), point(3, 100, 3), point(4, 90, 4)];
    assert.deepEqual(sent(t, b1), [
      [4, 90],
      [1, 100],
      [2, 101],
      [3, 102],
    ]);
    // The runner splits batch 1 after a refusal: each part goes with the times it had.
    assert.deepEqual(sent(t, [b1[2] as MetricPoint, b1[3] as MetricPoint]), [
      [4, 90],
      [3, 102],
    ]);
    // Batch 2: the same ms again, a time inside the moved span, a later one, and an older one.
    assert.deepEqual(sent(t, [point(5, 100, 5), point(6, 101, 6), point(7, 200, 7), point(8, 50, 8)]), [
      [8, 50],
      [5, 103],
      [6, 104],
      [7, 200],
    ]);
  });

  it("a reload (new series objects) continues after the timestamps it moved", () => {
    const t = createSampleTimes();
    const before = {};
    assert.deepEqual(sent(t, [point(1, 100, 1, before), point(2, 100, 2, before)]), [
      [1, 100],
      [2, 101],
    ]);
    const after = {};
    assert.deepEqual(sent(t, [point(3, 100, 3, after), point(4, 300, 4, after)]), [
      [3, 102],
      [4, 300],
    ]);
  });
});
