import { mkdirSync } from "node:fs";
import { join } from "node:path";
import Database from "better-sqlite3";

/**
 * One row of the command queue: what a submitter handed in (a batch of commands, a config change or
 * a clock tick), as JSON text, with the time it was accepted. `seq` orders the queue.
 */
export interface CommandRow {
  readonly seq: number;
  readonly at: number;
  readonly body: string;
}

/** One row of the event log: an engine event as JSON text, and the command that produced it. */
export interface EventRow {
  readonly seq: number;
  readonly cmdSeq: number;
  readonly body: string;
}

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
  readonly #db: Database.Database;
  readonly #insertCommand: Database.Statement<[number, string]>;
  readonly #insertEvent: Database.Statement<[number, number, string]>;
  readonly #setApplied: Database.Statement<[number]>;
  readonly #enqueueTx: (rows: readonly { at: number; body: string }[]) => number[];
  readonly #appliedTx: (cmdSeq: number, events: readonly { cmdSeq: number; body: string }[]) => number;
  #lastEventSeq: number;

  private constructor(db: Database.Database) {
    this.#db = db;
    this.#insertCommand = db.prepare("INSERT INTO commands (at, body) VALUES (?, ?)");
    this.#insertEvent = db.prepare("INSERT INTO events (seq, cmd_seq, body) VALUES (?, ?, ?)");
    this.#setApplied = db.prepare("UPDATE meta SET value = ? WHERE key = 'applied'");
    this.#lastEventSeq = (
      db.prepare("SELECT coalesce(max(seq), 0) AS s FROM events").get() as { s: number }
    ).s;
    this.#enqueueTx = db.transaction((rows) => {
      const seqs: number[] = [];
      for (const r of rows) seqs.push(Number(this.#insertCommand.run(r.at, r.body).lastInsertRowid));
      return seqs;
    });
    this.#appliedTx = db.transaction((cmdSeq, events) => {
      let seq = this.#lastEventSeq;
      for (const e of events) this.#insertEvent.run(++seq, e.cmdSeq, e.body);
      this.#setApplied.run(cmdSeq);
      return seq;
    });
  }

  /** Opens (creating if needed) `lookout.db` in dataDir. */
  static open(dataDir: string): EventLog {
    mkdirSync(dataDir, { recursive: true });
    const db = new Database(join(dataDir, "lookout.db"));
    db.pragma("journal_mode = WAL");
    db.pragma("synchronous = FULL");
    db.exec(`
      CREATE TABLE IF NOT EXISTS commands (seq INTEGER PRIMARY KEY AUTOINCREMENT, at INTEGER NOT NULL, body TEXT NOT NULL);
      CREATE TABLE IF NOT EXISTS events (seq INTEGER PRIMARY KEY, cmd_seq INTEGER NOT NULL, body TEXT NOT NULL);
      CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value INTEGER NOT NULL);
      CREATE TABLE IF NOT EXISTS snapshots (cmd_seq INTEGER PRIMARY KEY, event_seq INTEGER NOT NULL, at INTEGER NOT NULL, body TEXT NOT NULL);
      INSERT OR IGNORE INTO meta (key, value) VALUES ('applied', 0);
    `);
    return new EventLog(db);
  }

  /** Appends commands to the queue in one fsync'd transaction and returns their sequence numbers. */
  enqueue(rows: readonly { at: number; body: string }[]): number[] {
    this.#db.pragma("synchronous = FULL");
    return this.#enqueueTx(rows);
  }

  /**
   * Records that every command up to cmdSeq is applied, appending the events that applying them
   * produced, in order, in one transaction. Returns the sequence number of the last event.
   */
  recordApplied(cmdSeq: number, events: readonly { cmdSeq: number; body: string }[]): number {
    this.#db.pragma("synchronous = NORMAL");
    this.#lastEventSeq = this.#appliedTx(cmdSeq, events);
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
    return this.#db
      .prepare("SELECT seq, at, body FROM commands WHERE seq > ? ORDER BY seq LIMIT ?")
      .all(after, limit) as CommandRow[];
  }

  /** Events with seq > after, in order, at most limit of them: the seam sinks read from. */
  eventsAfter(after: number, limit = 1000): EventRow[] {
    return readEvents(this.#db, after, limit);
  }

  /** Stores a snapshot and keeps only the newest two. */
  saveSnapshot(s: SnapshotRow): void {
    this.#db.pragma("synchronous = FULL");
    this.#db.transaction(() => {
      this.#db
        .prepare("INSERT OR REPLACE INTO snapshots (cmd_seq, event_seq, at, body) VALUES (?, ?, ?, ?)")
        .run(s.cmdSeq, s.eventSeq, s.at, s.body);
      this.#db
        .prepare(
          "DELETE FROM snapshots WHERE cmd_seq NOT IN (SELECT cmd_seq FROM snapshots ORDER BY cmd_seq DESC LIMIT 2)",
        )
        .run();
    })();
  }

  /** The newest snapshot, if any. */
  latestSnapshot(): SnapshotRow | undefined {
    return this.#db
      .prepare(
        "SELECT cmd_seq AS cmdSeq, event_seq AS eventSeq, at, body FROM snapshots ORDER BY cmd_seq DESC LIMIT 1",
      )
      .get() as SnapshotRow | undefined;
  }

  /**
   * Drops queued commands that a snapshot already covers (they are never replayed again). Events
   * stay: they are the history sinks read from.
   */
  compactCommands(upTo: number): void {
    this.#db.prepare("DELETE FROM commands WHERE seq <= ?").run(upTo);
  }

  /** Closes the database; the EventLog must not be used afterwards. */
  close(): void {
    this.#db.close();
  }
}

/** A read-only view of the event log for another thread or process (WAL readers never block the writer). */
export interface EventLogReader {
  /** Events with seq > after, in order, at most limit of them. */
  eventsAfter(after: number, limit?: number): EventRow[];
  close(): void;
}

/** Opens the event log in dataDir read-only. */
export function openEventLogReader(dataDir: string): EventLogReader {
  const db = new Database(join(dataDir, "lookout.db"), { readonly: true, fileMustExist: true });
  return {
    eventsAfter: (after, limit = 1000) => readEvents(db, after, limit),
    close: () => db.close(),
  };
}

function readEvents(db: Database.Database, after: number, limit: number): EventRow[] {
  return db
    .prepare("SELECT seq, cmd_seq AS cmdSeq, body FROM events WHERE seq > ? ORDER BY seq LIMIT ?")
    .all(after, limit) as EventRow[];
}
