import type { DowntimeRecord, HistoryRecord, ProjectionDelta, StatusRecord } from "./records.js";

/**
 * Accumulates projection deltas until a reader pulls them, coalescing as it goes: an object updated
 * ten times before the reader asks is sent once. Readers pull one bounded part at a time, so a
 * reader that falls behind gets fewer, denser updates instead of a flood it must drain in one go.
 */
export interface DeltaBuffer {
  add(delta: ProjectionDelta): void;
  /** Whether anything is waiting. */
  pending(): boolean;
  /**
   * Removes and returns the next part: at most `max` statuses and `max` history entries (oldest
   * first), every removal. `eventSeq` is set only on the part that empties the buffer.
   */
  take(max: number): ProjectionDelta | undefined;
}

export function createDeltaBuffer(): DeltaBuffer {
  let statuses = new Map<string, StatusRecord>();
  const removed = new Set<string>();
  let history: HistoryRecord[] = [];
  const dtAdded = new Map<string, DowntimeRecord>();
  const dtRemoved = new Set<string>();
  let eventSeq = 0;

  return {
    add(d) {
      for (const k of d.removed) {
        statuses.delete(k);
        removed.add(k);
      }
      for (const s of d.statuses) {
        removed.delete(s.key);
        statuses.set(s.key, s);
      }
      for (const h of d.history) history.push(h);
      for (const id of d.downtimesRemoved) {
        dtAdded.delete(id);
        dtRemoved.add(id);
      }
      for (const a of d.downtimesAdded) {
        dtRemoved.delete(a.id);
        dtAdded.set(a.id, a);
      }
      if (d.eventSeq > eventSeq) eventSeq = d.eventSeq;
    },
    pending: () =>
      eventSeq > 0 ||
      statuses.size > 0 ||
      removed.size > 0 ||
      history.length > 0 ||
      dtAdded.size + dtRemoved.size > 0,
    take(max) {
      if (!this.pending()) return undefined;
      let part: StatusRecord[];
      if (statuses.size <= max) {
        part = [...statuses.values()];
        statuses = new Map();
      } else {
        part = [];
        for (const [k, s] of statuses) {
          if (part.length >= max) break;
          part.push(s);
          statuses.delete(k);
        }
      }
      const hist = history.length <= max ? history : history.slice(0, max);
      history = history.length <= max ? [] : history.slice(max);
      const delta: ProjectionDelta = {
        eventSeq: statuses.size === 0 && history.length === 0 ? eventSeq : 0,
        statuses: part,
        removed: [...removed],
        history: hist,
        downtimesAdded: [...dtAdded.values()],
        downtimesRemoved: [...dtRemoved],
      };
      removed.clear();
      dtAdded.clear();
      dtRemoved.clear();
      if (delta.eventSeq !== 0) eventSeq = 0;
      return delta;
    },
  };
}
