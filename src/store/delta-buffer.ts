import { forEachRecord, packStatuses } from "./packed-statuses.js";
import { mergePatches, patchRecord } from "./projection.js";
import type {
  CommentRecord,
  DowntimeRecord,
  HistoryRecord,
  ProjectionDelta,
  RescheduleRecord,
  StatusPatch,
} from "./records.js";
import { decodeStatus, type EncodedStatus, encodeStatus } from "./status-codec.js";

/** What a reader gets next: a part of the changes, or a barrier it must answer (a snapshot point). */
export type BufferItem =
  /** `applied`: every request up to this id is in what was delivered with this item (0: no news). */
  | { readonly kind: "delta"; readonly delta: ProjectionDelta; readonly applied: number }
  | { readonly kind: "barrier"; readonly id: number };

/**
 * Accumulates projection deltas until a reader pulls them, coalescing as it goes: an object updated
 * ten times before the reader asks is sent once. Readers pull one bounded part at a time, so a
 * reader that falls behind gets fewer, denser updates instead of a flood it must drain in one go.
 *
 * A barrier (`seal`) stops coalescing across it: everything added before is delivered before the
 * barrier, everything after, after it. When the reader sees the barrier its projection reflects
 * exactly the events up to that point — the writer snapshots there. Taking a part also freezes the
 * segment it comes from (later changes start the next one), so a segment always drains completely
 * within a bounded number of parts, however fast changes keep arriving.
 */
export interface DeltaBuffer {
  add(delta: ProjectionDelta): void;
  /** Every request up to `id` is applied and its changes were added. */
  markApplied(id: number): void;
  seal(barrier: number): void;
  /** Records and patches waiting, over all segments. */
  size(): number;
  /** Removes and returns the next item, parts holding at most `max` records, patches and entries. */
  take(max: number): BufferItem | undefined;
}

interface Segment {
  statuses: Map<string, EncodedStatus>;
  patches: Map<string, StatusPatch>;
  removed: Set<string>;
  history: HistoryRecord[];
  dtAdded: Map<string, DowntimeRecord>;
  dtRemoved: Set<string>;
  cAdded: Map<string, CommentRecord>;
  cRemoved: Set<string>;
  reschedules: Map<string, RescheduleRecord>;
  eventSeq: number;
  /** The last request id whose changes this segment holds (0: none). */
  applied: number;
  barrier: number | undefined;
}

const newSegment = (): Segment => ({
  statuses: new Map(),
  patches: new Map(),
  removed: new Set(),
  history: [],
  dtAdded: new Map(),
  dtRemoved: new Set(),
  cAdded: new Map(),
  cRemoved: new Set(),
  reschedules: new Map(),
  eventSeq: 0,
  applied: 0,
  barrier: undefined,
});

const hasData = (s: Segment): boolean =>
  s.eventSeq > 0 ||
  s.applied > 0 ||
  s.statuses.size > 0 ||
  s.patches.size > 0 ||
  s.removed.size > 0 ||
  s.history.length > 0 ||
  s.dtAdded.size + s.dtRemoved.size + s.reschedules.size > 0 ||
  s.cAdded.size + s.cRemoved.size > 0;

/**
 * History entries travel as objects, not packed: a part takes at most this many characters of
 * them (and at most `max` entries), so that a part's message stays well under the 100 KB above
 * which V8 deserializes it straight into the reader's old generation (see PackedStatuses).
 */
export const HISTORY_CHARS_PER_PART = 48 * 1024;
/** A history entry's fixed fields, as characters of the serialized message, roughly. */
const HISTORY_ENTRY_CHARS = 96;

/** How many of the first entries of `history` go in one part. */
function historyInPart(history: readonly HistoryRecord[], max: number): number {
  let chars = 0;
  let n = 0;
  for (const h of history) {
    if (n >= max) break;
    chars += HISTORY_ENTRY_CHARS + h.key.length + h.output.length + h.author.length + h.comment.length;
    // The first entry always goes, however long.
    if (n > 0 && chars > HISTORY_CHARS_PER_PART) break;
    n++;
  }
  return n;
}

/** Takes up to max entries out of a map, in insertion order. */
function takeFrom<T>(m: Map<string, T>, max: number): T[] {
  return takeEntries(m, max).values;
}

/** Takes up to max entries out of a map, in insertion order, keys and values in step. */
function takeEntries<T>(m: Map<string, T>, max: number): { keys: string[]; values: T[] } {
  if (m.size <= max) {
    const all = { keys: [...m.keys()], values: [...m.values()] };
    m.clear();
    return all;
  }
  const keys: string[] = [];
  const values: T[] = [];
  for (const [k, v] of m) {
    if (keys.length >= max) break;
    keys.push(k);
    values.push(v);
    m.delete(k);
  }
  return { keys, values };
}

export function createDeltaBuffer(): DeltaBuffer {
  const segments: Segment[] = [newSegment()];
  const newest = (): Segment => segments[segments.length - 1] as Segment;

  return {
    add(d) {
      const seg = newest();
      for (const k of d.removed) {
        seg.statuses.delete(k);
        seg.patches.delete(k);
        seg.removed.add(k);
      }
      forEachRecord(d, (key, record) => {
        seg.patches.delete(key);
        seg.statuses.set(key, record);
      });
      for (const p of d.patches) {
        const full = seg.statuses.get(p.key);
        if (full !== undefined) {
          seg.statuses.set(p.key, encodeStatus(patchRecord(decodeStatus(p.key, full), p)));
        } else {
          const prior = seg.patches.get(p.key);
          seg.patches.set(p.key, prior === undefined ? p : mergePatches(prior, p));
        }
      }
      for (const h of d.history) seg.history.push(h);
      for (const id of d.downtimesRemoved) {
        seg.dtAdded.delete(id);
        seg.dtRemoved.add(id);
      }
      for (const a of d.downtimesAdded) {
        seg.dtRemoved.delete(a.id);
        seg.dtAdded.set(a.id, a);
      }
      for (const id of d.commentsRemoved ?? []) {
        seg.cAdded.delete(id);
        seg.cRemoved.add(id);
      }
      for (const c of d.commentsAdded ?? []) {
        seg.cRemoved.delete(c.id);
        seg.cAdded.set(c.id, c);
      }
      for (const r of d.reschedules ?? []) {
        seg.reschedules.delete(r.key);
        seg.reschedules.set(r.key, r);
      }
      if (d.eventSeq > seg.eventSeq) seg.eventSeq = d.eventSeq;
    },
    markApplied(id) {
      const seg = newest();
      if (id > seg.applied) seg.applied = id;
    },
    size() {
      let n = 0;
      for (const seg of segments) n += seg.statuses.size + seg.patches.size;
      return n;
    },
    seal(barrier) {
      newest().barrier = barrier;
      segments.push(newSegment());
    },
    take(max) {
      let seg = segments[0] as Segment;
      while (!hasData(seg)) {
        if (seg.barrier !== undefined) {
          segments.shift();
          return { kind: "barrier", id: seg.barrier };
        }
        if (segments.length === 1) return undefined;
        // A frozen segment delivered in full.
        segments.shift();
        seg = segments[0] as Segment;
      }
      // Delivering from the segment that is still gathering changes freezes it: new changes go to
      // (and coalesce in) the next one, so this one completes even under a steady stream — and
      // completing is what hands the reader the event sequence number and the visibility watermark.
      if (segments.length === 1) segments.push(newSegment());
      const statuses = takeEntries(seg.statuses, max);
      const patches = takeFrom(seg.patches, max);
      const n = historyInPart(seg.history, max);
      const history = seg.history.length <= n ? seg.history : seg.history.slice(0, n);
      seg.history = seg.history.length <= n ? [] : seg.history.slice(n);
      const done = seg.statuses.size === 0 && seg.patches.size === 0 && seg.history.length === 0;
      const delta: ProjectionDelta = {
        eventSeq: done ? seg.eventSeq : 0,
        removed: [...seg.removed],
        // Parts go to the reader's thread: buffers it is handed instead of a string per key and record.
        statusKeys: [],
        statuses: [],
        packed: packStatuses(statuses.keys, statuses.values),
        patches,
        history,
        downtimesAdded: [...seg.dtAdded.values()],
        downtimesRemoved: [...seg.dtRemoved],
        ...(seg.cAdded.size === 0 ? {} : { commentsAdded: [...seg.cAdded.values()] }),
        ...(seg.cRemoved.size === 0 ? {} : { commentsRemoved: [...seg.cRemoved] }),
        ...(seg.reschedules.size === 0 ? {} : { reschedules: [...seg.reschedules.values()] }),
      };
      seg.reschedules.clear();
      seg.removed.clear();
      seg.dtAdded.clear();
      seg.dtRemoved.clear();
      seg.cAdded.clear();
      seg.cRemoved.clear();
      const applied = done ? seg.applied : 0;
      if (done) {
        seg.eventSeq = 0;
        seg.applied = 0;
      }
      return { kind: "delta", delta, applied };
    },
  };
}
