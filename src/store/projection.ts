import { disabledFields, disabledMaskOf, type ObjectSwitch, switchBit } from "../model/object-flags.js";
import { createHistoryRing, type FrozenHistory, type HistoryRing } from "./history-ring.js";
import { packedKeyReader, recordCount } from "./packed-statuses.js";
import { createRecordArena } from "./record-arena.js";
import type {
  CommentRecord,
  DowntimeRecord,
  HistoryRecord,
  ProjectionDelta,
  RescheduleRecord,
  StatusPatch,
  StatusRecord,
} from "./records.js";
import {
  checkedByLength,
  decodeStatus,
  disabledMaskAt,
  type EncodedStatus,
  encodeStatus,
} from "./status-codec.js";
import { type StatusSummary, SUMMARY_VALUES, statusSummary } from "./status-summary.js";

/** How much history the projection keeps in memory. */
export interface ProjectionLimits {
  /** Newest history entries kept for the global feed and per-object lookups. */
  readonly historyCapacity: number;
}

export const DEFAULT_PROJECTION_LIMITS: ProjectionLimits = { historyCapacity: 50_000 };

/** The serializable form of a projection, stored in snapshots (JSON) and compared in tests. */
export interface ProjectionSnapshot {
  readonly eventSeq: number;
  readonly statuses: readonly StatusRecord[];
  readonly history: readonly HistoryRecord[];
  readonly downtimes: readonly DowntimeRecord[];
  /** Absent in snapshots taken before comments. */
  readonly comments?: readonly CommentRecord[];
  /** Pending reschedules; absent when none. */
  readonly reschedules?: readonly RescheduleRecord[];
}

/**
 * A projection as it is held: records encoded (`keys[i]` has `encoded[i]`). What crosses between
 * threads (the writer's recovered projection at start) and what a snapshot captures: O(n)
 * reference copies, no decoding.
 */
export interface ProjectionImage {
  readonly eventSeq: number;
  readonly keys: readonly string[];
  readonly encoded: readonly EncodedStatus[];
  readonly history: readonly HistoryRecord[];
  readonly downtimes: readonly DowntimeRecord[];
  readonly comments?: readonly CommentRecord[];
  readonly reschedules?: readonly RescheduleRecord[];
}

/** The history feed as a reader sees it: positions 0 (oldest) to size - 1 (newest), ascending by seq. */
export type HistoryView = Pick<HistoryRing, "size" | "capacity" | "at" | "seqAt" | "keyAt">;

/**
 * The read side's state: the status record of every object that has had a result, the newest
 * history entries (ascending by sequence number), and the known downtimes. It changes only through
 * `applyDelta`, so copies fed the same deltas stay equal.
 *
 * Records are held encoded (src/store/status-codec.ts), outside the JavaScript heap
 * (src/store/record-arena.ts): `statusRef`/`copyStatus` copy a record's bytes into a response,
 * `status` decodes. History is packed (src/store/history-ring.ts) and shares its keys with the
 * records. Not thread-safe; each thread holds its own Projection.
 */
export interface Projection {
  /** The last event sequence number applied. */
  eventSeq(): number;
  /**
   * The projection's own copy of a key when it holds a record under it (else undefined): for others
   * that keep keys (the object index), so that a key is held once.
   */
  heldKey(key: string): string | undefined;
  /** The record of an object, decoded (a fresh copy); undefined: PENDING. */
  status(key: string): StatusRecord | undefined;
  /** The record of an object as held, encoded (a new string); undefined: PENDING. */
  encodedStatus(key: string): EncodedStatus | undefined;
  /**
   * A handle on the encoded record of an object, or -1 when PENDING: for `statusLength` and
   * `copyStatus`, which splice records into a response without a string per record. An object
   * keeps its handle while it has a record, whatever the record becomes, so a caller may keep
   * handles (by object) for as long as `statusRefEpoch` stays the same; -1 is never kept (the
   * object may get a record).
   */
  statusRef(key: string): number;
  /** Changes whenever a handle may stop naming its object's record (an object lost its record). */
  statusRefEpoch(): number;
  /** The length in bytes of the encoded record behind a handle. */
  statusLength(ref: number): number;
  /**
   * Copies the encoded record behind a handle into `dst` at `at` — all of it, or its bytes from
   * `from` up to `to` — and returns where it ends.
   */
  copyStatus(ref: number, dst: Uint8Array, at: number, from?: number, to?: number): number;
  /**
   * How many of the first bytes of the record behind a handle are its `checked_by` field, which a
   * ListStatus page moves after the object's configured fields (src/store/status-codec.ts); 0
   * when the record has none.
   */
  statusCheckedByLength(ref: number): number;
  /**
   * Whether an operator turned switch `s` of an object off (SetObjectFlags; src/model/object-flags.ts):
   * the scheduler asks it for every due check (active checks), so it reads only the record's first
   * bytes, where the switches are held (src/store/status-codec.ts). False for an object without a
   * record.
   */
  switchedOff(key: string, s: ObjectSwitch): boolean;
  /** Number of status records. */
  size(): number;
  /**
   * How many records have each StatusSummary value (src/store/status-summary.ts): kept beside
   * each record as it is stored, counted in one pass over a typed array (no record is read).
   */
  summaryCounts(): Uint32Array;
  /** The summary of an object's record (src/store/status-summary.ts) without decoding it; undefined: PENDING. */
  statusSummary(key: string): StatusSummary | undefined;
  /** The history feed, oldest first (a live view: it changes as deltas are applied). */
  history(): HistoryView;
  downtime(id: string): DowntimeRecord | undefined;
  /** Every scheduled or active downtime (a live view). */
  downtimes(): ReadonlyMap<string, DowntimeRecord>;
  comment(id: string): CommentRecord | undefined;
  /** Every comment, operators' and acknowledgements' (a live view). */
  comments(): ReadonlyMap<string, CommentRecord>;
  /** Checks rescheduled that have not run yet (no result checked at or after their time). */
  reschedules(): IterableIterator<RescheduleRecord>;
  /**
   * Calls `listener` with each reschedule a delta brings that has not run yet, once the delta is
   * wholly applied (the scheduler's news of RescheduleCheck). Returns the function that unsubscribes.
   */
  onReschedule(listener: (r: RescheduleRecord) => void): () => void;
  applyDelta(delta: ProjectionDelta): void;
  /**
   * Applies a delta in steps, so that a thread serving reads can answer them between steps: each
   * call of the function returned applies up to `max` more of the delta's records and says whether
   * the delta is now wholly applied (removals come first, patches, history, downtimes and the
   * event sequence number last). Until then the projection holds some of the delta's records and
   * not others — each record whole, as between two deltas — and must not be given another delta.
   */
  applyDeltaInSteps(delta: ProjectionDelta, max: number): () => boolean;
  /** The whole state decoded and sorted: for comparisons and tests. */
  snapshot(): ProjectionSnapshot;
  /**
   * The whole state as held, records as encoded strings: what a snapshot stores. It is a copy, so
   * it stays a consistent picture while the projection moves on.
   */
  capture(): ProjectionImage;
  /**
   * The state as held except the records themselves (copies, like capture's): the keys of the
   * records, in the order they came, for a caller that copies the records out by key while the
   * projection is given no delta (src/store/snapshot-records.ts). The history is a frozen copy of
   * the ring, made into records as it is read, so that taking the frame costs one short turn.
   */
  captureFrame(): Omit<ProjectionImage, "encoded" | "history"> & { readonly history: FrozenHistory };
}

function isImage(from: ProjectionSnapshot | ProjectionImage): from is ProjectionImage {
  return "encoded" in from;
}

/** Creates a projection, empty or restored from a snapshot or an image. */
export function createProjection(
  from?: ProjectionSnapshot | ProjectionImage,
  limits: ProjectionLimits = DEFAULT_PROJECTION_LIMITS,
): Projection {
  let eventSeq = from?.eventSeq ?? 0;
  // Each record's checked_by length is kept beside it: a page asks for it on every row.
  const statuses = createRecordArena(checkedByLength, { values: SUMMARY_VALUES, tag: statusSummary });
  const downtimes = new Map<string, DowntimeRecord>();
  const comments = new Map<string, CommentRecord>();
  const reschedules = new Map<string, RescheduleRecord>();
  const rescheduleListeners = new Set<(r: RescheduleRecord) => void>();
  const history = createHistoryRing(limits.historyCapacity);
  /** The arena's copy of a key when it holds a record under it. */
  const heldKey = (key: string): string | undefined => {
    const slot = statuses.find(key);
    return slot < 0 ? undefined : statuses.keyAt(slot);
  };
  /** A key to keep with a history entry: the arena's copy when there is one (one string, not two). */
  const sharedKey = (key: string): string => heldKey(key) ?? key;
  if (from !== undefined && isImage(from)) {
    for (let i = 0; i < from.keys.length; i++)
      statuses.set(from.keys[i] as string, from.encoded[i] as string);
  } else {
    for (const s of from?.statuses ?? []) statuses.set(s.key, encodeStatus(s));
  }
  for (const d of from?.downtimes ?? []) downtimes.set(d.id, d);
  for (const c of from?.comments ?? []) comments.set(c.id, c);
  for (const r of from?.reschedules ?? []) reschedules.set(r.key, r);
  for (const h of from?.history ?? []) history.push(h, sharedKey(h.key));

  /** Where `switchedOff` copies a record's first bytes. */
  const scratch = new Uint8Array(64);
  const decoded = (key: string): StatusRecord | undefined => {
    const e = statuses.get(key);
    return e === undefined ? undefined : decodeStatus(key, e);
  };
  const allKeys = (): string[] => [...statuses.keys()];
  /** Whether the object has a result checked at or after `at`. */
  const checkedSince = (key: string, at: number): boolean => (decoded(key)?.lastCheck ?? -1) >= at;
  /** A reschedule is pending until a result checked at or after its time arrives. */
  const settleReschedule = (key: string): void => {
    const r = reschedules.get(key);
    if (r !== undefined && checkedSince(key, r.runAt)) reschedules.delete(key);
  };
  const optional = <T>(name: string, m: Map<string, T>) => (m.size === 0 ? {} : { [name]: [...m.values()] });

  const steps = (delta: ProjectionDelta, max: number): (() => boolean) => {
    const keys = delta.statusKeys;
    const count = recordCount(delta);
    // Packed records, with their keys read in order as they are placed.
    const fromPacked =
      delta.packed === undefined
        ? undefined
        : { packed: delta.packed, nextKey: packedKeyReader(delta.packed) };
    let next = -1;
    // Where the next packed record starts.
    let at = 0;
    return () => {
      if (next === -1) {
        for (const k of delta.removed) {
          statuses.delete(k);
          reschedules.delete(k);
        }
        next = 0;
      }
      const end = Math.min(count, next + max);
      if (fromPacked === undefined) {
        for (let i = next; i < end; i++) {
          const key = keys[i] as string;
          statuses.set(key, delta.statuses[i] as string);
          if (reschedules.size > 0) settleReschedule(key);
        }
      } else {
        const { packed, nextKey } = fromPacked;
        for (let i = next; i < end; i++) {
          const len = packed.lengths[i] as number;
          const key = nextKey();
          statuses.setBytes(key, packed.bytes, at, len);
          at += len;
          if (reschedules.size > 0) settleReschedule(key);
        }
      }
      next = end;
      if (next < count) return false;
      // Patches are rare (acknowledgements, downtimes): decode, patch, encode. After the records:
      // a patch applies to the object's record as the delta leaves it.
      for (const p of delta.patches) statuses.set(p.key, encodeStatus(patchRecord(decoded(p.key), p)));
      for (const h of delta.history) history.push(h, sharedKey(h.key));
      for (const d of delta.downtimesAdded) downtimes.set(d.id, upgraded(downtimes.get(d.id), d));
      for (const id of delta.downtimesRemoved) downtimes.delete(id);
      for (const id of delta.commentsRemoved ?? []) comments.delete(id);
      for (const c of delta.commentsAdded ?? []) comments.set(c.id, c);
      const news: RescheduleRecord[] = [];
      for (const r of delta.reschedules ?? []) {
        if (checkedSince(r.key, r.runAt)) continue; // ran already, within this delta
        reschedules.set(r.key, r);
        news.push(r);
      }
      if (delta.eventSeq > eventSeq) eventSeq = delta.eventSeq;
      for (const r of news) for (const f of rescheduleListeners) f(r);
      return true;
    };
  };

  return {
    eventSeq: () => eventSeq,
    heldKey,
    status: decoded,
    encodedStatus: (key) => statuses.get(key),
    statusRef: (key) => statuses.find(key),
    statusRefEpoch: () => statuses.generation,
    statusLength: (ref) => statuses.lengthOf(ref),
    copyStatus: (ref, dst, at, from, to) => statuses.copy(ref, dst, at, from, to),
    statusCheckedByLength: (ref) => statuses.markOf(ref),
    switchedOff(key, s) {
      const ref = statuses.find(key);
      if (ref < 0) return false;
      const n = statuses.markOf(ref);
      if (n === 0) return false;
      const head = n <= scratch.length ? scratch : new Uint8Array(n);
      statuses.copy(ref, head, 0, 0, n);
      return (disabledMaskAt(head, n) & switchBit(s)) !== 0;
    },
    size: () => statuses.size,
    summaryCounts: () => statuses.tagCounts(),
    statusSummary(key) {
      const slot = statuses.find(key);
      return slot < 0 ? undefined : statuses.tagOf(slot);
    },
    history: () => history,
    downtime: (id) => downtimes.get(id),
    downtimes: () => downtimes,
    comment: (id) => comments.get(id),
    comments: () => comments,
    reschedules: () => reschedules.values(),
    onReschedule(listener) {
      rescheduleListeners.add(listener);
      return () => rescheduleListeners.delete(listener);
    },
    applyDelta(delta) {
      const step = steps(delta, Number.POSITIVE_INFINITY);
      let done = false;
      while (!done) done = step();
    },
    applyDeltaInSteps: (delta, max) => steps(delta, Math.max(1, max)),
    capture: () => {
      const keys = allKeys();
      return {
        eventSeq,
        keys,
        encoded: keys.map((k) => statuses.get(k) as EncodedStatus),
        history: history.toArray(),
        downtimes: [...downtimes.values()],
        comments: [...comments.values()],
        ...optional("reschedules", reschedules),
      };
    },
    captureFrame: () => ({
      eventSeq,
      keys: allKeys(),
      history: history.frozen(),
      downtimes: [...downtimes.values()],
      comments: [...comments.values()],
      ...optional("reschedules", reschedules),
    }),
    snapshot: () => ({
      eventSeq,
      statuses: allKeys()
        .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
        .map((k) => decodeStatus(k, statuses.get(k) as string)),
      history: history.toArray(),
      downtimes: [...downtimes.values()].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)),
      ...(comments.size === 0
        ? {}
        : { comments: [...comments.values()].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)) }),
      ...optional("reschedules", reschedules),
    }),
  };
}

/**
 * A downtime's record as a delta brings it, over the one held: whole, except from a fold restored
 * from a snapshot taken before downtime records existed, which knows only the downtime's objects
 * and state (no `created`): the held record keeps its window then.
 */
function upgraded(held: DowntimeRecord | undefined, d: DowntimeRecord): DowntimeRecord {
  if (held === undefined || d.created !== undefined) return d;
  return { ...held, ...d, start: held.start, end: held.end };
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
  const {
    acknowledgement: _,
    activeChecksDisabled: _a,
    passiveChecksDisabled: _p,
    notificationsDisabled: _n,
    flapDetectionDisabled: _f,
    ...rest
  } = base;
  const ack = p.acknowledgement === undefined ? base.acknowledgement : (p.acknowledgement ?? undefined);
  return {
    ...rest,
    ...(ack === undefined ? {} : { acknowledgement: ack }),
    inDowntime: p.inDowntime ?? base.inDowntime,
    ...disabledFields(p.disabled ?? disabledMaskOf(base)),
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
    ...(b.disabled !== undefined
      ? { disabled: b.disabled }
      : a.disabled !== undefined
        ? { disabled: a.disabled }
        : {}),
  };
}
