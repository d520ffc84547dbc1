/**
 * Zones on NATS JetStream (docs/zones.md). The server publishes the due checks of zones it does not
 * run itself as jobs on a work-queue stream, one durable pull consumer per zone shared by that
 * zone's workers; a worker (`lookout worker`) runs each job with the same Checker code and
 * publishes the result; the leader ingests the results into its event log through Core.submit,
 * keeping the results stream's position in the log. Workers announce themselves in a KV bucket
 * whose entries expire; a standby server takes over through a leader lease on another KV key,
 * and resumes the log's consumers from the state the leader mirrored to a third bucket. Every
 * JetStream name is in names.ts.
 */

export { type NatsAuth, natsConnectOptions } from "./connection.js";
export {
  consumerKvKey,
  createReplicatedConsumerState,
  type ReplicatedConsumerState,
  type ReplicatedConsumerStateOptions,
} from "./consumer-state-replica.js";
export {
  createDispatcher,
  type Dispatcher,
  type LiveWorker,
  NO_WORKER_GRACE_MS,
  zoneOf,
} from "./dispatcher.js";
export {
  checkResultOf,
  decodeJob,
  decodeResult,
  encodeJob,
  encodeResult,
  type Job,
  jobEncoder,
  makeJob,
  makeResult,
  type ResultMessage,
  targetOfJob,
} from "./job.js";
export { LEASE_TTL_MS, type LeaderElection, startLeaderElection } from "./leader.js";
export { createZoneMetrics, noZoneMetrics, type ZoneMetrics } from "./metrics.js";
export * as names from "./names.js";
export { workerInboxPrefix, zoneToken } from "./names.js";
export { type NatsPermissions, natsUserEntry, workerPermissions } from "./permissions.js";
export {
  createRefusalReporter,
  type ObjectPlacement,
  REFUSAL_AUDITS_PER_WINDOW,
  REFUSAL_LOG_WINDOW_MS,
  type ResultRefusal,
  refusalOf,
} from "./result-refusal.js";
export {
  loggedResultSeqs,
  parseLoggedSeqs,
  RESULT_ABOVE_FIELD,
  RESULT_SEQ_FIELD,
  type ResultsIngest,
  startResultsIngest,
} from "./results-ingest.js";
export { type LoggedSeqs, MAX_RANGES, SeqSet } from "./seq-set.js";
export { ensureStreams, ensureZoneConsumer } from "./streams.js";
export { startWorker, WORKER_HEARTBEAT_MS, WORKER_TTL_MS, type Worker, type WorkerInfo } from "./worker.js";
