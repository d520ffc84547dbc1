import type { PerfDatum } from "../model/check-result.js";

/** One result's perfdata at its time (ms since the epoch). */
export interface PerfdataPoint {
  readonly at: number;
  readonly perfdata: readonly PerfDatum[];
}

/** One label over time, aligned with PerfdataSeriesSet.times. */
export interface PerfdataSeries {
  readonly label: string;
  /** The unit, thresholds, min and max of the newest result that carried the label. */
  readonly uom: string;
  readonly warn: string;
  readonly crit: string;
  readonly min?: number;
  readonly max?: number;
  /** One value per time; NaN where that result (or bucket) lacked the label. */
  readonly values: Float64Array;
}

/** What ListPerfdata answers: the times, oldest first, and one series per label. */
export interface PerfdataSeriesSet {
  readonly times: Float64Array;
  readonly series: readonly PerfdataSeries[];
  /** Whether more results than maxPoints were reduced to the minimum and maximum of time buckets. */
  readonly downsampled: boolean;
}

/**
 * The series of `points` (sorted by time, oldest first), of the labels in `labels` (empty: every
 * label, in the order they first appear), at most about `maxPoints` times. More points than that
 * are cut into maxPoints / 2 buckets of equal time; each bucket becomes two times (its first and
 * last result's), where each series has its minimum and maximum in the order they occurred in the
 * bucket, so a spike survives the reduction. A bucket of one result is one time.
 */
export function perfdataSeries(
  points: readonly PerfdataPoint[],
  labels: readonly string[],
  maxPoints: number,
): PerfdataSeriesSet {
  const wanted = labels.length === 0 ? undefined : new Set(labels);
  /** Label → its column, in order of first appearance; and its newest datum. */
  const columns = new Map<string, number>();
  const newest: PerfDatum[] = [];
  for (const p of points) {
    for (const d of p.perfdata) {
      if (wanted !== undefined && !wanted.has(d.label)) continue;
      let c = columns.get(d.label);
      if (c === undefined) {
        c = columns.size;
        columns.set(d.label, c);
      }
      newest[c] = d;
    }
  }
  const order = wanted === undefined ? [...columns.keys()] : labels.filter((l) => columns.has(l));
  const n = points.length;
  const limit = Math.max(1, Math.floor(maxPoints));
  const value = (p: PerfdataPoint, label: string): number => {
    for (const d of p.perfdata) if (d.label === label && Number.isFinite(d.value)) return d.value;
    return Number.NaN;
  };
  const describe = (label: string, values: Float64Array): PerfdataSeries => {
    const d = newest[columns.get(label) as number] as PerfDatum;
    return {
      label,
      uom: d.uom,
      warn: d.warn,
      crit: d.crit,
      ...(d.min === undefined ? {} : { min: d.min }),
      ...(d.max === undefined ? {} : { max: d.max }),
      values,
    };
  };
  if (n <= limit) {
    const times = Float64Array.from(points, (p) => p.at);
    return {
      times,
      series: order.map((label) =>
        describe(
          label,
          Float64Array.from(points, (p) => value(p, label)),
        ),
      ),
      downsampled: false,
    };
  }
  // Buckets of equal time over [first, last]; a bucket is the points [start, end).
  const buckets = Math.max(1, Math.floor(limit / 2));
  const t0 = (points[0] as PerfdataPoint).at;
  const span = (points[n - 1] as PerfdataPoint).at - t0 + 1;
  const bounds: [number, number][] = [];
  for (let i = 0; i < n; ) {
    const b = Math.min(buckets - 1, Math.floor((((points[i] as PerfdataPoint).at - t0) / span) * buckets));
    let j = i + 1;
    while (
      j < n &&
      Math.min(buckets - 1, Math.floor((((points[j] as PerfdataPoint).at - t0) / span) * buckets)) === b
    )
      j++;
    bounds.push([i, j]);
    i = j;
  }
  const slots = bounds.reduce((s, [i, j]) => s + (j - i > 1 && limit > 1 ? 2 : 1), 0);
  const times = new Float64Array(slots);
  let k = 0;
  for (const [i, j] of bounds) {
    times[k++] = (points[i] as PerfdataPoint).at;
    if (j - i > 1 && limit > 1) times[k++] = (points[j - 1] as PerfdataPoint).at;
  }
  const series = order.map((label) => {
    const values = new Float64Array(slots);
    let s = 0;
    for (const [i, j] of bounds) {
      let lo = Number.NaN;
      let hi = Number.NaN;
      let loAt = -1;
      let hiAt = -1;
      for (let x = i; x < j; x++) {
        const v = value(points[x] as PerfdataPoint, label);
        if (Number.isNaN(v)) continue;
        if (loAt < 0 || v < lo) [lo, loAt] = [v, x];
        if (hiAt < 0 || v > hi) [hi, hiAt] = [v, x];
      }
      if (j - i > 1 && limit > 1) {
        // Both extremes, in the order they occurred (one value: the same twice).
        values[s++] = loAt <= hiAt ? lo : hi;
        values[s++] = loAt <= hiAt ? hi : lo;
      } else {
        values[s++] = limit > 1 ? lo : hi;
      }
    }
    return describe(label, values);
  });
  return { times, series, downsampled: true };
}
