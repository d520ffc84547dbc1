import { isRole } from "../auth/roles.js";
import type { Clock } from "../model/clock.js";
import type { Logger } from "../model/logger.js";
import { Database } from "../store/sqlite.js";
import { capEntry } from "./cap.js";
import type { AuditEntry, AuditOutcome, AuditSource } from "./record.js";

/** How long records are kept. */
export const AUDIT_RETENTION_MS = 90 * 24 * 60 * 60 * 1000;
/** The most records kept; the oldest go first. */
export const AUDIT_MAX_RECORDS = 1_000_000;
/** How often retention is applied (and once at open). */
const PRUNE_EVERY_MS = 60 * 60 * 1000;

/** The durable audit log. */
export interface AuditLog {
  /**
   * Appends a record, its text fields capped (capEntry: at most 1 KiB each, marked where cut).
   * Records of one event-loop turn are written in one transaction at the end of the turn (before
   * any I/O answer of a later turn), so a caller never waits on the disk here.
   */
  record(entry: AuditEntry): void;
  /** Records at or after `sinceMs` (all retained when undefined), newest first, at most `limit`. */
  list(sinceMs: number | undefined, limit: number): AuditEntry[];
  /** Writes what is pending and closes the file. */
  close(): void;
}

interface Row {
  at: number;
  source: string;
  principal_name: string | null;
  principal_role: string | null;
  peer: string;
  rpc: string;
  command_json: string;
  outcome: string;
  reason: string;
}

/**
 * The audit log in its own SQLite file (`<data-dir>/audit.db`, WAL), written from the main thread:
 * apart from the event log, whose connection belongs to the writer thread, so auditing never
 * queues behind command application and the event log's format stays the engine's. Retention:
 * 90 days and at most 1,000,000 records (docs/auth.md).
 */
export function openAuditLog(path: string, clock: Clock, logger: Logger): AuditLog {
  const db = new Database(path);
  db.pragma("journal_mode = WAL");
  db.pragma("synchronous = NORMAL");
  db.exec(`CREATE TABLE IF NOT EXISTS audit (
    id INTEGER PRIMARY KEY,
    at INTEGER NOT NULL,
    source TEXT NOT NULL,
    principal_name TEXT,
    principal_role TEXT,
    peer TEXT NOT NULL,
    rpc TEXT NOT NULL,
    command_json TEXT NOT NULL,
    outcome TEXT NOT NULL,
    reason TEXT NOT NULL
  );
  CREATE INDEX IF NOT EXISTS audit_at ON audit (at);`);
  const insert = db.prepare(
    `INSERT INTO audit (at, source, principal_name, principal_role, peer, rpc, command_json, outcome, reason)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const since = db.prepare<[number, number], Row>(
    "SELECT * FROM audit WHERE at >= ? ORDER BY at DESC, id DESC LIMIT ?",
  );
  let pending: AuditEntry[] = [];
  let scheduled = false;
  const writeAll = db.transaction((entries: AuditEntry[]) => {
    for (const e of entries) {
      insert.run(
        e.at,
        e.source,
        e.principal?.name ?? null,
        e.principal?.role ?? null,
        e.peer,
        e.rpc,
        e.commandJson,
        e.outcome,
        e.reason,
      );
    }
  });
  const flush = () => {
    scheduled = false;
    if (pending.length === 0) return;
    const batch = pending;
    pending = [];
    try {
      writeAll(batch);
    } catch (e) {
      logger.error("audit records could not be written", { error: e, records: batch.length });
    }
  };
  const prune = () => {
    try {
      flush();
      db.prepare("DELETE FROM audit WHERE at < ?").run(clock.now() - AUDIT_RETENTION_MS);
      db.prepare("DELETE FROM audit WHERE id <= (SELECT MAX(id) FROM audit) - ?").run(AUDIT_MAX_RECORDS);
    } catch (e) {
      logger.error("audit retention failed", { error: e });
    }
  };
  prune();
  const timer = setInterval(prune, PRUNE_EVERY_MS);
  timer.unref();
  return {
    record(entry) {
      pending.push(capEntry(entry));
      if (!scheduled) {
        scheduled = true;
        setImmediate(flush);
      }
    },
    list(sinceMs, limit) {
      flush();
      return since.all(sinceMs ?? 0, limit).map(fromRow);
    },
    close() {
      clearInterval(timer);
      flush();
      db.close();
    },
  };
}

function fromRow(r: Row): AuditEntry {
  const role = r.principal_role;
  return {
    at: r.at,
    source: r.source as AuditSource,
    ...(r.principal_name === null
      ? {}
      : { principal: isRole(role) ? { name: r.principal_name, role } : { name: r.principal_name } }),
    peer: r.peer,
    rpc: r.rpc,
    commandJson: r.command_json,
    outcome: r.outcome as AuditOutcome,
    reason: r.reason,
  };
}
