import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { PerfDatum } from "../model/check-result.js";
import { type PerfdataPoint, perfdataSeries } from "./perfdata-buckets.js";

const d = (label: string, value: number, more: Partial<PerfDatum> = {}): PerfDatum => ({
  label,
  value,
  uom: "",
  warn: "",
  crit: "",
  ...more,
});
/** Points at the given times, each with label "v" of the given value. */
const vs = (pairs: readonly (readonly [number, number])[]): PerfdataPoint[] =>
  pairs.map(([at, v]) => ({ at, perfdata: [d("v", v)] }));

describe("perfdataSeries", () => {
  const cases: {
    name: string;
    points: PerfdataPoint[];
    labels?: string[];
    max: number;
    times: number[];
    values: Record<string, number[]>;
    downsampled: boolean;
  }[] = [
    { name: "nothing", points: [], max: 10, times: [], values: {}, downsampled: false },
    {
      name: "fewer points than the most: as they are",
      points: vs([
        [1, 5],
        [2, 6],
        [3, 7],
      ]),
      max: 3,
      times: [1, 2, 3],
      values: { v: [5, 6, 7] },
      downsampled: false,
    },
    {
      name: "a label missing from a result: NaN there",
      points: [
        { at: 1, perfdata: [d("a", 1), d("b", 10)] },
        { at: 2, perfdata: [d("b", 20)] },
        { at: 3, perfdata: [d("a", 3)] },
      ],
      max: 10,
      times: [1, 2, 3],
      values: { a: [1, Number.NaN, 3], b: [10, 20, Number.NaN] },
      downsampled: false,
    },
    {
      name: "only the labels asked for, in the order asked",
      points: [{ at: 1, perfdata: [d("a", 1), d("b", 2), d("c", 3)] }],
      labels: ["c", "a", "nope"],
      max: 10,
      times: [1],
      values: { c: [3], a: [1] },
      downsampled: false,
    },
    {
      name: "two buckets: each its first and last time, minimum and maximum in the order they came",
      points: vs([
        [0, 5],
        [1, 9],
        [2, 1],
        [3, 4],
        [10, 2],
        [11, 8],
        [19, 3],
      ]),
      max: 4,
      times: [0, 3, 10, 19],
      values: { v: [9, 1, 2, 8] },
      downsampled: true,
    },
    {
      name: "a spike in a bucket of many survives",
      points: vs(Array.from({ length: 100 }, (_, i) => [i, i === 37 ? 1000 : 1] as const)),
      max: 10,
      times: [0, 19, 20, 39, 40, 59, 60, 79, 80, 99],
      values: { v: [1, 1, 1, 1000, 1, 1, 1, 1, 1, 1] },
      downsampled: true,
    },
    {
      name: "a bucket of one result is one time",
      points: vs([
        [0, 1],
        [1, 2],
        [2, 3],
        [3, 2],
        [100, 4],
      ]),
      max: 4,
      times: [0, 3, 100],
      values: { v: [1, 3, 4] },
      downsampled: true,
    },
    {
      name: "at most one point: the maximum",
      points: vs([
        [0, 1],
        [1, 7],
        [2, 3],
      ]),
      max: 1,
      times: [0],
      values: { v: [7] },
      downsampled: true,
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const s = perfdataSeries(c.points, c.labels ?? [], c.max);
      assert.deepEqual(Array.from(s.times), c.times);
      assert.deepEqual(Object.fromEntries(s.series.map((x) => [x.label, Array.from(x.values)])), c.values);
      assert.deepEqual(
        s.series.map((x) => x.label),
        Object.keys(c.values),
      );
      assert.equal(s.downsampled, c.downsampled);
    });
  }

  it("a series' unit, thresholds, min and max are the newest result's", () => {
    const s = perfdataSeries(
      [
        { at: 1, perfdata: [d("v", 1, { uom: "ms", warn: "5", crit: "9", min: 0, max: 10 })] },
        { at: 2, perfdata: [d("v", 2, { uom: "s", warn: "~:4", crit: "" })] },
        { at: 3, perfdata: [d("w", 2)] },
      ],
      [],
      10,
    );
    const { values: _, ...v } = s.series[0] as NonNullable<(typeof s.series)[0]>;
    assert.deepEqual(v, { label: "v", uom: "s", warn: "~:4", crit: "" });
  });
});
