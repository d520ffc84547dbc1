import type { MetricPoint } from "../sink.js";

/**
 * The timestamps of one series' samples in a request, as `encodeWriteRequest` asks for them: it
 * passes the series' samples in log order and may get them back reordered (in place), with the
 * timestamp of each in that order.
 */
export type SeriesTimes = (series: string | object, samples: MetricPoint[]) => ArrayLike<number>;

/** The samples' own check times, in the order given. */
export const checkTimes: SeriesTimes = (_series, samples) => samples.map((p) => p.time);

/** Per series: the check time of the last sample stamped, and the timestamp it was sent with. */
interface Last {
  checked: number;
  sent: number;
}

const MAX_KEYED_SERIES = 100_000;

/** Stable sort of `samples` by `time`, only when they are not in order already (the usual case). */
function sortBy(samples: MetricPoint[], times: number[]): void {
  let sorted = true;
  for (let i = 1; i < times.length; i++) {
    if ((times[i] as number) < (times[i - 1] as number)) {
      sorted = false;
      break;
    }
  }
  if (sorted) return;
  const order = samples.map((p, i) => ({ p, t: times[i] as number, i }));
  order.sort((a, b) => a.t - b.t || a.i - b.i);
  for (let i = 0; i < order.length; i++) {
    const o = order[i] as { p: MetricPoint; t: number };
    samples[i] = o.p;
    times[i] = o.t;
  }
}

/**
 * The timestamps one remote_write sink gives its samples. Prometheus keeps one sample per series
 * and millisecond and needs each series' samples in increasing time: within one request it keeps
 * the first of two samples with the same time and silently drops a sample older than one before it;
 * across requests it refuses the whole request (400 "duplicate sample for timestamp", "out of order
 * sample"). Results submitted together without a check time all have the same one, so two points
 * of one series with one time are two points, not one. The rule, per series:
 *
 * - a request holds a series' samples sorted by check time (ties in log order);
 * - a sample not older than the series' previous one is sent at least 1 ms after the previous
 *   timestamp sent (a tie, or a time inside the span earlier ties were moved into);
 * - a sample older than the series' previous one keeps its check time: Prometheus refuses it
 *   ("out of order"), unless its out-of-order window takes it, and the sink drops only that sample.
 *   Moving it forward would put an old result at a wrong time.
 *
 * Batches are stamped in log order, each once: `stamp` remembers the highest log sequence number
 * it stamped, and a part of a batch stamped before (the runner splits a refused batch) gets the
 * timestamps it got then. The memory of the last timestamps lives as long as the sink (across
 * reloads too: a series whose timestamps were moved is also found by its fields); after a restart
 * the batch repeated is stamped again from its check times.
 */
export function createSampleTimes(): { stamp(points: readonly MetricPoint[]): SeriesTimes } {
  const lastByObject = new WeakMap<object, Last>();
  const lastByKey = new Map<string, Last>();
  // The series whose timestamps were moved, by their fields too: a reload gives every series a new
  // object, and one that forgot its moved timestamps would send the next tie at a time it already has.
  const movedByFields = new Map<string, Last>();
  const fieldsOf = (p: MetricPoint): string =>
    `${p.host}\u0000${p.service}\u0000${p.zone}\u0000${p.name}\u0000${p.unit}`;
  // Only the samples moved off their check time: the happy path stores nothing per point.
  const moved = new WeakMap<MetricPoint, number>();
  let stampedUpTo = 0;

  const lastOf = (series: string | object): Last | undefined =>
    typeof series === "string" ? lastByKey.get(series) : lastByObject.get(series);
  const setLast = (series: string | object, l: Last): void => {
    if (typeof series !== "string") lastByObject.set(series, l);
    else {
      if (lastByKey.size >= MAX_KEYED_SERIES) lastByKey.clear();
      lastByKey.set(series, l);
    }
  };

  const fresh: SeriesTimes = (series, samples) => {
    const times = samples.map((p) => p.time);
    sortBy(samples, times);
    let last = lastOf(series);
    if (last === undefined && typeof series !== "string" && movedByFields.size > 0) {
      last = movedByFields.get(fieldsOf(samples[0] as MetricPoint));
      if (last !== undefined) lastByObject.set(series, last);
    }
    for (let i = 0; i < samples.length; i++) {
      const checked = times[i] as number;
      if (last === undefined) {
        last = { checked, sent: checked };
        setLast(series, last);
        continue;
      }
      if (checked < last.checked) continue; // out of order: its own time, Prometheus decides
      const sent = Math.max(checked, last.sent + 1);
      if (sent !== checked) {
        times[i] = sent;
        moved.set(samples[i] as MetricPoint, sent);
        // Rare (ties), so a key string per moved sample costs little.
        if (movedByFields.size >= MAX_KEYED_SERIES) movedByFields.clear();
        movedByFields.set(fieldsOf(samples[i] as MetricPoint), last);
      }
      last.checked = checked;
      last.sent = sent;
    }
    return times;
  };

  const again: SeriesTimes = (_series, samples) => {
    const times = samples.map((p) => moved.get(p) ?? p.time);
    sortBy(samples, times);
    return times;
  };

  return {
    /**
     * The SeriesTimes for a request of `points`: stamped now when they are new (after everything
     * stamped so far), their earlier timestamps when they are a part of a batch stamped before.
     */
    stamp(points) {
      let first = Number.POSITIVE_INFINITY;
      let lastSeq = 0;
      for (const p of points) {
        if (p.seq < first) first = p.seq;
        if (p.seq > lastSeq) lastSeq = p.seq;
      }
      if (first <= stampedUpTo) return again;
      stampedUpTo = lastSeq;
      return fresh;
    },
  };
}
