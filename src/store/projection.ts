import type { DowntimeRecord, HistoryRecord, ProjectionDelta, StatusPatch, StatusRecord } from "./records.js";

/** How much history the projection keeps in memory. */
export interface ProjectionLimits {
  /** Newest history entries kept for the global feed and per-object lookups. */
  readonly historyCapacity: number;
}

export const DEFAULT_PROJECTION_LIMITS: ProjectionLimits = { historyCapacity: 50_000 };

/** The serializable form of a projection, stored in snapshots and sent to readers on start. */
export interface ProjectionSnapshot {
  readonly eventSeq: number;
  readonly statuses: readonly StatusRecord[];
  readonly history: readonly HistoryRecord[];
  readonly downtimes: readonly DowntimeRecord[];
}

/**
 * The read side's state: the status record of every object that has had a result, the newest
 * history entries (ascending by sequence number), and the known downtimes. It changes only through
 * `applyDelta`, so the writer's copy and each reader's copy stay equal when fed the same deltas.
 *
 * Not thread-safe; each thread holds its own Projection. Cheap reads: `status` is a Map lookup and
 * `history` returns the backing array (callers must not modify it).
 */
export interface Projection {
  /** The last event sequence number applied. */
  eventSeq(): number;
  status(key: string): StatusRecord | undefined;
  /** Number of status records. */
  size(): number;
  /** History entries, oldest first; entries [historyStart(), length) are live. */
  history(): readonly HistoryRecord[];
  historyStart(): number;
  downtime(id: string): DowntimeRecord | undefined;
  applyDelta(delta: ProjectionDelta): void;
  /** The whole state, sorted: for comparisons and tests. */
  snapshot(): ProjectionSnapshot;
  /**
   * The whole state unsorted, in O(n) reference copies: what a snapshot stores. Records are
   * immutable, so the arrays stay a consistent picture while the projection moves on.
   */
  capture(): ProjectionSnapshot;
}

/** Creates a projection, empty or restored from a snapshot. */
export function createProjection(
  from?: ProjectionSnapshot,
  limits: ProjectionLimits = DEFAULT_PROJECTION_LIMITS,
): Projection {
  let eventSeq = from?.eventSeq ?? 0;
  const statuses = new Map<string, StatusRecord>();
  const downtimes = new Map<string, DowntimeRecord>();
  // A ring kept as an array with a moving start: appends are amortised O(1), and the array stays
  // sorted by seq for binary search.
  let history: HistoryRecord[] = [];
  let start = 0;
  for (const s of from?.statuses ?? []) statuses.set(s.key, s);
  for (const d of from?.downtimes ?? []) downtimes.set(d.id, d);
  for (const h of from?.history ?? []) history.push(h);
  trim();

  function trim(): void {
    const live = history.length - start;
    if (live > limits.historyCapacity) start = history.length - limits.historyCapacity;
    if (start > limits.historyCapacity) {
      history = history.slice(start);
      start = 0;
    }
  }

  return {
    eventSeq: () => eventSeq,
    status: (key) => statuses.get(key),
    size: () => statuses.size,
    history: () => history,
    historyStart: () => start,
    downtime: (id) => downtimes.get(id),
    applyDelta(delta) {
      for (const k of delta.removed) statuses.delete(k);
      for (const s of delta.statuses) {
        const prev = statuses.get(s.key);
        statuses.set(s.key, compact(s, prev));
      }
      for (const p of delta.patches) statuses.set(p.key, patchRecord(statuses.get(p.key), p));
      for (const h of delta.history) history.push(h);
      for (const d of delta.downtimesAdded) downtimes.set(d.id, d);
      for (const id of delta.downtimesRemoved) downtimes.delete(id);
      if (delta.history.length > 0) trim();
      if (delta.eventSeq > eventSeq) eventSeq = delta.eventSeq;
    },
    capture: () => ({
      eventSeq,
      statuses: [...statuses.values()],
      history: history.slice(start),
      downtimes: [...downtimes.values()],
    }),
    snapshot: () => ({
      eventSeq,
      statuses: [...statuses.values()].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0)),
      history: history.slice(start),
      downtimes: [...downtimes.values()].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)),
    }),
  };
}

type Mutable<T> = { -readonly [K in keyof T]: T[K] };
const INTERNED = new Map<string, string>();
const MAX_INTERNED = 4096;

/** One shared copy of a short, recurring string (states, units, thresholds, perfdata labels). */
function intern(s: string): string {
  const hit = INTERNED.get(s);
  if (hit !== undefined) return hit;
  if (s.length <= 32 && INTERNED.size < MAX_INTERNED) INTERNED.set(s, s);
  return s;
}

/**
 * Makes a record that arrived from another thread share strings with what is already held: the
 * key of the record it replaces, and interned states and perfdata fields. Each message brings its
 * own copies of every string; at 100,000 objects that is tens of megabytes of duplicates. Mutates
 * the record, which the caller has just received and nobody else holds.
 */
function compact(r: StatusRecord, prev: StatusRecord | undefined): StatusRecord {
  const m = r as Mutable<StatusRecord>;
  if (prev !== undefined) m.key = prev.key;
  m.state = intern(r.state) as StatusRecord["state"];
  m.stateType = intern(r.stateType) as StatusRecord["stateType"];
  for (const p of r.perfdata as Mutable<StatusRecord["perfdata"][number]>[]) {
    p.label = intern(p.label);
    p.uom = intern(p.uom);
    p.warn = intern(p.warn);
    p.crit = intern(p.crit);
  }
  return r;
}

/** The record of an object that has had no result: what a patch applies to when there is none. */
export function pendingRecord(key: string): StatusRecord {
  return {
    key,
    state: "PENDING",
    stateType: "HARD",
    attempt: 1,
    maxAttempts: 1,
    output: "",
    longOutput: "",
    perfdata: [],
    flapping: false,
    flapPercent: 0,
    inDowntime: false,
  };
}

/** A record with a patch applied (a new object; records are immutable). */
export function patchRecord(current: StatusRecord | undefined, p: StatusPatch): StatusRecord {
  const base = current ?? pendingRecord(p.key);
  const { acknowledgement: _, ...rest } = base;
  const ack = p.acknowledgement === undefined ? base.acknowledgement : (p.acknowledgement ?? undefined);
  return {
    ...rest,
    ...(ack === undefined ? {} : { acknowledgement: ack }),
    inDowntime: p.inDowntime ?? base.inDowntime,
  };
}

/** Two patches of one object as one: the later wins field by field. */
export function mergePatches(a: StatusPatch, b: StatusPatch): StatusPatch {
  return {
    key: a.key,
    ...(b.acknowledgement !== undefined
      ? { acknowledgement: b.acknowledgement }
      : a.acknowledgement !== undefined
        ? { acknowledgement: a.acknowledgement }
        : {}),
    ...(b.inDowntime !== undefined
      ? { inDowntime: b.inDowntime }
      : a.inDowntime !== undefined
        ? { inDowntime: a.inDowntime }
        : {}),
  };
}
