import type { Role } from "../auth/roles.js";

/**
 * Where an audited command came from: an API call, a line of the external command file, or a
 * result a zone's worker published (refused ones are audited: docs/zones.md).
 */
export type AuditSource = "api" | "extcmd" | "zone";

/**
 * Who a record names: an identity with its role (an auth `Principal`), or a zone's worker as
 * `worker:<name>`, which has no role.
 */
export interface AuditPrincipal {
  readonly name: string;
  readonly role?: Role;
}

/** Whether the command was taken (enqueued, or done for an admin write) or refused. */
export type AuditOutcome = "accepted" | "rejected";

/** One audit record (the reference's AuditRecord). */
export interface AuditEntry {
  /** When recorded, Unix ms. */
  readonly at: number;
  readonly source: AuditSource;
  /** Absent when nothing authenticated the sender. */
  readonly principal?: AuditPrincipal;
  /** host:port of an API caller; empty for the command file and zones. */
  readonly peer: string;
  /** The full RPC path, the external command's name, or the subject a zone's result came on. */
  readonly rpc: string;
  /** The command as JSON with capitalized keys (Target, Sticky, Author, Comment, Start, End ...). */
  readonly commandJson: string;
  readonly outcome: AuditOutcome;
  /** Why it was refused; empty when accepted. */
  readonly reason: string;
}
