import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { inflateRawSync } from "node:zlib";
import type { LookoutEvent } from "../model/events.js";
import { CONFIG_VERSION_TABLES, type ConfigVersionRow, configVersionWriter } from "./config-versions.js";
import { packLogBody } from "./log-body.js";
import { Database, type Statement } from "./sqlite.js";

/**
 * One row of the command queue: what a submitter handed in (a batch of commands, a config change or
 * a clock tick), as JSON text, with the time it was accepted. `seq` orders the queue.
 */
export interface CommandRow {
  readonly seq: number;
  readonly at: number;
  /** JSON text. */
  readonly body: string;
}

/** A command row to enqueue: its JSON text, and that text packed already (packBody) when the caller did. */
export interface QueueRow {
  readonly at: number;
  readonly body: string | Uint8Array;
  readonly packed?: Uint8Array;
}

/** A configuration as stored: by digest, as Map-aware JSON (src/store/json-codec.ts). */
export interface ConfigRow {
  readonly digest: string;
  readonly body: string;
}

/** One event of the log with its sequence number and the command row that produced it. */
export interface LoggedEvent {
  readonly seq: number;
  readonly cmdSeq: number;
  readonly event: LookoutEvent;
}

/**
 * The events one command row produced, as stored: a JSON array whose first element has sequence
 * number `lastSeq - count + 1`. Storing a group per row instead of a row per event halves the
 * cost of appending at tens of thousands of events per second.
 */
export interface EventChunk {
  readonly cmdSeq: number;
  /** Ms since the epoch: when the command that produced the events was accepted (retention by age). */
  readonly at: number;
  readonly count: number;
  /** JSON text of the events (an array), packed with `packBody`. */
  readonly body: Buffer;
  /** The events among them that make a history entry (historyKeyOf), in order; none when absent. */
  readonly history?: readonly HistoryMark[];
}

/**
 * An event that makes a history entry, as the `history` table indexes it: its place in its chunk
 * (0: the first event), the object whose history it enters and its kind (the event's type).
 */
export interface HistoryMark {
  readonly index: number;
  readonly key: string;
  readonly kind: string;
}

/**
 * The index of the history entries (docs/storage.md, "History beyond the ring"): one row per
 * event that makes one, written in the transaction that appends its group and trimmed with it.
 * A log older than the table has `history_from` in meta: the first event the table covers (the
 * events before it are read by a scan of their groups, src/store/log-history.ts).
 */
const HISTORY_TABLE = `
  CREATE TABLE IF NOT EXISTS history (seq INTEGER PRIMARY KEY, key TEXT NOT NULL, kind TEXT NOT NULL);
  CREATE INDEX IF NOT EXISTS history_key ON history (key, seq);
`;

/** The newest stored snapshot: writer state after applying every command up to `cmdSeq`. */
export interface SnapshotRow {
  readonly cmdSeq: number;
  readonly eventSeq: number;
  readonly at: number;
  readonly body: string;
}

/**
 * The durable store behind Lookout: an SQLite database in WAL mode holding the command queue, the
 * append-only event log, the high-water mark of applied commands, and snapshots.
 *
 * Not thread-safe: exactly one writer (the store's worker thread) owns an EventLog. Other threads
 * that want to read the log open their own read-only connection with `openEventLogReader`; WAL lets
 * them read while the writer writes.
 *
 * Durability: `enqueue` commits with `synchronous=FULL` (the WAL is fsync'd before it returns), so
 * a command is on disk once `enqueue` returns. `recordApplied` commits with `synchronous=NORMAL`:
 * events are derived data, and if they are lost in a crash the commands after `appliedSeq()` are
 * simply applied again on restart.
 */
export class EventLog {
  readonly #db: Database;
  readonly #insertCommand: Statement<[number, Uint8Array]>;
  readonly #insertConfig: Statement<[string, Buffer]>;
  readonly #insertEvents: Statement<[number, number, number, number, Buffer]>;
  readonly #insertHistory: Statement<[number, string, string]>;
  readonly #setApplied: Statement<[number]>;
  readonly #setStream: Statement<[number]>;
  readonly #enqueueTx: (
    rows: readonly QueueRow[],
    configs: readonly ConfigRow[],
    stream: number | undefined,
    versions: readonly ConfigVersionRow[],
  ) => number[];
  readonly #versions: ReturnType<typeof configVersionWriter>;
  readonly #appliedTx: (cmdSeq: number, chunks: readonly EventChunk[]) => number;
  #lastEventSeq: number;

  readonly #release: () => void;

  private constructor(db: Database, release: () => void) {
    this.#db = db;
    this.#release = release;
    this.#insertCommand = db.prepare("INSERT INTO commands (at, body) VALUES (?, ?)");
    this.#insertConfig = db.prepare("INSERT OR IGNORE INTO configs (digest, body) VALUES (?, ?)");
    this.#insertEvents = db.prepare(
      "INSERT INTO events (last_seq, first_seq, cmd_seq, at, body) VALUES (?, ?, ?, ?, ?)",
    );
    this.#insertHistory = db.prepare("INSERT INTO history (seq, key, kind) VALUES (?, ?, ?)");
    this.#setApplied = db.prepare("UPDATE meta SET value = ? WHERE key = 'applied'");
    this.#setStream = db.prepare(
      "INSERT INTO meta (key, value) VALUES ('stream', ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
    );
    // A replica that took its state from a snapshot of another server's starts its events there.
    this.#lastEventSeq = (
      db
        .prepare(
          "SELECT max(coalesce((SELECT max(last_seq) FROM events), 0), coalesce((SELECT value FROM meta WHERE key = 'events_base'), 0)) AS s",
        )
        .get() as { s: number }
    ).s;
    this.#versions = configVersionWriter(db);
    this.#enqueueTx = db.transaction((rows, configs, stream, versions) => {
      for (const c of configs) this.#insertConfig.run(c.digest, pack(c.body));
      for (const v of versions) this.#versions.insert(v);
      const seqs: number[] = [];
      for (const r of rows)
        seqs.push(Number(this.#insertCommand.run(r.at, r.packed ?? pack(r.body)).lastInsertRowid));
      if (stream !== undefined) this.#setStream.run(stream);
      return seqs;
    });
    this.#appliedTx = db.transaction((cmdSeq, chunks) => {
      let seq = this.#lastEventSeq;
      for (const c of chunks) {
        if (c.count === 0) continue;
        this.#insertEvents.run(seq + c.count, seq + 1, c.cmdSeq, c.at, c.body);
        if (c.history !== undefined)
          for (const h of c.history) this.#insertHistory.run(seq + 1 + h.index, h.key, h.kind);
        seq += c.count;
      }
      this.#setApplied.run(cmdSeq);
      return seq;
    });
  }

  /** Opens (creating if needed) `lookout.db` in dataDir. */
  static open(dataDir: string): EventLog {
    mkdirSync(dataDir, { recursive: true });
    const release = lockDataDir(dataDir);
    let db: Database;
    try {
      db = new Database(join(dataDir, "lookout.db"));
    } catch (e) {
      release();
      throw e;
    }
    db.pragma("journal_mode = WAL");
    db.pragma("synchronous = FULL");
    db.exec(`
      CREATE TABLE IF NOT EXISTS commands (seq INTEGER PRIMARY KEY AUTOINCREMENT, at INTEGER NOT NULL, body BLOB NOT NULL);
      CREATE TABLE IF NOT EXISTS events (last_seq INTEGER PRIMARY KEY, first_seq INTEGER NOT NULL, cmd_seq INTEGER NOT NULL, body BLOB NOT NULL);
      CREATE TABLE IF NOT EXISTS configs (digest TEXT PRIMARY KEY, body BLOB NOT NULL);
      CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value INTEGER NOT NULL);
      CREATE TABLE IF NOT EXISTS snapshots (cmd_seq INTEGER PRIMARY KEY, event_seq INTEGER NOT NULL, at INTEGER NOT NULL, body BLOB NOT NULL);
      INSERT OR IGNORE INTO meta (key, value) VALUES ('applied', 0);
      ${CONFIG_VERSION_TABLES}
    `);
    // Logs written before retention by age have no `at` per row: 0 makes their rows the oldest.
    const columns = db.prepare("PRAGMA table_info(events)").all() as { name: string }[];
    if (!columns.some((c) => c.name === "at")) {
      db.exec("ALTER TABLE events ADD COLUMN at INTEGER NOT NULL DEFAULT 0");
    }
    // A snapshot's place in the log's time (`log_at`, the `at` of the last group of events it
    // covers): what ListStatus `at` picks its starting point by. A table of its own, not a column
    // after `body`, which SQLite would reach only through the body's overflow pages. A snapshot
    // without a row here (stored before it, or installed from another server's) is never a
    // starting point.
    db.exec(
      "CREATE TABLE IF NOT EXISTS snapshot_times (cmd_seq INTEGER PRIMARY KEY, event_seq INTEGER NOT NULL, log_at INTEGER NOT NULL)",
    );
    // A snapshot's status image (src/store/status-image.ts): what a kept snapshot keeps once it is
    // no longer one of the newest two, its engine state and history feed dropped.
    db.exec("CREATE TABLE IF NOT EXISTS status_images (cmd_seq INTEGER PRIMARY KEY, body BLOB NOT NULL)");
    // The history index; a log that has events from before it says where the index begins.
    if (
      db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'history'").get() === undefined
    ) {
      db.transaction(() => {
        db.exec(HISTORY_TABLE);
        db.prepare(
          "INSERT OR REPLACE INTO meta (key, value) VALUES ('history_from', 1 + max(coalesce((SELECT max(last_seq) FROM events), 0), coalesce((SELECT value FROM meta WHERE key = 'events_base'), 0)))",
        ).run();
      })();
    }
    return new EventLog(db, release);
  }

  /**
   * Appends commands to the queue in one fsync'd transaction and returns their sequence numbers.
   * `configs` are stored in the same transaction (the configs an ApplyConfig in `rows` names), and
   * so is `stream`, the replicated log's position of the group the rows are (streamPosition), and
   * so are `versions`, the config history's entries of those ApplyConfig rows (config-versions.ts).
   */
  enqueue(
    rows: readonly QueueRow[],
    configs: readonly ConfigRow[] = [],
    stream?: number,
    versions: readonly ConfigVersionRow[] = [],
  ): number[] {
    this.#db.pragma("synchronous = FULL");
    return this.#enqueueTx(rows, configs, stream, versions);
  }

  /** Whether the config history holds any version. */
  hasConfigVersions(): boolean {
    return this.#versions.any();
  }

  /**
   * Replicated: the position in the replicated command log of the last group enqueued here (0:
   * none), stored in the same transaction as its rows (`enqueue`'s `stream`).
   */
  streamPosition(): number {
    const row = this.#db.prepare("SELECT value FROM meta WHERE key = 'stream'").get() as
      | { value: number }
      | undefined;
    return row?.value ?? 0;
  }

  /**
   * Whether this log is a replica's (docs/replication.md): set by `markReplicated(true)` when a
   * replicated server opens an unused data directory, cleared when a server opens it without
   * replication (its log then goes its own way and can no longer follow the command stream).
   */
  replicated(): boolean {
    const row = this.#db.prepare("SELECT value FROM meta WHERE key = 'replicated'").get() as
      | { value: number }
      | undefined;
    return row?.value === 1;
  }

  markReplicated(on: boolean): void {
    this.#db
      .prepare(
        "INSERT INTO meta (key, value) VALUES ('replicated', ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
      )
      .run(on ? 1 : 0);
  }

  /**
   * Replicated: makes a snapshot another server took (at command log position `position`, after
   * event `eventSeq`) this log's starting point: the commands queued here go (the snapshot covers
   * more than they do), the snapshot is stored as the newest, with the config it names, and the log
   * goes on from `position` and `eventSeq`. The events kept here stay (they are older). One
   * transaction; the Writer opened afterwards starts from it.
   */
  installSnapshot(s: {
    readonly body: string;
    readonly eventSeq: number;
    readonly position: number;
    readonly config: ConfigRow;
  }): void {
    this.#db.pragma("synchronous = FULL");
    this.#db.transaction(() => {
      const base = (
        this.#db
          .prepare(
            "SELECT max(coalesce((SELECT seq FROM sqlite_sequence WHERE name = 'commands'), 0), coalesce((SELECT max(cmd_seq) FROM snapshots), 0)) AS s",
          )
          .get() as { s: number }
      ).s;
      const cmdSeq = base + 1;
      this.#db.prepare("DELETE FROM commands").run();
      // The next command enqueued here follows the snapshot's place.
      this.#db.prepare("DELETE FROM sqlite_sequence WHERE name = 'commands'").run();
      this.#db.prepare("INSERT INTO sqlite_sequence (name, seq) VALUES ('commands', ?)").run(cmdSeq);
      this.#insertConfig.run(s.config.digest, pack(s.config.body));
      this.#db
        .prepare("INSERT OR REPLACE INTO snapshots (cmd_seq, event_seq, at, body) VALUES (?, ?, ?, ?)")
        .run(cmdSeq, s.eventSeq, Date.now(), pack(s.body));
      this.#setApplied.run(cmdSeq);
      this.#setStream.run(s.position);
      this.#db
        .prepare(
          "INSERT INTO meta (key, value) VALUES ('events_base', ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
        )
        .run(s.eventSeq);
    })();
    if (s.eventSeq > this.#lastEventSeq) this.#lastEventSeq = s.eventSeq;
  }

  /** Whether the log holds any command or event (a data directory that has been used). */
  used(): boolean {
    const row = this.#db
      .prepare("SELECT (SELECT count(*) FROM events) + (SELECT value FROM meta WHERE key = 'applied') AS n")
      .get() as { n: number };
    return row.n > 0 || this.latestSnapshot() !== undefined;
  }

  /** A stored configuration's JSON, by digest. */
  config(digest: string): string | undefined {
    const row = this.#db.prepare("SELECT body FROM configs WHERE digest = ?").get(digest) as
      | { body: Buffer }
      | undefined;
    return row === undefined ? undefined : unpack(row.body);
  }

  /**
   * Records that every command up to cmdSeq is applied, appending the events that applying them
   * produced, in order, in one transaction. Returns the sequence number of the last event.
   */
  recordApplied(cmdSeq: number, chunks: readonly EventChunk[]): number {
    this.#db.pragma("synchronous = NORMAL");
    this.#lastEventSeq = this.#appliedTx(cmdSeq, chunks);
    return this.#lastEventSeq;
  }

  /** The sequence number of the last command whose events are in the log (0: none). */
  appliedSeq(): number {
    return (this.#db.prepare("SELECT value FROM meta WHERE key = 'applied'").get() as { value: number })
      .value;
  }

  /** The sequence number of the last event (0: none). */
  lastEventSeq(): number {
    return this.#lastEventSeq;
  }

  /** Commands with seq > after, in order, at most limit of them. */
  commandsAfter(after: number, limit = 1000): CommandRow[] {
    const rows = this.#db
      .prepare("SELECT seq, at, body FROM commands WHERE seq > ? ORDER BY seq LIMIT ?")
      .all(after, limit) as { seq: number; at: number; body: Buffer }[];
    return rows.map((r) => ({ seq: r.seq, at: r.at, body: unpack(r.body) }));
  }

  /** Events with seq > after, in order, at most about limit of them: the seam sinks read from. */
  eventsAfter(after: number, limit = 1000): LoggedEvent[] {
    return readEvents(this.#db, after, limit);
  }

  /**
   * Stores a snapshot, stamped with the log's time of the last group of events it covers, and
   * keeps the newest two (recovery) and, for reads of the past (ListStatus `at`), older ones at
   * least `keepEveryMs` apart in the log's time, as long as the events after them are still in the
   * log (one whose following events were trimmed can no longer be carried forward). keepEveryMs
   * 0 keeps only the newest two.
   */
  saveSnapshot(s: SnapshotRow, keepEveryMs = 0, image?: Uint8Array): void {
    this.#db.pragma("synchronous = FULL");
    this.#db.transaction(() => {
      const logAt =
        (
          this.#db
            .prepare("SELECT at FROM events WHERE last_seq <= ? ORDER BY last_seq DESC LIMIT 1")
            .get(s.eventSeq) as { at: number } | undefined
        )?.at ?? 0;
      this.#db
        .prepare("INSERT OR REPLACE INTO snapshots (cmd_seq, event_seq, at, body) VALUES (?, ?, ?, ?)")
        .run(s.cmdSeq, s.eventSeq, s.at, pack(s.body));
      this.#db
        .prepare("INSERT OR REPLACE INTO snapshot_times (cmd_seq, event_seq, log_at) VALUES (?, ?, ?)")
        .run(s.cmdSeq, s.eventSeq, logAt);
      if (image !== undefined) {
        this.#db
          .prepare("INSERT OR REPLACE INTO status_images (cmd_seq, body) VALUES (?, ?)")
          .run(s.cmdSeq, image);
      } else {
        this.#db.prepare("DELETE FROM status_images WHERE cmd_seq = ?").run(s.cmdSeq);
      }
      const drop = this.#db.prepare("DELETE FROM snapshots WHERE cmd_seq = ?");
      const dropTime = this.#db.prepare("DELETE FROM snapshot_times WHERE cmd_seq = ?");
      const dropImage = this.#db.prepare("DELETE FROM status_images WHERE cmd_seq = ?");
      const { dropped, imaged } = prunedSnapshots(this.#db, keepEveryMs);
      for (const cmdSeq of dropped) {
        drop.run(cmdSeq);
        dropTime.run(cmdSeq);
        dropImage.run(cmdSeq);
      }
      // Kept, but no longer one of the newest two: its image is all a rebuild reads.
      for (const cmdSeq of imaged) drop.run(cmdSeq);
    })();
  }

  /** The newest snapshot, if any. */
  latestSnapshot(): SnapshotRow | undefined {
    const row = this.#db
      .prepare(
        "SELECT cmd_seq AS cmdSeq, event_seq AS eventSeq, at, body FROM snapshots ORDER BY cmd_seq DESC LIMIT 1",
      )
      .get() as (Omit<SnapshotRow, "body"> & { body: Buffer }) | undefined;
    return row === undefined ? undefined : { ...row, body: unpack(row.body) };
  }

  /**
   * Drops queued commands that a snapshot already covers (they are never replayed again). Events
   * stay: they are the history sinks read from.
   */
  compactCommands(upTo: number): void {
    this.#db.prepare("DELETE FROM commands WHERE seq <= ?").run(upTo);
  }

  /** Drops events up to and including seq (retention); sinks behind that point lose them. */
  trimEvents(upTo: number): void {
    this.#trim(upTo);
  }

  /** Drops the groups of events up to seq and their history entries, in one transaction. */
  #trim(upTo: number): void {
    this.#db.transaction(() => {
      this.#db.prepare("DELETE FROM events WHERE last_seq <= ?").run(upTo);
      this.#db.prepare("DELETE FROM history WHERE seq <= ?").run(upTo);
    })();
  }

  /**
   * Retention that respects the log's consumers: drops the stored groups of events whose last event
   * is at or below `floor` (every consumer is past it) and that were appended before `before` (ms
   * since the epoch). Returns the number of events dropped.
   */
  trimRetained(floor: number, before: number): number {
    const row = this.#db
      .prepare(
        // The newest group always stays: the log's sequence numbers continue from it after a restart.
        "SELECT coalesce(max(last_seq), 0) AS upTo, coalesce(min(first_seq), 0) AS first FROM events WHERE last_seq <= ? AND at < ? AND last_seq < (SELECT max(last_seq) FROM events)",
      )
      .get(floor, before) as { upTo: number; first: number };
    if (row.upTo === 0) return 0;
    this.#trim(row.upTo);
    return row.upTo - row.first + 1;
  }

  /** The sequence number of the oldest event still in the log (0: the log is empty). */
  firstEventSeq(): number {
    return (this.#db.prepare("SELECT coalesce(min(first_seq), 0) AS s FROM events").get() as { s: number }).s;
  }

  /** Closes the database; the EventLog must not be used afterwards. */
  close(): void {
    this.#db.close();
    this.#release();
  }
}

/**
 * Takes the data directory for this process: `lookout.lock` holds the owner's pid. A lock left by
 * a process that is gone (killed, crashed) is taken over; a live owner — another process, or another
 * open store in this one — is an error, because two writers on one log would interleave their
 * sequence numbers. Returns the release function.
 */
function lockDataDir(dataDir: string): () => void {
  const path = join(dataDir, "lookout.lock");
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      writeFileSync(path, `${process.pid}\n`, { flag: "wx" });
      return () => rmSync(path, { force: true });
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw e;
    }
    const pid = Number(readFileSync(path, "utf8").trim());
    if (Number.isInteger(pid) && pid > 0 && (pid === process.pid || alive(pid))) {
      throw new Error(
        `data directory ${dataDir} is in use by process ${pid} (remove ${path} if that process is not Lookout)`,
      );
    }
    rmSync(path, { force: true });
  }
  throw new Error(`cannot lock data directory ${dataDir}`);
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM";
  }
}

/**
 * The snapshots saveSnapshot lets go (`dropped`): all but the newest two, except (keepEveryMs > 0)
 * those at least keepEveryMs apart in the log's time, oldest first, whose following events are all
 * still in the log. Kept ones stay kept as later ones come (they are already that far apart), so
 * the set only shrinks at its old end, as the log's retention trims the events after them. A kept
 * one beyond the newest two that has a status image keeps only that (`imaged`: its snapshot row
 * goes); one without (stored before images) stays whole.
 */
function prunedSnapshots(db: Database, keepEveryMs: number): { dropped: number[]; imaged: number[] } {
  // The bodies are never read: the snapshots' columns before `body`, the times, the images' keys.
  const rows = db
    .prepare(
      `SELECT c.cmd_seq AS cmdSeq, coalesce(t.event_seq, s.event_seq) AS eventSeq, coalesce(t.log_at, 0) AS logAt,
         s.cmd_seq IS NOT NULL AS whole, i.cmd_seq IS NOT NULL AS imaged
       FROM (SELECT cmd_seq FROM snapshots UNION SELECT cmd_seq FROM snapshot_times) c
       LEFT JOIN snapshots s ON s.cmd_seq = c.cmd_seq
       LEFT JOIN snapshot_times t ON t.cmd_seq = c.cmd_seq
       LEFT JOIN status_images i ON i.cmd_seq = c.cmd_seq
       ORDER BY c.cmd_seq`,
    )
    .all() as { cmdSeq: number; eventSeq: number; logAt: number; whole: number; imaged: number }[];
  // The oldest group by key (the log only ever loses its oldest groups): no scan of the table.
  const first =
    (
      db.prepare("SELECT first_seq AS s FROM events ORDER BY last_seq LIMIT 1").get() as
        | { s: number }
        | undefined
    )?.s ?? 0;
  const dropped: number[] = [];
  const imaged: number[] = [];
  // The newest two whole snapshots are recovery's: kept whole.
  let lastKept = Number.NEGATIVE_INFINITY;
  let wholeSeen = 0;
  const wholeCount = rows.filter((r) => r.whole).length;
  for (const r of rows) {
    if (r.whole && ++wholeSeen > wholeCount - 2) continue;
    const carried = first === 0 || r.eventSeq >= first - 1;
    if (
      keepEveryMs > 0 &&
      r.logAt > 0 &&
      carried &&
      r.logAt >= lastKept + keepEveryMs &&
      (r.whole || r.imaged)
    ) {
      lastKept = r.logAt;
      if (r.whole && r.imaged) imaged.push(r.cmdSeq);
      continue;
    }
    dropped.push(r.cmdSeq);
  }
  return { dropped, imaged };
}

/** A read-only view of the event log for another thread or process (WAL readers never block the writer). */
export interface EventLogReader {
  /** Events with seq > after, in order, at most limit of them. */
  eventsAfter(after: number, limit?: number): LoggedEvent[];
  /** The sequence number of the last committed event (0: none). */
  lastSeq(): number;
  /** The sequence number of the oldest event still retained (0: the log is empty). */
  firstSeq(): number;
  /** The last sequence number of the events appended before `at` (ms since the epoch); 0: none. */
  seqBefore(at: number): number;
  /** When the group holding event `seq` was appended (ms since the epoch); undefined: not retained. */
  timeOf(seq: number): number | undefined;
  close(): void;
}

/** How a reader keeps what it decoded. */
export interface EventLogReaderOptions {
  /**
   * Keep the decoded events of recently read rows, up to about this many events (0, the default:
   * none). Rows never change once committed, so consumers at different positions (the notifier,
   * each sink) that read the same rows inflate and parse each row once instead of once per read;
   * the cached events are shared and must not be mutated.
   */
  readonly cacheEvents?: number;
}

/** Opens the event log in dataDir read-only. */
export function openEventLogReader(dataDir: string, o: EventLogReaderOptions = {}): EventLogReader {
  const db = new Database(join(dataDir, "lookout.db"), { readonly: true, fileMustExist: true });
  const last = db.prepare("SELECT coalesce(max(last_seq), 0) AS s FROM events");
  const first = db.prepare("SELECT coalesce(min(first_seq), 0) AS s FROM events");
  const before = db.prepare("SELECT coalesce(max(last_seq), 0) AS s FROM events WHERE at < ?");
  const timeOf = db.prepare(
    "SELECT at FROM events WHERE last_seq >= ? AND first_seq <= ? ORDER BY last_seq LIMIT 1",
  );
  const cacheEvents = o.cacheEvents ?? 0;
  const read = cacheEvents > 0 ? cachedReader(db, cacheEvents) : groupMemoReader(db);
  return {
    eventsAfter: (after, limit = 1000) => read(after, limit),
    lastSeq: () => (last.get() as { s: number }).s,
    firstSeq: () => (first.get() as { s: number }).s,
    seqBefore: (at) => (before.get(at) as { s: number }).s,
    timeOf: (seq) => (timeOf.get(seq, seq) as { at: number } | undefined)?.at,
    close: () => db.close(),
  };
}

/**
 * readEvents with a cache of decoded rows by last_seq, least recently used first out, bounded by
 * the events it holds: the row index is read without the bodies, and only a row not in the cache
 * has its body fetched, inflated and parsed.
 */
function cachedReader(db: Database, maxEvents: number): (after: number, limit: number) => LoggedEvent[] {
  const index = db.prepare(
    "SELECT last_seq AS lastSeq, first_seq AS firstSeq, cmd_seq AS cmdSeq FROM events WHERE last_seq > ? ORDER BY last_seq LIMIT 32",
  );
  const body = db.prepare("SELECT body FROM events WHERE last_seq = ?");
  const rows = new Map<number, LookoutEvent[]>();
  let held = 0;
  const eventsOf = (lastSeq: number): LookoutEvent[] | undefined => {
    const hit = rows.get(lastSeq);
    if (hit !== undefined) {
      // Most recently used last.
      rows.delete(lastSeq);
      rows.set(lastSeq, hit);
      return hit;
    }
    const r = body.get(lastSeq) as { body: Buffer } | undefined;
    if (r === undefined) return undefined;
    const events = JSON.parse(unpack(r.body)) as LookoutEvent[];
    rows.set(lastSeq, events);
    held += events.length;
    for (const [k, v] of rows) {
      if (held <= maxEvents || k === lastSeq) break;
      rows.delete(k);
      held -= v.length;
    }
    return events;
  };
  return (after, limit) => {
    const out: LoggedEvent[] = [];
    // The index a few rows at a time (a statement cannot run while another one iterates).
    for (let from = after; out.length < limit; ) {
      const page = index.all(from) as { lastSeq: number; firstSeq: number; cmdSeq: number }[];
      for (const row of page) {
        // Trimmed between the index and the body: the rest is read next time.
        const events = eventsOf(row.lastSeq);
        if (events === undefined) return out;
        for (let i = Math.max(0, after + 1 - row.firstSeq); i < events.length && out.length < limit; i++)
          out.push({ seq: row.firstSeq + i, cmdSeq: row.cmdSeq, event: events[i] as LookoutEvent });
        if (out.length >= limit) return out;
        from = row.lastSeq;
      }
      if (page.length < 32) break;
    }
    return out;
  };
}

const EVENTS_AFTER =
  "SELECT last_seq AS lastSeq, first_seq AS firstSeq, cmd_seq AS cmdSeq, body FROM events WHERE last_seq > ? ORDER BY last_seq";

/** The last group a read stopped inside, parsed (a committed group never changes). */
interface GroupMemo {
  group: { readonly lastSeq: number; readonly events: LookoutEvent[] } | undefined;
}

/**
 * readEvents remembering the group a read stopped inside: the next read continues it without
 * parsing it again (a consumer reading 1,000 events at a time through a group of 10,000 parsed it
 * 10 times). The cached reader needs none of this: it keeps whole decoded rows.
 */
function groupMemoReader(db: Database): (after: number, limit: number) => LoggedEvent[] {
  const stmt = db.prepare(EVENTS_AFTER);
  const memo: GroupMemo = { group: undefined };
  return (after, limit) => readEvents(db, after, limit, stmt, memo);
}

function readEvents(
  db: Database,
  after: number,
  limit: number,
  prepared?: Statement,
  memo?: GroupMemo,
): LoggedEvent[] {
  const out: LoggedEvent[] = [];
  const stmt = prepared ?? db.prepare(EVENTS_AFTER);
  for (const row of stmt.iterate(after) as Iterable<{
    lastSeq: number;
    firstSeq: number;
    cmdSeq: number;
    body: Buffer;
  }>) {
    const kept = memo?.group;
    const events =
      kept !== undefined && kept.lastSeq === row.lastSeq
        ? kept.events
        : (JSON.parse(unpack(row.body)) as LookoutEvent[]);
    for (let i = Math.max(0, after - row.firstSeq + 1); i < events.length && out.length < limit; i++) {
      out.push({ seq: row.firstSeq + i, cmdSeq: row.cmdSeq, event: events[i] as LookoutEvent });
    }
    if (out.length >= limit) {
      if (memo !== undefined)
        memo.group = out[out.length - 1]?.seq === row.lastSeq ? undefined : { lastSeq: row.lastSeq, events };
      break;
    }
  }
  return out;
}

/**
 * Every body in the database is deflate-raw compressed JSON. Batches of results and their events
 * are highly repetitive (the same keys and field names a thousand times), so level 1 shrinks them
 * about thirtyfold for a few milliseconds per thousand: far less to write, fsync and checkpoint.
 */
function pack(body: string | Uint8Array): Buffer {
  return packLogBody(body);
}

/**
 * A body (JSON text, or its UTF-8 bytes) as the log stores it (deflate-raw). Exported so the writer
 * can pack each row's events as soon as they are serialized, and let the text go.
 */
export function packBody(body: string | Uint8Array): Buffer {
  return pack(body);
}

function unpack(blob: Buffer): string {
  return inflateRawSync(blob).toString();
}

/** A body as the log stores it, back to its JSON text's bytes (a reader that decodes only a part). */
export function unpackBodyBytes(blob: Uint8Array): Buffer {
  return inflateRawSync(blob);
}

/** A body as the log stores it, back to its JSON text (for readers outside this file). */
export function unpackBody(blob: Uint8Array): string {
  return unpack(Buffer.isBuffer(blob) ? blob : Buffer.from(blob));
}
