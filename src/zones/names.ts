import { createHash } from "node:crypto";

/**
 * Every JetStream name Lookout uses — streams, consumers, KV buckets and subjects — and nothing
 * else. docs/zones.md documents each one; change them here and there together. Zone names are
 * free text in the config, so subjects and consumer names carry a token derived from the zone
 * (`zoneToken`), never the raw name.
 */

/** The work-queue stream of jobs: one subject per object, so a newer job replaces one nobody took. */
export const JOBS_STREAM = "LOOKOUT_JOBS";
/** Every job subject: `lookout.job.<zone token>.<object token>`. */
export const JOBS_SUBJECTS = "lookout.job.>";
/** The stream of results workers publish, read by the leader through `RESULTS_CONSUMER`. */
export const RESULTS_STREAM = "LOOKOUT_RESULTS";
export const RESULTS_SUBJECTS = "lookout.result.>";
/** The leader's durable pull consumer on `RESULTS_STREAM`. */
export const RESULTS_CONSUMER = "lookout-primary";
/** KV bucket of live workers: key `<zone token>.<worker id>`, value the worker's description. */
export const WORKERS_BUCKET = "lookout_workers";
/**
 * The replicated command log (docs/replication.md): every command group on `COMMANDS_SUBJECT`, in
 * the order every server applies them; the parts of a group too large for one message on
 * `COMMAND_PARTS_SUBJECT`, named by the group that follows them.
 */
export const COMMANDS_STREAM = "LOOKOUT_CMDS";
export const COMMANDS_SUBJECT = "lookout.cmd";
export const COMMAND_PARTS_SUBJECT = "lookout.cmdpart";
/**
 * Snapshots for servers that join (docs/replication.md): a snapshot's header on `SNAPSHOT_SUBJECT`
 * after its parts on `SNAPSHOT_PARTS_SUBJECT`; the two newest are kept.
 */
export const SNAPSHOTS_STREAM = "LOOKOUT_SNAPSHOTS";
export const SNAPSHOT_SUBJECT = "lookout.snapshot";
export const SNAPSHOT_PARTS_SUBJECT = "lookout.snapshotpart";
/** KV bucket holding the leader lease under `LEADER_KEY`. */
export const LEADER_BUCKET = "lookout_leader";
export const LEADER_KEY = "leader";
/**
 * KV bucket mirroring the log consumers' state (positions and entries) that the leader writes, so
 * that a new leader resumes where the old one stopped (consumer-state-replica.ts has the key encoding).
 */
export const CONSUMERS_BUCKET = "lookout_consumers";

/**
 * A subject token for a zone: its name when made of `[A-Za-z0-9_-]` (at most 64 characters),
 * otherwise `z` and 16 hex digits of its SHA-256. Tokens never contain `.`, `*`, `>` or spaces.
 */
export function zoneToken(zone: string): string {
  if (/^[A-Za-z0-9_-]{1,64}$/.test(zone)) return zone;
  return `z${createHash("sha256").update(zone).digest("hex").slice(0, 16)}`;
}

/** The durable pull consumer a zone's workers share on `JOBS_STREAM`. */
export function jobsConsumer(zone: string): string {
  return `lookout-zone-${zoneToken(zone)}`;
}

/** All job subjects of a zone: the filter of its consumer. */
export function zoneJobsFilter(zone: string): string {
  return `lookout.job.${zoneToken(zone)}.>`;
}

/**
 * The subject of one object's job: 20 hex digits of the SHA-256 of its key (`host` or
 * `host!service`), so any key fits in one token.
 */
export function jobSubject(zone: string, objectKey: string): string {
  const h = createHash("sha256").update(objectKey).digest("hex").slice(0, 20);
  return `lookout.job.${zoneToken(zone)}.${h}`;
}

/** Where a zone's workers publish results. */
export function resultSubject(zone: string): string {
  return `lookout.result.${zoneToken(zone)}`;
}

/**
 * Where replies to a zone's workers go (their connection's inbox prefix): a subject space of the
 * zone's own, so NATS permissions can let its workers read their replies and nobody else's.
 */
export function workerInboxPrefix(zone: string): string {
  return `_INBOX_lookout.${zoneToken(zone)}`;
}

/** The key of a worker in `WORKERS_BUCKET`. */
export function workerKey(zone: string, worker: string): string {
  return `${zoneToken(zone)}.${worker}`;
}

/** A job's message id (JetStream de-duplication): the object's subject and the due time of its run. */
export function jobMsgId(subject: string, due: number): string {
  return `${subject}@${due}`;
}
