import { join } from "node:path";
import type { LookoutEvent } from "../model/events.js";
import { OutOfRangeError } from "./errors.js";
import { unpackBody } from "./event-log.js";
import { createFold, type Fold, type FoldSnapshot } from "./fold.js";

import { createProjection, type Projection, type ProjectionSnapshot } from "./projection.js";
import type { PackedStatuses, ProjectionDelta } from "./records.js";
import { packRecords } from "./snapshot-records.js";
import { Database } from "./sqlite.js";
import { decodeStatusImage } from "./status-image.js";

/**
 * Where the projection at a moment is rebuilt from: a kept snapshot (or the log's start) and the
 * events after it up to the last one logged at or before the moment. Two moments with the same
 * plan have the same projection (what a cache of rebuilt projections is keyed by).
 */
export interface AsOfPlan {
  /** The snapshot's `cmd_seq`; 0: the empty projection before the log's first event. */
  readonly snapshot: number;
  /** The last event the starting point covers (0: none). */
  readonly from: number;
  /** The last event to fold (>= from). */
  readonly to: number;
}

/**
 * Events the fold makes only history of (src/store/fold.ts), which a rebuild for ListStatus leaves
 * out. Any other event, including one added later, is folded.
 */
const HISTORY_ONLY: ReadonlySet<string> = new Set<LookoutEvent["type"]>([
  "StateChange",
  "FlappingStart",
  "FlappingStop",
  "CustomNotification",
  "CommandRejected",
  "NotificationSent",
  "NotificationFailed",
  "NotificationSuppressed",
  "ConfigApplied",
  "SinkFlushed",
  "SinkFailed",
  "SinkDropped",
  "ObjectAdded",
]);

/** The events a rebuild folds besides results: any but those that only make history. */
const FOLDED_OTHER = new RegExp(`"type":"(?!(?:CheckResultProcessed|${[...HISTORY_ONLY].join("|")})")`);
/** An event's object key as JSON.stringify writes it (a key in a string value has its quotes escaped). */
const KEY = /"key":"((?:[^"\\]|\\.)*)"/g;

/**
 * Whether the JSON text of a group of events (JSON.stringify's: no spaces) holds nothing a rebuild
 * folds but results for objects in `answered`: no event other than results and history-only ones,
 * and no key outside the set. Conservative: whatever it cannot rule out makes it say no.
 */
function onlyAnswered(text: string, answered: ReadonlySet<string>): boolean {
  if (answered.size === 0 || FOLDED_OTHER.test(text)) return false;
  KEY.lastIndex = 0;
  for (let m = KEY.exec(text); m !== null; m = KEY.exec(text)) {
    const raw = m[1] as string;
    const key = raw.includes("\\") ? (JSON.parse(`"${raw}"`) as string) : raw;
    if (!answered.has(key)) return false;
  }
  return true;
}

/** A rebuilt projection keeps no history (ListStatus reads none). */
const LIMITS = { historyCapacity: 1 };

/** The refusal of a rebuild whose starting point or events retention dropped after it was planned. */
function dropped(what: "snapshot" | "events"): OutOfRangeError {
  const which = what === "snapshot" ? "the snapshot it was to be rebuilt from was" : "events it needs were";
  return new OutOfRangeError(`${which} dropped by retention meanwhile: ask again`, true);
}

/**
 * The event log read for moments in the past (ListStatus `at`): which starting point and which
 * events answer a moment (`plan`), and the projection they make (`rebuild`). A read-only
 * connection of its own, so it runs beside the writer (WAL); never the live projection. The log's
 * time is each group's `at`, when its command was accepted; the projection at T is the fold of the
 * longest prefix of the log whose groups were all accepted at or before T (groups are appended in
 * the order they were accepted, so this is every group accepted by then). Synchronous and heavy:
 * run it off the thread that serves reads (src/store/as-of-thread.ts).
 */
export interface AsOfLog {
  /**
   * The plan for moment `at` (ms since the epoch), or OutOfRangeError when the log
   * no longer (or never did) hold what answers it, naming the oldest moment it can answer.
   */
  plan(at: number): AsOfPlan;
  /**
   * The projection a plan makes, without its history (ListStatus reads none), as the delta that
   * makes it of an empty projection, its records packed in buffers of their own (transferList
   * moves them to another thread without a copy).
   */
  rebuild(plan: AsOfPlan): ProjectionDelta;
  close(): void;
}

/** Options of openAsOfLog. */
export interface AsOfLogOptions {
  /**
   * Called between steps of a rebuild (each group of events read, each thousand events folded):
   * where the thread that runs it may pause to leave the CPU to others (src/store/as-of-thread.ts).
   */
  readonly pace?: () => void;
}

/** Opens the event log in dataDir read-only for reads of the past. */
export function openAsOfLog(dataDir: string, o: AsOfLogOptions = {}): AsOfLog {
  const pace = o.pace ?? (() => {});
  const db = new Database(join(dataDir, "lookout.db"), { readonly: true, fileMustExist: true });
  const hasTable = (name: string): boolean =>
    db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").get(name) !== undefined;
  const hasTimes = hasTable("snapshot_times");
  const hasImages = hasTable("status_images");
  const firstRow = db.prepare("SELECT first_seq AS seq, at FROM events ORDER BY last_seq LIMIT 1");
  const lastSeq = db.prepare("SELECT coalesce(max(last_seq), 0) AS s FROM events");
  const eventsBase = db.prepare("SELECT value FROM meta WHERE key = 'events_base'");
  // Snapshots (whole, or their status image) whose following events are all in the log
  // (event_seq >= first - 1), by log time. (Looked up by key only: a body is read only to rebuild
  // from it.)
  const held = hasImages
    ? "(EXISTS (SELECT 1 FROM status_images i WHERE i.cmd_seq = t.cmd_seq) OR EXISTS (SELECT 1 FROM snapshots s WHERE s.cmd_seq = t.cmd_seq))"
    : "EXISTS (SELECT 1 FROM snapshots s WHERE s.cmd_seq = t.cmd_seq)";
  const starts = hasTimes
    ? db.prepare(
        `SELECT t.cmd_seq AS cmdSeq, t.event_seq AS eventSeq, t.log_at AS logAt FROM snapshot_times t WHERE t.log_at > 0 AND t.event_seq >= ? AND ${held} ORDER BY t.event_seq`,
      )
    : undefined;
  const groupAt = db.prepare(
    "SELECT first_seq AS firstSeq, last_seq AS lastSeq, at FROM events WHERE last_seq >= ? ORDER BY last_seq LIMIT 1",
  );
  /**
   * The last event of the groups after event `from` accepted at or before `at`: a binary search
   * over the groups (their times never decrease along the log), reading a few groups, not all.
   */
  const lastAtOrBefore = (from: number, at: number, last: number): number => {
    let lo = from + 1;
    let hi = last + 1;
    // Invariant: groups ending before lo were accepted at or before `at`; the one holding hi, after.
    while (lo < hi) {
      const mid = lo + Math.floor((hi - lo) / 2);
      const g = groupAt.get(mid) as { firstSeq: number; lastSeq: number; at: number } | undefined;
      if (g === undefined) break;
      if (g.at <= at) lo = g.lastSeq + 1;
      // The group holding mid, or (no event is mid) the first after it: none lies in between.
      else hi = Math.min(g.firstSeq, mid);
    }
    return Math.max(from, lo - 1);
  };
  const snapshotBody = db.prepare("SELECT body FROM snapshots WHERE cmd_seq = ?");
  const imageBody = hasImages ? db.prepare("SELECT body FROM status_images WHERE cmd_seq = ?") : undefined;
  /** The projection (without history) and fold state a snapshot starts from: its image if it has one. */
  const startingPoint = (cmdSeq: number): { projection: Projection; fold: Fold } => {
    const image = imageBody?.get(cmdSeq) as { body: Buffer } | undefined;
    if (image !== undefined) {
      const s = decodeStatusImage(image.body);
      const projection = createProjection(undefined, LIMITS);
      projection.applyDelta(s.delta);
      return { projection, fold: createFold(s.fold) };
    }
    const row = snapshotBody.get(cmdSeq) as { body: Buffer } | undefined;
    if (row === undefined) throw dropped("snapshot");
    const s = JSON.parse(unpackBody(row.body)) as { projection: ProjectionSnapshot; fold: FoldSnapshot };
    return {
      projection: createProjection({ ...s.projection, history: [] }, LIMITS),
      fold: createFold(s.fold),
    };
  };
  const rowsBack = db.prepare(
    "SELECT last_seq AS lastSeq, first_seq AS firstSeq, body FROM events WHERE last_seq > ? AND first_seq <= ? ORDER BY last_seq DESC",
  );

  const outOfRange = (at: number, oldest: number | undefined): OutOfRangeError =>
    new OutOfRangeError(
      oldest === undefined
        ? `at ${iso(at)}: the log holds nothing to answer it yet`
        : `at ${iso(at)} is before the oldest time the log can answer, ${iso(oldest)}`,
    );

  return {
    plan(at) {
      const first = firstRow.get() as { seq: number; at: number } | undefined;
      const last = (lastSeq.get() as { s: number }).s;
      const base = (eventsBase.get() as { value: number } | undefined)?.value ?? 0;
      const candidates = (starts?.all(first === undefined ? 0 : first.seq - 1) ?? []) as {
        cmdSeq: number;
        eventSeq: number;
        logAt: number;
      }[];
      // The log's start is a starting point while nothing before its first event was trimmed.
      const fromStart = base === 0 && (first === undefined || first.seq <= 1);
      let start: { cmdSeq: number; eventSeq: number } | undefined;
      for (const c of candidates) if (c.logAt <= at) start = c;
      if (start === undefined && fromStart && first !== undefined && first.at <= at)
        start = { cmdSeq: 0, eventSeq: 0 };
      if (start === undefined) {
        const oldest = Math.min(
          fromStart && first !== undefined ? first.at : Number.POSITIVE_INFINITY,
          candidates[0]?.logAt ?? Number.POSITIVE_INFINITY,
        );
        throw outOfRange(at, Number.isFinite(oldest) ? oldest : undefined);
      }
      return { snapshot: start.cmdSeq, from: start.eventSeq, to: lastAtOrBefore(start.eventSeq, at, last) };
    },
    rebuild(plan) {
      const { projection, fold } =
        plan.snapshot > 0
          ? startingPoint(plan.snapshot)
          : { projection: createProjection(undefined, LIMITS), fold: createFold() };
      // Newest first, keeping what changes the projection: of an object's results only the last
      // (the fold would replace the others by it, as it does within a delta), and no event that
      // only makes history. Then folded oldest first, as one delta.
      const seqs: number[] = [];
      const kept: LookoutEvent[] = [];
      const resulted = new Set<string>();
      let expect = plan.to;
      for (const r of rowsBack.iterate(plan.from, plan.to) as Iterable<{
        lastSeq: number;
        firstSeq: number;
        body: Buffer;
      }>) {
        pace();
        if (Math.min(r.lastSeq, plan.to) !== expect) throw dropped("events");
        const lo = Math.max(plan.from + 1, r.firstSeq);
        const text = unpackBody(r.body);
        // A group of results only for objects a newer result already answers (most groups once
        // the newest of every object is found) adds nothing: its text is searched, not parsed.
        if (r.firstSeq >= lo && r.lastSeq <= plan.to && onlyAnswered(text, resulted)) {
          expect = lo - 1;
          continue;
        }
        const events = JSON.parse(text) as LookoutEvent[];
        for (let seq = Math.min(r.lastSeq, plan.to); seq >= lo; seq--) {
          const e = events[seq - r.firstSeq] as LookoutEvent;
          if (HISTORY_ONLY.has(e.type)) continue;
          if (e.type === "CheckResultProcessed") {
            if (resulted.has(e.key)) continue;
            resulted.add(e.key);
          }
          seqs.push(seq);
          kept.push(e);
        }
        expect = lo - 1;
      }
      if (expect !== plan.from) throw dropped("events");
      for (let i = kept.length - 1; i >= 0; i--) {
        fold.apply(kept[i] as LookoutEvent, seqs[i] as number);
        if (i % 1000 === 0) pace();
      }
      // At the plan's last event, even when that made only history.
      const delta = fold.take() ?? {
        eventSeq: plan.to,
        removed: [],
        statusKeys: [],
        statuses: [],
        patches: [],
        history: [],
        downtimesAdded: [],
        downtimesRemoved: [],
      };
      projection.applyDelta({ ...delta, eventSeq: plan.to, history: [] });
      const frame = projection.captureFrame();
      return {
        eventSeq: frame.eventSeq,
        removed: [],
        statusKeys: [],
        statuses: [],
        packed: packHeld(projection, frame.keys),
        patches: [],
        history: [],
        downtimesAdded: frame.downtimes,
        downtimesRemoved: [],
        ...(frame.comments === undefined ? {} : { commentsAdded: frame.comments }),
        ...(frame.reschedules === undefined ? {} : { reschedules: frame.reschedules }),
      };
    },
    close: () => db.close(),
  };
}

/** The records of `keys` as `p` holds them, copied into buffers of their own (transferred, not copied, to the reader). */
function packHeld(p: Projection, keys: readonly string[]): PackedStatuses {
  const records = packRecords(p, keys, 0, keys.length);
  const keyLengths = new Uint32Array(records.keys.length);
  let keyTotal = 0;
  for (let i = 0; i < records.keys.length; i++) {
    const n = Buffer.byteLength(records.keys[i] as string, "utf8");
    keyLengths[i] = n;
    keyTotal += n;
  }
  const keyBytes = Buffer.allocUnsafeSlow(keyTotal);
  let at = 0;
  for (const k of records.keys) at += keyBytes.write(k, at, "utf8");
  return { bytes: records.bytes, lengths: records.lengths, keyBytes, keyLengths };
}

function iso(ms: number): string {
  const d = new Date(ms);
  return Number.isNaN(d.getTime()) ? String(ms) : d.toISOString();
}
