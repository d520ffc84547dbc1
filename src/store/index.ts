/**
 * The store: the durable command queue and event log (SQLite in WAL mode), the single writer that
 * applies commands through a state machine in a worker thread, and the projection that serves every
 * read from memory on the owning thread. Reads never wait on writes; a successful submit means the
 * command is fsync'd, not yet applied; a restart replays to the identical projection. The engine is
 * plugged in by the writer thread's entry module (src/core/writer-worker.ts). See docs/storage.md.
 */

export { type AsOf, type AsOfOptions, createAsOf } from "./as-of.js";
export { type AsOfLog, type AsOfPlan, openAsOfLog } from "./as-of-log.js";
export {
  type ConfigHistory,
  type ConfigVersion,
  type ConfigVersionNote,
  documentSha256,
  openConfigHistory,
} from "./config-versions.js";
export {
  OutOfRangeError,
  RejectedError,
  type RejectReason,
  StoreError,
  type StoreFailure,
} from "./errors.js";
export { type EventLogReader, type LoggedEvent, openEventLogReader } from "./event-log.js";
export type { ObjectEntry, ObjectIndex } from "./object-index.js";
export type { Projection, ProjectionSnapshot } from "./projection.js";
export { DEFAULT_WRITER_OPTIONS, type Recovered, type WriterOptions, type WriterStats } from "./protocol.js";
export {
  type HistoryQuery,
  listHistory,
  listObjects,
  listStatus,
  type ObjectQuery,
  type Page,
  type StatusView,
} from "./read-model.js";
export type { AckRecord, DowntimeRecord, HistoryRecord, StatusRecord } from "./records.js";
export { replayProjection } from "./replay.js";
export type { StateMachine, StateMachineFactory } from "./state-machine.js";
export { type StatusSummary, type SummaryFields, statusSummary, summaryFields } from "./status-summary.js";
export { type IngestOutcome, type PreparedStoreConfig, Store, type StoreOptions } from "./store.js";
export type { SubmissionDecoder } from "./submission.js";
export { type HeapSpace, type ThreadMemory, threadMemory } from "./thread-memory.js";
