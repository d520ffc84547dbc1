import type { MetricPoint, SinkRecord } from "./sink.js";

/**
 * The JSON object of one record, as the http, exec, file and archive sinks write it (docs/sinks.md,
 * "NDJSON"). A metric point: `{"seq","time","host","service","zone","labels","name","value","unit",
 * "warn","crit","min"?,"max"?}` with `time` in ms since the epoch. An event: `{"seq", ...the event}`
 * (its `type`, `at` and fields as the log holds them).
 */
export function recordJson(r: SinkRecord): string {
  switch (r.kind) {
    case "metric":
      return metricJson(r);
    case "event":
      return `{"seq":${r.seq},${JSON.stringify(r.event).slice(1)}`;
    default: {
      const never: never = r;
      throw new Error(`unknown record ${JSON.stringify(never)}`);
    }
  }
}

/**
 * The part of a point's line that is the same for every point of one series (host, service, zone,
 * labels, name, unit), kept per labels object: built once, not once per point.
 */
const seriesParts = new WeakMap<object, Map<string, string>>();
const MAX_SERIES_PER_LABELS = 100_000;

/** The same, by MetricPoint.series. */
const seriesPartsBySeries = new WeakMap<object, string>();

function seriesPart(p: MetricPoint): string {
  if (p.series !== undefined) {
    let part = seriesPartsBySeries.get(p.series);
    if (part === undefined) {
      part = seriesText(p);
      seriesPartsBySeries.set(p.series, part);
    }
    return part;
  }
  let byKey = seriesParts.get(p.labels);
  if (byKey === undefined) {
    byKey = new Map();
    seriesParts.set(p.labels, byKey);
  }
  const key = `${p.host}\u0000${p.service}\u0000${p.zone}\u0000${p.name}\u0000${p.unit}`;
  let part = byKey.get(key);
  if (part === undefined) {
    if (byKey.size >= MAX_SERIES_PER_LABELS) byKey.clear();
    part = seriesText(p);
    byKey.set(key, part);
  }
  return part;
}

function seriesText(p: MetricPoint): string {
  return `,"host":${JSON.stringify(p.host)},"service":${JSON.stringify(p.service)},"zone":${JSON.stringify(p.zone)},"labels":${JSON.stringify(p.labels)},"name":${JSON.stringify(p.name)}`;
}

/** A JSON number, or the string "NaN"/"Infinity" JSON has no number for. */
const num = (v: number): string => (Number.isFinite(v) ? String(v) : `"${v}"`);

function metricJson(p: MetricPoint): string {
  let s = `{"seq":${p.seq},"time":${p.time}${seriesPart(p)},"value":${num(p.value)},"unit":${JSON.stringify(p.unit)},"warn":${JSON.stringify(p.warn)},"crit":${JSON.stringify(p.crit)}`;
  if (p.min !== undefined) s += `,"min":${num(p.min)}`;
  if (p.max !== undefined) s += `,"max":${num(p.max)}`;
  return `${s}}`;
}

/** The same line through JSON.stringify: what metricJson must equal (its test compares them). */
export function metricJsonSlow(p: MetricPoint): string {
  // A point's `kind` stays out: the input already says what every line is.
  const o: Record<string, unknown> = {
    seq: p.seq,
    time: p.time,
    host: p.host,
    service: p.service,
    zone: p.zone,
    labels: p.labels,
    name: p.name,
    value: Number.isFinite(p.value) ? p.value : String(p.value),
    unit: p.unit,
    warn: p.warn,
    crit: p.crit,
  };
  if (p.min !== undefined) o.min = p.min;
  if (p.max !== undefined) o.max = p.max;
  return JSON.stringify(o);
}

/** Newline-delimited JSON: one record per line, each line ending in "\n". */
export function ndjson(records: readonly SinkRecord[]): Buffer {
  let s = "";
  for (const r of records) s += `${recordJson(r)}\n`;
  return Buffer.from(s, "utf8");
}
