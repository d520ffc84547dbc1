/**
 * The log's `history` table (src/store/event-log.ts): one row per event that makes a history entry,
 * written in the transaction that appends its group, trimmed with it; and ListHistory read through
 * it (src/store/log-history.ts), also from a log older than the table (its older part scanned).
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, it } from "node:test";
import type { LookoutEvent } from "../model/events.js";
import { type EventChunk, EventLog, type HistoryMark, packBody, unpackBodyBytes } from "./event-log.js";
import { createEventRowWriter } from "./event-row.js";
import { historyKeyOf, historyRecordOf } from "./history-of-event.js";
import { openLogHistory } from "./log-history.js";
import type { HistoryRecord } from "./records.js";
import { Database } from "./sqlite.js";

const T0 = Date.UTC(2026, 10, 1);
const MINUTE = 60_000;
const KEYS = ["h1", "h1!a", "h1!b", "h2!a"] as const;

/** Group g's events (minute g of the log): results, a state change or two, an acknowledgement, a rejection. */
function groupEvents(g: number): LookoutEvent[] {
  const at = T0 + g * MINUTE;
  const out: LookoutEvent[] = [];
  for (const [i, key] of KEYS.entries()) {
    out.push({
      type: "CheckResultProcessed",
      at,
      key,
      result: { output: `r ${g} é 🙂 "quoted" {braced}` },
    } as unknown as LookoutEvent);
    if ((g + i) % 3 === 0) {
      out.push({
        type: "StateChange",
        at,
        key,
        to: g % 2 === 0 ? "CRITICAL" : "OK",
        stateType: "HARD",
        attempt: 1,
        output: `change ${g} ${key}`,
      } as unknown as LookoutEvent);
    }
  }
  if (g % 4 === 1) {
    out.push({
      type: "AcknowledgementSet",
      at,
      key: "h1!a",
      state: "CRITICAL",
      author: "ops",
      comment: `ack ${g}`,
    } as unknown as LookoutEvent);
  }
  if (g % 5 === 2) out.push({ type: "CommandRejected", at, command: "ApplyConfig", reason: "no object" });
  return out;
}

/**
 * A chunk of group g: as the writer makes it (its row writer's marks, with where each event lies),
 * laid out otherwise ("odd"), or without marks (a writer older than the table).
 */
function chunkOf(g: number, marks: "row" | "odd" | "none" = "row"): EventChunk {
  const events = groupEvents(g);
  const base = { cmdSeq: g + 1, at: T0 + g * MINUTE, count: events.length };
  if (marks === "row") {
    const row = createEventRowWriter();
    for (const e of events) row.add(e);
    const history = row.takeHistory();
    return { ...base, body: row.take(), ...(history === undefined ? {} : { history }) };
  }
  const history: HistoryMark[] = [];
  for (const [index, e] of events.entries()) {
    const key = historyKeyOf(e);
    if (key !== undefined) history.push({ index, key, kind: e.type });
  }
  if (marks === "none") return { ...base, body: packBody(JSON.stringify(events)) };
  // Laid out otherwise than the writer does: `type` not first, and, in some groups, a nested
  // object that starts as an event does; the entries' places are the same.
  const odd = events.map((e, i) => {
    if (i !== 1) return e;
    const { type, ...rest } = e;
    return { ...rest, type, ...(g % 2 === 0 ? { nested: [{ type: "StateChange", key: "h1!a" }] } : {}) };
  });
  return { ...base, body: packBody(JSON.stringify(odd)), history };
}

/** Every history entry of groups [0, n), oldest first, with their sequence numbers from 1. */
function entriesOf(n: number): HistoryRecord[] {
  const out: HistoryRecord[] = [];
  let seq = 0;
  for (let g = 0; g < n; g++) {
    for (const e of groupEvents(g)) {
      const h = historyRecordOf(e, ++seq);
      if (h !== undefined) out.push(h);
    }
  }
  return out;
}

function rows(dir: string): { seq: number; key: string; kind: string }[] {
  const db = new Database(join(dir, "lookout.db"), { readonly: true });
  try {
    return db.prepare("SELECT seq, key, kind FROM history ORDER BY seq").all() as never;
  } finally {
    db.close();
  }
}

/** Every page of a query through the cursors. */
function walk(
  dir: string,
  q: { keys?: string[]; kinds?: string[]; since?: number; until?: number },
  limit: number,
  oldestFirst: boolean,
  budgetMs = 60_000,
): HistoryRecord[] {
  const log = openLogHistory(dir);
  try {
    const items: HistoryRecord[] = [];
    let cursor: number | undefined;
    let pages = 0;
    do {
      const page = log.history({
        ...q,
        limit,
        oldestFirst,
        budgetMs,
        ...(cursor === undefined ? {} : { cursor }),
      });
      assert.ok(page.items.length <= limit);
      items.push(...page.items);
      cursor = page.cursor;
      assert.ok(++pages < 10_000, "the walk ends");
    } while (cursor !== undefined);
    return items;
  } finally {
    log.close();
  }
}

const QUERIES: readonly {
  name: string;
  q: { keys?: string[]; kinds?: string[]; since?: number; until?: number };
  want: (h: HistoryRecord) => boolean;
}[] = [
  { name: "everything", q: {}, want: () => true },
  { name: "one object", q: { keys: ["h1!a"] }, want: (h) => h.key === "h1!a" },
  { name: "two objects", q: { keys: ["h1", "h2!a"] }, want: (h) => h.key === "h1" || h.key === "h2!a" },
  {
    name: "acknowledgements",
    q: { kinds: ["AcknowledgementSet"] },
    want: (h) => h.kind === "AcknowledgementSet",
  },
  {
    name: "a range",
    q: { since: T0 + 7 * MINUTE, until: T0 + 23 * MINUTE },
    want: (h) => h.at >= T0 + 7 * MINUTE && h.at < T0 + 23 * MINUTE,
  },
];

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "lookout-history-index-"));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe("the log's history table", () => {
  it("the row writer marks each entry by its place, its text unchanged", () => {
    for (let g = 0; g < 12; g++) {
      const events = groupEvents(g);
      const c = chunkOf(g);
      assert.equal(unpackBodyBytes(c.body).toString("utf8"), JSON.stringify(events));
      const want = events.flatMap((e, index) => {
        const key = historyKeyOf(e);
        return key === undefined ? [] : [{ index, key, kind: e.type }];
      });
      assert.ok(want.length > 0);
      assert.deepEqual(c.history, want);
    }
  });

  it("reads entries of groups whose events are laid out otherwise (found from the whole text)", () => {
    const log = EventLog.open(dir);
    for (let g = 0; g < 30; g++) log.recordApplied(g + 1, [chunkOf(g, "odd")]);
    log.close();
    for (const oldestFirst of [false, true]) {
      const e = entriesOf(30);
      assert.deepEqual(walk(dir, {}, 7, oldestFirst), oldestFirst ? e : e.reverse());
    }
  });

  it("holds one row per history entry, at the entry's sequence number", () => {
    const log = EventLog.open(dir);
    for (let g = 0; g < 30; g++) log.recordApplied(g + 1, [chunkOf(g)]);
    log.close();
    assert.deepEqual(
      rows(dir),
      entriesOf(30).map((h) => ({ seq: h.seq, key: h.key, kind: h.kind })),
    );
  });

  it("is written in the transaction that appends the events: one fails, neither is written", () => {
    const log = EventLog.open(dir);
    log.recordApplied(1, [chunkOf(0)]);
    const before = log.lastEventSeq();
    // A row already at the next group's first entry: its insert fails, and the group's with it.
    const next = chunkOf(1);
    const clash = before + 1 + (next.history?.[0]?.index as number);
    const db = new Database(join(dir, "lookout.db"));
    db.prepare("INSERT INTO history (seq, key, kind) VALUES (?, 'x', 'StateChange')").run(clash);
    db.close();
    assert.throws(() => log.recordApplied(2, [next]), /UNIQUE|constraint/i);
    assert.equal(log.appliedSeq(), 1);
    log.close();
    const check = new Database(join(dir, "lookout.db"), { readonly: true });
    const n = check.prepare("SELECT count(*) AS n, max(last_seq) AS last FROM events").get() as {
      n: number;
      last: number;
    };
    check.close();
    assert.deepEqual(n, { n: 1, last: before });
  });

  it("is trimmed with the events by retention", () => {
    const log = EventLog.open(dir);
    for (let g = 0; g < 30; g++) log.recordApplied(g + 1, [chunkOf(g)]);
    const all = entriesOf(30);
    // Groups of the first ten minutes go (every consumer is past them).
    const dropped = log.trimRetained(Number.MAX_SAFE_INTEGER, T0 + 10 * MINUTE);
    assert.ok(dropped > 0);
    const first = log.firstEventSeq();
    assert.deepEqual(
      rows(dir),
      all.filter((h) => h.seq >= first).map((h) => ({ seq: h.seq, key: h.key, kind: h.kind })),
    );
    log.trimEvents(first + 40);
    const first2 = log.firstEventSeq();
    log.close();
    assert.ok(rows(dir).every((r) => r.seq >= first2));
    assert.deepEqual(
      walk(dir, {}, 1000, true),
      all.filter((h) => h.seq >= first2),
    );
  });
});

describe("ListHistory through the history table", () => {
  for (const c of QUERIES) {
    for (const limit of [1, 4, 1000]) {
      for (const oldestFirst of [false, true]) {
        it(`${c.name}, pages of ${limit}, ${oldestFirst ? "oldest" : "newest"} first: every entry once, an old log's part scanned`, () => {
          // A log written before the table: its first 20 groups, then the table begins.
          const old = EventLog.open(dir);
          for (let g = 0; g < 20; g++) old.recordApplied(g + 1, [chunkOf(g, "none")]);
          old.close();
          const raw = new Database(join(dir, "lookout.db"));
          raw.exec("DROP TABLE history; DELETE FROM meta WHERE key = 'history_from'");
          raw.close();
          const want = (n: number) => {
            const e = entriesOf(n).filter(c.want);
            return oldestFirst ? e : e.reverse();
          };
          // Before the writer opens it again: no table, every group scanned.
          assert.deepEqual(walk(dir, c.q, limit, oldestFirst), want(20));
          const log = EventLog.open(dir);
          for (let g = 20; g < 40; g++) log.recordApplied(g + 1, [chunkOf(g)]);
          log.close();
          const r = rows(dir);
          assert.ok(
            r.length > 0 && (r[0]?.seq as number) > entriesOf(20).at(-1)!.seq,
            "the table starts after the old part",
          );
          assert.deepEqual(walk(dir, c.q, limit, oldestFirst), want(40));
        });
      }
    }
  }

  it("out of time, a page holds what was read and a cursor: still every entry once", () => {
    const log = EventLog.open(dir);
    for (let g = 0; g < 30; g++) log.recordApplied(g + 1, [chunkOf(g)]);
    log.close();
    for (const oldestFirst of [false, true]) {
      const e = entriesOf(30);
      assert.deepEqual(walk(dir, {}, 5, oldestFirst, 0), oldestFirst ? e : e.reverse());
    }
  });
});
