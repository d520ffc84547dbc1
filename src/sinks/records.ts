import type { Labels } from "../model/config.js";
import type { LookoutEvent } from "../model/events.js";
import { effectiveLabels, parseSelector, type Selector } from "../model/selector.js";
import type { LoggedEvent } from "../store/index.js";
import type { MetricPoint, SinkRecord } from "./sink.js";

/** What a sink knows of an object besides the event: its zone and effective labels. */
export interface ObjectInfo {
  readonly zone: string;
  readonly labels: Labels;
}

/** Looks objects up in the configuration that is current when the event is mapped. */
export type ObjectLookup = (host: string, service: string | undefined) => ObjectInfo | undefined;

const NO_LABELS: Labels = Object.freeze({});

/**
 * What the sinks read of a configuration: each object's zone and labels. A `Config` is one; the
 * sink thread gets only this much of each reload (thread/objects-text.ts).
 */
export interface SinkObjects {
  readonly hosts: ReadonlyMap<string, ObjectInfo & { readonly services: ReadonlyMap<string, ObjectInfo> }>;
}

/** An ObjectLookup over a decoded configuration (or the part of it the sinks read). */
export function configLookup(config: SinkObjects): ObjectLookup {
  // One ObjectInfo per object, made on first use: the same labels object for every point of an
  // object lets the encoders cache what they derive from it.
  const infos = new WeakMap<object, ObjectInfo>();
  const info = (o: object, make: () => ObjectInfo): ObjectInfo => {
    let i = infos.get(o);
    if (i === undefined) {
      i = make();
      infos.set(o, i);
    }
    return i;
  };
  return (host, service) => {
    const h = config.hosts.get(host);
    if (h === undefined) return undefined;
    const hostInfo = info(h, () => ({ zone: h.zone, labels: h.labels }));
    if (service === undefined) return hostInfo;
    const s = h.services.get(service);
    if (s === undefined) return hostInfo;
    return info(s, () => ({ zone: s.zone, labels: effectiveLabels(h, s) }));
  };
}

/** Maps the log's events to one sink's records: its input, its selector, and never its own events. */
export interface RecordMapper {
  /** Appends the records `e` yields to `out` and returns how many. */
  map(e: LoggedEvent, out: SinkRecord[]): number;
}

/**
 * Creates the mapper of a sink. `metrics`: the perfdata points of CheckResultProcessed events, at the
 * result's check time. `events`: every event unchanged, except the Sink* events this sink recorded
 * itself (a sink that keeps failing must not feed on its own failures). `selector` matches the
 * object's labels; events about no object pass only an empty selector. An object the configuration
 * no longer has (removed since) has zone "" and no labels.
 */
export function createRecordMapper(
  sink: string,
  input: "metrics" | "events",
  selectorText: string,
  lookup: () => ObjectLookup,
): RecordMapper {
  const parsed = parseSelector(selectorText);
  // The loader refuses a bad selector; a mapper built without the loader selects nothing rather than all.
  const selector: Selector | undefined = parsed.ok ? parsed.selector : undefined;
  const everything = selectorText.trim() === "" && parsed.ok;
  const selected = (ev: LookoutEvent, info: ObjectInfo | undefined): boolean => {
    if (everything) return true;
    if (selector === undefined) return false;
    if (!("key" in ev) || ev.key === undefined) return false;
    return selector.matches(info?.labels ?? NO_LABELS);
  };
  const infoOf = (ev: LookoutEvent): ObjectInfo | undefined =>
    "host" in ev && typeof ev.host === "string" && "key" in ev
      ? lookup()(ev.host, (ev as { service?: string }).service)
      : undefined;
  // One series object per (object, service, perfdata label, unit), made on first use
  // (MetricPoint.series). The service too: a service the configuration lost has its host's info.
  const seriesIds = new WeakMap<ObjectInfo, Map<string, Map<string, Map<string, object>>>>();
  const seriesOf = (info: ObjectInfo, service: string, name: string, unit: string): object => {
    let byService = seriesIds.get(info);
    if (byService === undefined) {
      byService = new Map();
      seriesIds.set(info, byService);
    }
    let byName = byService.get(service);
    if (byName === undefined) {
      byName = new Map();
      byService.set(service, byName);
    }
    let byUnit = byName.get(name);
    if (byUnit === undefined) {
      byUnit = new Map();
      byName.set(name, byUnit);
    }
    let id = byUnit.get(unit);
    if (id === undefined) {
      id = {};
      byUnit.set(unit, id);
    }
    return id;
  };
  switch (input) {
    case "metrics":
      return {
        map(e, out) {
          const ev = e.event;
          if (ev.type !== "CheckResultProcessed" || ev.result.perfdata.length === 0) return 0;
          const info = everything ? lookup()(ev.host, ev.service) : infoOf(ev);
          if (!selected(ev, info)) return 0;
          const r = ev.result;
          const service = ev.service ?? "";
          const zone = info?.zone ?? "";
          const labels = info?.labels ?? NO_LABELS;
          for (const p of r.perfdata) {
            const m: { -readonly [K in keyof MetricPoint]: MetricPoint[K] } = {
              kind: "metric",
              seq: e.seq,
              time: r.checkedAt,
              host: ev.host,
              service,
              zone,
              labels,
              name: p.label,
              value: p.value,
              unit: p.uom,
              warn: p.warn,
              crit: p.crit,
            };
            if (p.min !== undefined) m.min = p.min;
            if (p.max !== undefined) m.max = p.max;
            if (info !== undefined) m.series = seriesOf(info, service, p.label, p.uom);
            out.push(m);
          }
          return r.perfdata.length;
        },
      };
    case "events":
      return {
        map(e, out) {
          const ev = e.event;
          if (ev.type.startsWith("Sink") && (ev as { sink?: string }).sink === sink) return 0;
          if (!everything && !selected(ev, infoOf(ev))) return 0;
          out.push({ kind: "event", seq: e.seq, event: ev });
          return 1;
        },
      };
    default: {
      const never: never = input;
      throw new Error(`unknown sink input ${String(never)}`);
    }
  }
}
