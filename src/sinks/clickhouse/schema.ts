import type { EventRecord, MetricPoint } from "../sink.js";

/**
 * The table of the `metrics` input. Plain types that ClickHouse 18.16 (Debian's) already has: time in
 * ms since the epoch, `date` for partitioning, the object's labels as a JSON object string (query
 * them with `JSONExtractString(labels, 'env')` on 19.x and later, or `visitParamExtractString`).
 */
export const metricsTable = (table: string): string =>
  `CREATE TABLE IF NOT EXISTS ${table} (time_ms UInt64, date Date, seq UInt64, host String, service String, zone String, labels String, name String, value Float64, unit String, warn String, crit String, min Nullable(Float64), max Nullable(Float64)) ENGINE = MergeTree() PARTITION BY toYYYYMM(date) ORDER BY (host, service, name, time_ms)`;

/** The table of the `events` input: one row per event, the event itself as its JSON. */
export const eventsTable = (table: string): string =>
  `CREATE TABLE IF NOT EXISTS ${table} (seq UInt64, at_ms UInt64, date Date, type String, key String, host String, service String, event String) ENGINE = MergeTree() PARTITION BY toYYYYMM(date) ORDER BY seq`;

const day = (ms: number): string => new Date(ms).toISOString().slice(0, 10);

/** One JSONEachRow line of the metrics table. */
export function metricRow(p: MetricPoint): string {
  return JSON.stringify({
    time_ms: p.time,
    date: day(p.time),
    seq: p.seq,
    host: p.host,
    service: p.service,
    zone: p.zone,
    labels: JSON.stringify(p.labels),
    name: p.name,
    // JSON has no NaN or infinity: a point without a number is stored as 0 (plugins print numbers).
    value: Number.isFinite(p.value) ? p.value : 0,
    unit: p.unit,
    warn: p.warn,
    crit: p.crit,
    min: p.min ?? null,
    max: p.max ?? null,
  });
}

/** One JSONEachRow line of the events table. */
export function eventRow(r: EventRecord): string {
  const e = r.event as { at: number; type: string; key?: string; host?: string; service?: string };
  return JSON.stringify({
    seq: r.seq,
    at_ms: e.at,
    date: day(e.at),
    type: e.type,
    key: e.key ?? "",
    host: e.host ?? "",
    service: e.service ?? "",
    event: JSON.stringify(r.event),
  });
}
