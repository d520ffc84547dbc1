import { join } from "node:path";
import type { CheckResultProcessedEvent, LookoutEvent } from "../model/events.js";
import { unpackBody, unpackBodyBytes } from "./event-log.js";
import { eventsMatching, groupEvents, groupEventsQuick } from "./group-scan.js";
import { HISTORY_KINDS, historyKeyOf, historyRecordOf } from "./history-of-event.js";
import { type PerfdataPoint, type PerfdataSeriesSet, perfdataSeries } from "./perfdata-buckets.js";
import type { HistoryRecord } from "./records.js";
import { Database, type Statement } from "./sqlite.js";

/**
 * A page of history read from the log. Times are the log's (each group's `at`, when its command
 * was accepted: what retention and ListStatus `at` go by); `cursor` is where the previous page
 * stopped, exclusive: newest first, events below it; oldest first, above it.
 */
export interface LogHistoryQuery {
  /** The objects whose events count; undefined: every object. */
  readonly keys?: readonly string[];
  /** The kinds that count; undefined or empty: every kind of history entry. */
  readonly kinds?: readonly string[];
  /** Ms since the epoch: groups logged at or after since and before until. */
  readonly since?: number;
  readonly until?: number;
  readonly oldestFirst: boolean;
  readonly cursor?: number;
  readonly limit: number;
  /** Stop scanning after about this many ms (a page may then hold fewer entries, even none). */
  readonly budgetMs: number;
}

/** The entries, in the order asked, and where the next page starts (undefined: this was the last). */
export interface LogHistoryPage {
  readonly items: readonly HistoryRecord[];
  readonly cursor?: number;
}

/** One object's perfdata over a range of the log's time. */
export interface LogPerfdataQuery {
  readonly key: string;
  readonly since?: number;
  readonly until?: number;
  /** Empty: every label. */
  readonly labels: readonly string[];
  readonly maxPoints: number;
}

/**
 * History and perfdata read from the event log itself (the `events` table), beyond what the
 * projection keeps in memory: ListHistory with a range, kinds, a selector or oldest first, and
 * ListPerfdata. A read-only connection of its own (WAL: never waits on the writer, nor the writer
 * on it); synchronous and possibly long, so run it off the thread that serves reads
 * (src/store/log-history-thread.ts). A time range becomes a range of sequence numbers by binary
 * search over the groups (their times never decrease along the log). History is then found
 * through the log's `history` table (a row per entry, written with its events: src/store/event-log.ts),
 * reading only the groups that hold the entries; the part of a log from before that table, and
 * perfdata, by reading the groups in order, a group whose text names none of the kinds (or
 * objects) asked for skipped without being parsed.
 */
export interface LogHistory {
  history(q: LogHistoryQuery): LogHistoryPage;
  perfdata(q: LogPerfdataQuery): PerfdataSeriesSet;
  close(): void;
}

interface Group {
  readonly firstSeq: number;
  readonly lastSeq: number;
  readonly at: number;
}

interface GroupRow extends Group {
  readonly body: Buffer;
}

/** A row of the log's `history` table (src/store/event-log.ts). */
interface IndexRow {
  readonly seq: number;
  readonly key: string;
  readonly kind: string;
}

/** A group of the log read for its history entries: its text's bytes, and its events by place. */
interface GroupBytes {
  readonly firstSeq: number;
  readonly lastSeq: number;
  readonly bytes: Buffer;
  at?: (index: number) => LookoutEvent | undefined;
  /** Whether `at` found the events' places by the bytes alone (else from the whole text). */
  quick?: boolean;
}

/**
 * The event an index row names, by its place among its group's events: found first by where
 * events begin in the bytes (groupEventsQuick), and, should that give another event than the row
 * names, from the group's whole text.
 */
function eventOf(g: GroupBytes, r: IndexRow): LookoutEvent | undefined {
  const count = g.lastSeq - g.firstSeq + 1;
  if (g.at === undefined) {
    const quick = groupEventsQuick(g.bytes, count);
    g.quick = quick !== undefined;
    g.at = quick ?? groupEvents(g.bytes.toString("utf8"), count);
  }
  const e = g.at(r.seq - g.firstSeq);
  if (!g.quick || (e !== undefined && e.type === r.kind && historyKeyOf(e) === r.key)) return e;
  g.quick = false;
  g.at = groupEvents(g.bytes.toString("utf8"), count);
  return g.at(r.seq - g.firstSeq);
}

/** The most objects a query looks up one by one in the history index; more are filtered as read. */
const MAX_KEYS_BY_INDEX = 500;

/** Opens the event log in dataDir read-only; `now` is the scan budget's clock. */
export function openLogHistory(dataDir: string, now: () => number = Date.now): LogHistory {
  const db = new Database(join(dataDir, "lookout.db"), { readonly: true, fileMustExist: true });
  const bounds = db.prepare(
    "SELECT coalesce(min(first_seq), 0) AS first, coalesce(max(last_seq), 0) AS last FROM events",
  );
  const groupAt = db.prepare(
    "SELECT first_seq AS firstSeq, last_seq AS lastSeq, at FROM events WHERE last_seq >= ? ORDER BY last_seq LIMIT 1",
  );
  const up = db.prepare(
    "SELECT first_seq AS firstSeq, last_seq AS lastSeq, at, body FROM events WHERE last_seq >= ? AND last_seq <= ? ORDER BY last_seq",
  );
  const down = db.prepare(
    "SELECT first_seq AS firstSeq, last_seq AS lastSeq, at, body FROM events WHERE last_seq >= ? AND last_seq <= ? ORDER BY last_seq DESC",
  );

  /**
   * The first event of the first group logged at or after `at`, from `first` (last + 1: none).
   * Invariant of the search: groups ending before lo were logged before `at`.
   */
  const firstAtOrAfter = (at: number, first: number, last: number): number => {
    let lo = first;
    let hi = last + 1;
    while (lo < hi) {
      const mid = lo + Math.floor((hi - lo) / 2);
      const g = groupAt.get(mid) as Group | undefined;
      if (g === undefined) break;
      if (g.at < at) lo = g.lastSeq + 1;
      else hi = Math.min(g.firstSeq, mid);
    }
    return lo;
  };

  /** The sequence range [lo, hi] a query's times cover (lo > hi: none). */
  const range = (since: number | undefined, until: number | undefined): [number, number] => {
    const b = bounds.get() as { first: number; last: number };
    if (b.last === 0) return [1, 0];
    const lo = since === undefined ? b.first : firstAtOrAfter(since, b.first, b.last);
    const hi = until === undefined ? b.last : firstAtOrAfter(until, b.first, b.last) - 1;
    return [Math.max(lo, b.first), hi];
  };

  /** The group whose last event is at or above seq: the one holding it, or the first after it. */
  const topOf = (seq: number): number =>
    (groupAt.get(seq) as Group | undefined)?.lastSeq ?? Number.MAX_SAFE_INTEGER;

  /** The first event the `history` table indexes (events before it are scanned); undefined: no table. */
  const historyTable = db.prepare(
    "SELECT 1 AS t FROM sqlite_master WHERE type = 'table' AND name = 'history'",
  );
  const historyFromRow = db.prepare("SELECT value FROM meta WHERE key = 'history_from'");
  let indexed = false;
  const indexedFrom = (): number => {
    // A log opened before the writer made the table: scanned, until the table is there.
    if (!indexed) indexed = historyTable.get() !== undefined;
    if (!indexed) return Number.POSITIVE_INFINITY;
    return (historyFromRow.get() as { value: number } | undefined)?.value ?? 0;
  };
  const entries = new Map<string, Statement>();
  /** The statement that lists the index's entries for a shape of query. */
  const entriesOf = (byKey: boolean, oldestFirst: boolean): Statement => {
    const name = `${byKey}/${oldestFirst}`;
    let st = entries.get(name);
    if (st === undefined) {
      st = db.prepare(
        `SELECT seq, key, kind FROM history WHERE ${byKey ? "key IN (SELECT value FROM json_each(?)) AND " : ""}seq >= ? AND seq <= ? AND kind IN (SELECT value FROM json_each(?)) ORDER BY seq ${oldestFirst ? "ASC" : "DESC"}`,
      );
      entries.set(name, st);
    }
    return st;
  };
  const groupOf = db.prepare(
    "SELECT first_seq AS firstSeq, last_seq AS lastSeq, at, body FROM events WHERE last_seq >= ? ORDER BY last_seq LIMIT 1",
  );

  return {
    history(q) {
      let [lo, hi] = range(q.since, q.until);
      if (q.cursor !== undefined) {
        if (q.oldestFirst) lo = Math.max(lo, q.cursor + 1);
        else hi = Math.min(hi, q.cursor - 1);
      }
      if (lo > hi) return { items: [] };
      const keys = q.keys === undefined ? undefined : new Set(q.keys);
      if (keys !== undefined && keys.size === 0) return { items: [] };
      const kinds = q.kinds === undefined || q.kinds.length === 0 ? HISTORY_KINDS : new Set(q.kinds);
      const deadline = now() + q.budgetMs;
      const items: HistoryRecord[] = [];

      /**
       * The entries of [from, to] found through the `history` table: the sequences of the entries
       * asked for, then only the groups holding them. Returns where the next page starts when the
       * page filled up with more to come or time ran out; undefined: the part is done.
       */
      const fromIndex = (from: number, to: number): number | undefined => {
        // A few objects: by the index on (key, seq); more: every entry of the range, filtered here.
        const byKey = keys !== undefined && keys.size <= MAX_KEYS_BY_INDEX;
        const kindsJson = JSON.stringify([...kinds]);
        const args = byKey ? [JSON.stringify([...keys]), from, to, kindsJson] : [from, to, kindsJson];
        let group: GroupBytes | undefined;
        let groupsRead = 0;
        for (const r of entriesOf(byKey, q.oldestFirst).iterate(...args) as Iterable<IndexRow>) {
          if (keys !== undefined && !keys.has(r.key)) continue;
          const next = q.oldestFirst ? r.seq - 1 : r.seq + 1;
          // One more than the page: the next page is known not to be empty, and starts there.
          if (items.length === q.limit) return next;
          if (group === undefined || r.seq < group.firstSeq || r.seq > group.lastSeq) {
            if (groupsRead > 0 && now() >= deadline) return next;
            const g = groupOf.get(r.seq) as GroupRow | undefined;
            groupsRead++;
            if (g === undefined || g.firstSeq > r.seq) continue; // trimmed meanwhile
            group = { firstSeq: g.firstSeq, lastSeq: g.lastSeq, bytes: unpackBodyBytes(g.body) };
          }
          const e = eventOf(group, r);
          const h = e === undefined ? undefined : historyRecordOf(e, r.seq);
          if (h !== undefined && h.key === r.key && h.kind === r.kind) items.push(h);
        }
        return undefined;
      };

      /**
       * The entries of [from, to] found by reading every group (a log's part from before the
       * `history` table): a group whose text names none of the kinds (or the one object) asked for
       * is skipped without being parsed. Returns as fromIndex.
       */
      const byScan = (from: number, to: number): number | undefined => {
        // What an event asked for has in its text, as JSON.stringify writes it: one object's key
        // (the more selective: a few events a group), else one of the kinds.
        const one = keys !== undefined && keys.size === 1 ? ([...keys][0] as string) : undefined;
        const needle =
          one === undefined
            ? new RegExp(`"type":"(?:${[...kinds].join("|")})"`, "g")
            : new RegExp(escapeRegExp(`"key":${JSON.stringify(one)}`), "g");
        const rows = (q.oldestFirst ? up : down).iterate(from, topOf(to)) as Iterable<GroupRow>;
        for (const r of rows) {
          const first = Math.max(from, r.firstSeq);
          const last = Math.min(to, r.lastSeq);
          const found = eventsMatching(unpackBody(r.body), needle, r.lastSeq - r.firstSeq + 1);
          const indexes = [...found.keys()];
          if (!q.oldestFirst) indexes.reverse();
          for (const k of indexes) {
            const seq = r.firstSeq + k;
            if (seq < first || seq > last) continue;
            const e = found.get(k) as LookoutEvent;
            if (!kinds.has(e.type)) continue;
            const h = historyRecordOf(e, seq);
            if (h === undefined || (keys !== undefined && !keys.has(h.key))) continue;
            if (items.length === q.limit) return q.oldestFirst ? seq - 1 : seq + 1;
            items.push(h);
          }
          // Every event from here (oldest first: up to here) has been looked at.
          const scanned = q.oldestFirst ? last : first;
          if (scanned !== (q.oldestFirst ? to : from) && now() >= deadline) {
            // Out of time: the next page continues after the last entry given, or after what was scanned.
            return items.length === q.limit ? (items[items.length - 1] as HistoryRecord).seq : scanned;
          }
        }
        return undefined;
      };

      // The part of the range before the table began is scanned; the rest is read through it.
      const start = indexedFrom();
      const older: [number, number] = [lo, Math.min(hi, start - 1)];
      const viaIndex: [number, number] = [Math.max(lo, start), hi];
      const parts: [(from: number, to: number) => number | undefined, [number, number]][] = q.oldestFirst
        ? [
            [byScan, older],
            [fromIndex, viaIndex],
          ]
        : [
            [fromIndex, viaIndex],
            [byScan, older],
          ];
      for (const [read, [from, to]] of parts) {
        if (from > to) continue;
        const cursor = read(from, to);
        if (cursor !== undefined) return { items, cursor };
      }
      return { items };
    },
    perfdata(q) {
      const [lo, hi] = range(q.since, q.until);
      const points: PerfdataPoint[] = [];
      if (lo <= hi) {
        const needle = new RegExp(escapeRegExp(`"key":${JSON.stringify(q.key)}`), "g");
        for (const r of up.iterate(lo, topOf(hi)) as Iterable<GroupRow>) {
          const found = eventsMatching(unpackBody(r.body), needle, r.lastSeq - r.firstSeq + 1);
          for (const [k, e] of found) {
            const seq = r.firstSeq + k;
            if (seq < lo || seq > hi || e.type !== "CheckResultProcessed" || e.key !== q.key) continue;
            const result = (e as CheckResultProcessedEvent).result;
            if (result.perfdata.length > 0) points.push({ at: result.checkedAt, perfdata: result.perfdata });
          }
        }
      }
      // A result's time is when it was checked, which need not follow the log's order (a
      // passive result may say it ran earlier): sorted, stable.
      points.sort((a, b) => a.at - b.at);
      return perfdataSeries(points, q.labels, q.maxPoints);
    },
    close: () => db.close(),
  };
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
