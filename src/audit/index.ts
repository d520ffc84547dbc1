/**
 * The audit log: who asked for which command or admin write, from where, and whether it was taken —
 * for API calls, logins and lines of the external command file. Kept in its own SQLite file in the
 * data directory, apart from the event log (docs/auth.md, "Audit records").
 */
export { AUDIT_MAX_RECORDS, AUDIT_RETENTION_MS, type AuditLog, openAuditLog } from "./audit-log.js";
export { AUDIT_FIELD_MAX_BYTES, capText } from "./cap.js";
export type { AuditEntry, AuditOutcome, AuditPrincipal, AuditSource } from "./record.js";
