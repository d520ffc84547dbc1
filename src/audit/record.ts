import type { Principal } from "../auth/roles.js";

/** Where an audited command came from: an API call, or a line of the external command file. */
export type AuditSource = "api" | "extcmd";

/** Whether the command was taken (enqueued, or done for an admin write) or refused. */
export type AuditOutcome = "accepted" | "rejected";

/** One audit record (the reference's AuditRecord). */
export interface AuditEntry {
  /** When recorded, Unix ms. */
  readonly at: number;
  readonly source: AuditSource;
  /** Absent when nothing authenticated the sender. */
  readonly principal?: Principal;
  /** host:port of an API caller; empty for the command file. */
  readonly peer: string;
  /** The full RPC path, or the external command's name. */
  readonly rpc: string;
  /** The command as JSON with capitalized keys (Target, Sticky, Author, Comment, Start, End ...). */
  readonly commandJson: string;
  readonly outcome: AuditOutcome;
  /** Why it was refused; empty when accepted. */
  readonly reason: string;
}
