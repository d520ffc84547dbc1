import { createHash } from "node:crypto";
import { join } from "node:path";
import { inflateRawSync } from "node:zlib";
import { packLogBody } from "./log-body.js";
import { Database, type Statement } from "./sqlite.js";

/**
 * Config history (docs/config-history.md): every document that became the config in force, kept
 * in the log's own SQLite beside the command queue. A version is written in the transaction that
 * enqueues the ApplyConfig row naming the config (`EventLog.enqueue`), so a version exists exactly
 * when its apply is durable; the document's text is stored once per sha256, however many versions
 * name it (a rollback names an older text again).
 */

/** Who made a version and what it changed, as the ApplyConfig row carries it (`note`). */
export interface ConfigVersionNote {
  /** The principal's name (API), `SIGHUP`, `startup`, or a name the publishing server gave. */
  readonly by: string;
  /** One line: what the apply changed (`objects +1 ~0 -2; checks ~1`). */
  readonly summary: string;
  /** A rollback: the version it went back to (its number on the server that did it). */
  readonly rollbackOf?: number;
}

/** A version to record: its note, when its ApplyConfig was accepted, and the document's text. */
export interface ConfigVersionRow extends ConfigVersionNote {
  readonly at: number;
  readonly text: string;
}

/** A recorded version (without its text). */
export interface ConfigVersion {
  readonly version: number;
  readonly at: number;
  readonly sha256: string;
  readonly by: string;
  readonly summary: string;
  /** 0: not a rollback. */
  readonly rollbackOf: number;
  /** The document's size in bytes (UTF-8). */
  readonly bytes: number;
}

/** The tables, created with the log's own (EventLog.open). */
export const CONFIG_VERSION_TABLES = `
  CREATE TABLE IF NOT EXISTS config_documents (sha256 TEXT PRIMARY KEY, bytes INTEGER NOT NULL, text BLOB NOT NULL);
  CREATE TABLE IF NOT EXISTS config_versions (version INTEGER PRIMARY KEY AUTOINCREMENT, at INTEGER NOT NULL, sha256 TEXT NOT NULL, by TEXT NOT NULL, summary TEXT NOT NULL, rollback_of INTEGER NOT NULL DEFAULT 0);
`;

/** sha256 (hex) of a document's UTF-8 text: what ListConfigVersions shows. */
export function documentSha256(text: string): string {
  return createHash("sha256").update(text, "utf8").digest("hex");
}

/**
 * Writes versions on the log's connection; `insert` must run inside the caller's transaction (the
 * one that enqueues the ApplyConfig row). A version is a change of document: one whose text is the
 * newest version's records nothing. A text already stored is not stored (nor packed) again.
 */
export function configVersionWriter(db: Database): {
  insert(v: ConfigVersionRow): void;
  any(): boolean;
} {
  const has: Statement<[string]> = db.prepare("SELECT 1 FROM config_documents WHERE sha256 = ?");
  const doc: Statement<[string, number, Buffer]> = db.prepare(
    "INSERT OR IGNORE INTO config_documents (sha256, bytes, text) VALUES (?, ?, ?)",
  );
  const version: Statement<[number, string, string, string, number]> = db.prepare(
    "INSERT INTO config_versions (at, sha256, by, summary, rollback_of) VALUES (?, ?, ?, ?, ?)",
  );
  const count = db.prepare("SELECT count(*) AS n FROM config_versions");
  const newest = db.prepare("SELECT sha256 FROM config_versions ORDER BY version DESC LIMIT 1");
  return {
    insert(v) {
      const sha = documentSha256(v.text);
      // The same document again (a restart on another -listen, a SIGHUP after an ApplyConfig of the
      // file's text: the engine's digest differs, the document does not) is no new version.
      if ((newest.get() as { sha256: string } | undefined)?.sha256 === sha) return;
      if (has.get(sha) === undefined) doc.run(sha, Buffer.byteLength(v.text, "utf8"), packLogBody(v.text));
      version.run(v.at, sha, v.by, v.summary, v.rollbackOf ?? 0);
    },
    any: () => (count.get() as { n: number }).n > 0,
  };
}

/** A replicated group's ApplyConfig row with a note, told apart without parsing every row. */
const APPLY_CONFIG_PREFIX = '{"type":"ApplyConfig"';

/**
 * The versions a group of command rows records: each ApplyConfig row that carries a note, with the
 * text `textOf` finds for its config digest (a row whose text is not there records nothing: the
 * server that published it had no -config file).
 */
export function versionsOfRows(
  rows: readonly { readonly at: number; readonly body: string | Uint8Array }[],
  textOf: (digest: string) => string | undefined,
): ConfigVersionRow[] {
  const out: ConfigVersionRow[] = [];
  const decoder = new TextDecoder();
  for (const r of rows) {
    // Command batches are JSON arrays; only an ApplyConfig row is an object.
    const first = typeof r.body === "string" ? r.body.charCodeAt(0) : r.body[0];
    if (first !== 0x7b) continue;
    const text = typeof r.body === "string" ? r.body : decoder.decode(r.body);
    if (!text.startsWith(APPLY_CONFIG_PREFIX)) continue;
    let row: { digest?: unknown; note?: ConfigVersionNote };
    try {
      row = JSON.parse(text) as typeof row;
    } catch {
      continue;
    }
    if (row.note === undefined || typeof row.digest !== "string") continue;
    const doc = textOf(row.digest);
    if (doc === undefined) continue;
    out.push({ ...noteOf(row.note), at: r.at, text: doc });
  }
  return out;
}

/** A note as logged, narrowed to its known fields (a row is data from another server). */
function noteOf(n: ConfigVersionNote): ConfigVersionNote {
  const by = typeof n.by === "string" ? n.by : "";
  const summary = typeof n.summary === "string" ? n.summary : "";
  return typeof n.rollbackOf === "number" ? { by, summary, rollbackOf: n.rollbackOf } : { by, summary };
}

/** The config history as the API reads it: a read-only connection of its own (WAL). */
export interface ConfigHistory {
  /** Versions newest first, starting at `below` (exclusive; undefined: the newest), at most `limit`. */
  list(below: number | undefined, limit: number): ConfigVersion[];
  /** One version, or undefined. */
  get(version: number): ConfigVersion | undefined;
  /** A version's document text, or undefined when there is no such version. */
  text(version: number): string | undefined;
  /** The newest version, or undefined when none is recorded. */
  newest(): ConfigVersion | undefined;
  close(): void;
}

const COLUMNS =
  "v.version AS version, v.at AS at, v.sha256 AS sha256, v.by AS by, v.summary AS summary, v.rollback_of AS rollbackOf, d.bytes AS bytes FROM config_versions v JOIN config_documents d ON d.sha256 = v.sha256";

/** Opens the history of the log in dataDir read-only (the writer created the tables at open). */
export function openConfigHistory(dataDir: string): ConfigHistory {
  const db = new Database(join(dataDir, "lookout.db"), { readonly: true, fileMustExist: true });
  const page = db.prepare(`SELECT ${COLUMNS} WHERE v.version < ? ORDER BY v.version DESC LIMIT ?`);
  const one = db.prepare(`SELECT ${COLUMNS} WHERE v.version = ?`);
  const newest = db.prepare(`SELECT ${COLUMNS} ORDER BY v.version DESC LIMIT 1`);
  const text = db.prepare(
    "SELECT d.text AS text FROM config_versions v JOIN config_documents d ON d.sha256 = v.sha256 WHERE v.version = ?",
  );
  return {
    list: (below, limit) => page.all(below ?? Number.MAX_SAFE_INTEGER, Math.max(0, limit)) as ConfigVersion[],
    get: (version) => one.get(version) as ConfigVersion | undefined,
    text(version) {
      const row = text.get(version) as { text: Buffer } | undefined;
      return row === undefined ? undefined : inflateRawSync(row.text).toString("utf8");
    },
    newest: () => newest.get() as ConfigVersion | undefined,
    close: () => db.close(),
  };
}
