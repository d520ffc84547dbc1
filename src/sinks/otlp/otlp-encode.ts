import { BinaryWriter, WireType } from "@bufbuild/protobuf/wire";
import type { EventRecord, MetricPoint } from "../sink.js";

/**
 * OTLP/HTTP protobuf bodies, encoded by hand from the OTLP v1 field numbers (opentelemetry-proto
 * `collector/metrics/v1`, `collector/logs/v1`); the test decodes them independently. Only what the
 * sink sends is encoded: a gauge per perfdata label and unit, a log record per event.
 */

/** The resource every export names: `service.name` = "lookout". */
const RESOURCE_ATTRS: [string, string][] = [["service.name", "lookout"]];
const SCOPE = "lookout.sinks";

type Attr = [string, string | number];

function keyValue(w: BinaryWriter, field: number, [key, value]: Attr): void {
  w.tag(field, WireType.LengthDelimited).fork();
  w.tag(1, WireType.LengthDelimited).string(key);
  w.tag(2, WireType.LengthDelimited).fork();
  if (typeof value === "string") w.tag(1, WireType.LengthDelimited).string(value);
  else w.tag(3, WireType.Varint).int64(value);
  w.join();
  w.join();
}

function resourceAndScope(w: BinaryWriter, body: (w: BinaryWriter) => void): void {
  // ResourceMetrics / ResourceLogs: resource = 1, scope_metrics / scope_logs = 2.
  w.tag(1, WireType.LengthDelimited).fork();
  w.tag(1, WireType.LengthDelimited).fork();
  for (const a of RESOURCE_ATTRS) keyValue(w, 1, a);
  w.join();
  w.tag(2, WireType.LengthDelimited).fork();
  w.tag(1, WireType.LengthDelimited).fork().tag(1, WireType.LengthDelimited).string(SCOPE).join();
  body(w);
  w.join();
  w.join();
}

const nanos = (ms: number): bigint => BigInt(Math.round(ms)) * 1_000_000n;

/** A point's attributes: host, service, zone, warn and crit when set, then the object's labels. */
export function pointAttributes(p: MetricPoint): Attr[] {
  const out: Attr[] = [["host", p.host]];
  if (p.service !== "") out.push(["service", p.service]);
  if (p.zone !== "") out.push(["zone", p.zone]);
  if (p.warn !== "") out.push(["warn", p.warn]);
  if (p.crit !== "") out.push(["crit", p.crit]);
  const own = new Set(out.map(([k]) => k));
  for (const [k, v] of Object.entries(p.labels)) if (!own.has(k)) out.push([k, v]);
  return out;
}

/**
 * An ExportMetricsServiceRequest: one Metric (a Gauge) per perfdata label and unit, named by the
 * label, its unit the perfdata unit; each point a NumberDataPoint at the result's check time.
 */
export function encodeMetrics(points: readonly MetricPoint[]): Uint8Array {
  const metrics = new Map<string, MetricPoint[]>();
  for (const p of points) {
    const k = `${p.name}\u0000${p.unit}`;
    const list = metrics.get(k);
    if (list === undefined) metrics.set(k, [p]);
    else list.push(p);
  }
  const w = new BinaryWriter();
  resourceAndScope(w, (w) => {
    for (const ps of metrics.values()) {
      const first = ps[0] as MetricPoint;
      w.tag(2, WireType.LengthDelimited).fork(); // ScopeMetrics.metrics
      w.tag(1, WireType.LengthDelimited).string(first.name);
      if (first.unit !== "") w.tag(3, WireType.LengthDelimited).string(first.unit);
      w.tag(5, WireType.LengthDelimited).fork(); // Metric.gauge
      for (const p of ps) {
        w.tag(1, WireType.LengthDelimited).fork(); // Gauge.data_points
        w.tag(3, WireType.Bit64).fixed64(nanos(p.time));
        w.tag(4, WireType.Bit64).double(p.value);
        for (const a of pointAttributes(p)) keyValue(w, 7, a);
        w.join();
      }
      w.join();
      w.join();
    }
  });
  return w.finish();
}

/** SeverityNumber INFO. */
const INFO = 9;

/**
 * An ExportLogsServiceRequest: one LogRecord per event at the event's time, its body the event's
 * NDJSON line as a string, attributes `lookout.seq`, `event.type` and the object's host and service.
 */
export function encodeLogs(events: readonly EventRecord[], line: (r: EventRecord) => string): Uint8Array {
  const w = new BinaryWriter();
  resourceAndScope(w, (w) => {
    for (const r of events) {
      const e = r.event as { at: number; type: string; host?: string; service?: string };
      w.tag(2, WireType.LengthDelimited).fork(); // ScopeLogs.log_records
      w.tag(1, WireType.Bit64).fixed64(nanos(e.at));
      w.tag(2, WireType.Varint).int32(INFO);
      w.tag(3, WireType.LengthDelimited).string("INFO");
      w.tag(5, WireType.LengthDelimited).fork().tag(1, WireType.LengthDelimited).string(line(r)).join();
      const attrs: Attr[] = [
        ["lookout.seq", r.seq],
        ["event.type", e.type],
      ];
      if (e.host !== undefined) attrs.push(["host", e.host]);
      if (e.service !== undefined) attrs.push(["service", e.service]);
      for (const a of attrs) keyValue(w, 6, a);
      w.join();
    }
  });
  return w.finish();
}
