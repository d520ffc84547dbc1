import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { Database, type Statement } from "../store/sqlite.js";

/**
 * Durable state of the log's consumers, in `<data-dir>/consumers.db`: each consumer's position and
 * its own key/value entries (the notifier's pending sends, a sink's segment in progress). Apart
 * from the event log's database so that a consumer's writes never contend with the writer's group
 * commits.
 *
 * Durability: WAL with synchronous=NORMAL — a committed `put` survives a crash of the process; a
 * power loss may take back the last few, and the consumer then repeats (never skips) that work.
 * Not thread-safe: one ConsumerState per process, on the main thread.
 */
export interface ConsumerState {
  /** The stored position of a consumer (undefined: none stored). */
  position(consumer: string): number | undefined;
  get(consumer: string, key: string): string | undefined;
  /** Entries whose key starts with `prefix`, in key order. */
  list(consumer: string, prefix?: string): { key: string; value: string }[];
  /**
   * One transaction: sets (value a string) or deletes (value null) keys and, when given, the
   * consumer's position.
   */
  put(consumer: string, entries: readonly { key: string; value: string | null }[], position?: number): void;
  /** Every consumer with a stored position. */
  consumers(): { name: string; position: number }[];
  /** Deletes a consumer's position and entries. */
  forget(consumer: string): void;
  close(): void;
}

/** Opens (creating if needed) `consumers.db` in dataDir. */
export function openConsumerState(dataDir: string): ConsumerState {
  mkdirSync(dataDir, { recursive: true });
  const db = new Database(join(dataDir, "consumers.db"));
  db.pragma("journal_mode = WAL");
  db.pragma("synchronous = NORMAL");
  db.exec(`
    CREATE TABLE IF NOT EXISTS positions (name TEXT PRIMARY KEY, seq INTEGER NOT NULL, at INTEGER NOT NULL);
    CREATE TABLE IF NOT EXISTS entries (consumer TEXT NOT NULL, key TEXT NOT NULL, value TEXT NOT NULL, PRIMARY KEY (consumer, key));
  `);
  const getPos = db.prepare("SELECT seq FROM positions WHERE name = ?") as Statement<
    [string],
    { seq: number }
  >;
  const setPos = db.prepare(
    "INSERT INTO positions (name, seq, at) VALUES (?, ?, ?) ON CONFLICT(name) DO UPDATE SET seq = excluded.seq, at = excluded.at",
  );
  const getEntry = db.prepare("SELECT value FROM entries WHERE consumer = ? AND key = ?") as Statement<
    [string, string],
    { value: string }
  >;
  const listEntries = db.prepare(
    "SELECT key, value FROM entries WHERE consumer = ? AND substr(key, 1, ?) = ? ORDER BY key",
  ) as Statement<[string, number, string], { key: string; value: string }>;
  const setEntry = db.prepare(
    "INSERT INTO entries (consumer, key, value) VALUES (?, ?, ?) ON CONFLICT(consumer, key) DO UPDATE SET value = excluded.value",
  );
  const delEntry = db.prepare("DELETE FROM entries WHERE consumer = ? AND key = ?");
  const put = db.transaction(
    (consumer: string, entries: readonly { key: string; value: string | null }[], position?: number) => {
      for (const e of entries) {
        if (e.value === null) delEntry.run(consumer, e.key);
        else setEntry.run(consumer, e.key, e.value);
      }
      if (position !== undefined) setPos.run(consumer, position, Date.now());
    },
  );
  const forget = db.transaction((consumer: string) => {
    db.prepare("DELETE FROM positions WHERE name = ?").run(consumer);
    db.prepare("DELETE FROM entries WHERE consumer = ?").run(consumer);
  });
  return {
    position: (consumer) => getPos.get(consumer)?.seq,
    get: (consumer, key) => getEntry.get(consumer, key)?.value,
    list: (consumer, prefix = "") => listEntries.all(consumer, prefix.length, prefix),
    put: (consumer, entries, position) => put(consumer, entries, position),
    consumers: () =>
      db.prepare("SELECT name, seq AS position FROM positions ORDER BY name").all() as {
        name: string;
        position: number;
      }[],
    forget: (consumer) => forget(consumer),
    close: () => db.close(),
  };
}
