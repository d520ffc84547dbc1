import { BinaryWriter, WireType } from "@bufbuild/protobuf/wire";
import type { MetricPoint } from "../sink.js";
import { checkTimes, type SeriesTimes } from "./sample-times.js";

/** The metric name every perfdata point is written under; the perfdata label is the `perfdata` label. */
export const METRIC_NAME = "lookout_perfdata";

/** Labels Lookout sets itself; an object label of the same name is left out. */
const RESERVED = new Set(["__name__", "perfdata", "host", "service", "zone", "unit"]);

/** A Prometheus label name from an object label key (`a.b-c` → `a_b_c`). */
export function promLabelName(key: string): string {
  const s = key.replace(/[^a-zA-Z0-9_]/g, "_");
  return /^[0-9]/.test(s) ? `_${s}` : s;
}

/**
 * The series labels of a point, sorted by name as remote_write 1.0 requires: `__name__`
 * (lookout_perfdata), `perfdata` (the perfdata label), `host`, `service` and `unit` when not empty,
 * `zone`, and the object's labels (names made Prometheus-safe).
 */
export function seriesLabels(p: MetricPoint): [string, string][] {
  const out: [string, string][] = [
    ["__name__", METRIC_NAME],
    ["perfdata", p.name],
    ["host", p.host],
  ];
  if (p.service !== "") out.push(["service", p.service]);
  if (p.unit !== "") out.push(["unit", p.unit]);
  if (p.zone !== "") out.push(["zone", p.zone]);
  for (const [k, v] of Object.entries(p.labels)) {
    const n = promLabelName(k);
    if (!RESERVED.has(n) && v !== "") out.push([n, v]);
  }
  out.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  // Two keys that map to one name (`a.b` and `a_b`): keep the first, a series cannot repeat a label.
  return out.filter((l, i) => i === 0 || (out[i - 1] as [string, string])[0] !== l[0]);
}

/** A series' encoded labels (the TimeSeries' field 1 entries), kept per labels object. */
const labelBytes = new WeakMap<object, Map<string, Uint8Array>>();
const MAX_SERIES_PER_LABELS = 100_000;

/** A series' encoded labels by MetricPoint.series. */
const labelBytesBySeries = new WeakMap<object, { key: object; labels: Uint8Array }>();

function seriesOf(p: MetricPoint): { key: string | object; labels: Uint8Array } {
  if (p.series !== undefined) {
    let s = labelBytesBySeries.get(p.series);
    if (s === undefined) {
      s = { key: p.series, labels: encodeLabels(p) };
      labelBytesBySeries.set(p.series, s);
    }
    return s;
  }
  let byKey = labelBytes.get(p.labels);
  if (byKey === undefined) {
    byKey = new Map();
    labelBytes.set(p.labels, byKey);
  }
  const key = `${p.host}\u0000${p.service}\u0000${p.zone}\u0000${p.name}\u0000${p.unit}`;
  let labels = byKey.get(key);
  if (labels === undefined) {
    if (byKey.size >= MAX_SERIES_PER_LABELS) byKey.clear();
    labels = encodeLabels(p);
    byKey.set(key, labels);
  }
  return { key, labels };
}

function encodeLabels(p: MetricPoint): Uint8Array {
  const w = new BinaryWriter();
  for (const [name, value] of seriesLabels(p)) {
    w.tag(1, WireType.LengthDelimited).fork();
    w.tag(1, WireType.LengthDelimited).string(name);
    w.tag(2, WireType.LengthDelimited).string(value);
    w.join();
  }
  return w.finish();
}

/**
 * Encodes a remote_write 1.0 `prometheus.WriteRequest`: one TimeSeries per series, its samples in
 * the order and with the timestamps `times` gives them (default: as given, at their check times;
 * the sink passes its SampleTimes, sample-times.ts).
 */
export function encodeWriteRequest(
  points: readonly MetricPoint[],
  times: SeriesTimes = checkTimes,
): Uint8Array {
  const series = new Map<object, Map<string | object, { labels: Uint8Array; samples: MetricPoint[] }>>();
  for (const p of points) {
    const { key, labels } = seriesOf(p);
    let byKey = series.get(p.labels);
    if (byKey === undefined) {
      byKey = new Map();
      series.set(p.labels, byKey);
    }
    const s = byKey.get(key);
    if (s === undefined) byKey.set(key, { labels, samples: [p] });
    else s.samples.push(p);
  }
  const w = new BinaryWriter();
  for (const byKey of series.values()) {
    for (const [key, s] of byKey) {
      const at = times(key, s.samples);
      w.tag(1, WireType.LengthDelimited).fork();
      w.raw(s.labels);
      for (let i = 0; i < s.samples.length; i++) {
        w.tag(2, WireType.LengthDelimited).fork();
        w.tag(1, WireType.Bit64).double((s.samples[i] as MetricPoint).value);
        w.tag(2, WireType.Varint).int64(at[i] as number);
        w.join();
      }
      w.join();
    }
  }
  return w.finish();
}
