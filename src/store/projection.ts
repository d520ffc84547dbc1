import type { DowntimeRecord, HistoryRecord, ProjectionDelta, StatusRecord } from "./records.js";

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
  snapshot(): ProjectionSnapshot;
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
      for (const s of delta.statuses) statuses.set(s.key, s);
      for (const k of delta.removed) statuses.delete(k);
      for (const h of delta.history) history.push(h);
      for (const d of delta.downtimesAdded) downtimes.set(d.id, d);
      for (const id of delta.downtimesRemoved) downtimes.delete(id);
      if (delta.history.length > 0) trim();
      if (delta.eventSeq > eventSeq) eventSeq = delta.eventSeq;
    },
    snapshot: () => ({
      eventSeq,
      statuses: [...statuses.values()].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0)),
      history: history.slice(start),
      downtimes: [...downtimes.values()].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)),
    }),
  };
}
