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

function metricJson(p: MetricPoint): string {
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
