import {
  AckPolicy,
  DiscardPolicy,
  type JetStreamManager,
  RetentionPolicy,
  StorageType,
} from "@nats-io/jetstream";
import { nanos } from "@nats-io/transport-node";
import {
  JOBS_STREAM,
  JOBS_SUBJECTS,
  jobsConsumer,
  RESULTS_CONSUMER,
  RESULTS_STREAM,
  RESULTS_SUBJECTS,
  zoneJobsFilter,
} from "./names.js";

/** How long JetStream remembers a message id to drop a republished job or result. */
export const DUPLICATE_WINDOW_MS = 120_000;
/** A job nobody took is gone after this, whatever else happens (it expires earlier on its own). */
export const JOBS_MAX_AGE_MS = 600_000;
/** A result the leader has not read is kept this long (the leader's longest outage it survives). */
export const RESULTS_MAX_AGE_MS = 86_400_000;
/** How long a job a worker took may stay unacknowledged beyond its zone's longest check timeout. */
export const ACK_WAIT_MARGIN_MS = 500;
/** How long the leader may hold a result between reading and acknowledging it. */
export const RESULTS_ACK_WAIT_MS = 30_000;

/** Whether JetStream answered that the stream or consumer asked for does not exist. */
export const isNotFound = (e: unknown): boolean => {
  const code = (e as { api_error?: { err_code?: number }; code?: unknown })?.api_error?.err_code;
  return code === 10059 || code === 10014 || /not found/i.test(String((e as Error)?.message));
};

/**
 * Creates the jobs and results streams, or updates their settings (both are work queues: a job
 * or result is gone once acknowledged). `replicas` is the JetStream replication factor (1, 3, 5).
 */
export async function ensureStreams(
  jsm: JetStreamManager,
  replicas: number,
  o: { update: boolean } = { update: true },
): Promise<void> {
  const jobs = {
    name: JOBS_STREAM,
    subjects: [JOBS_SUBJECTS],
    retention: RetentionPolicy.Workqueue,
    storage: StorageType.File,
    discard: DiscardPolicy.Old,
    max_msgs_per_subject: 1,
    max_age: nanos(JOBS_MAX_AGE_MS),
    duplicate_window: nanos(DUPLICATE_WINDOW_MS),
    num_replicas: replicas,
  };
  const results = {
    name: RESULTS_STREAM,
    subjects: [RESULTS_SUBJECTS],
    retention: RetentionPolicy.Workqueue,
    storage: StorageType.File,
    discard: DiscardPolicy.Old,
    max_age: nanos(RESULTS_MAX_AGE_MS),
    duplicate_window: nanos(DUPLICATE_WINDOW_MS),
    num_replicas: replicas,
  };
  for (const cfg of [jobs, results]) {
    try {
      await jsm.streams.info(cfg.name);
      if (o.update) await jsm.streams.update(cfg.name, cfg);
    } catch (e) {
      if (!isNotFound(e)) throw e;
      await jsm.streams.add(cfg);
    }
  }
}

/**
 * Creates or updates a zone's durable pull consumer, shared by all its workers. `ackWaitMs`: a job
 * a worker took and did not acknowledge within it (the worker died) goes to another worker.
 */
export async function ensureZoneConsumer(
  jsm: JetStreamManager,
  zone: string,
  ackWaitMs: number,
  o: { update: boolean } = { update: true },
): Promise<void> {
  const name = jobsConsumer(zone);
  const cfg = {
    durable_name: name,
    filter_subject: zoneJobsFilter(zone),
    ack_policy: AckPolicy.Explicit,
    ack_wait: nanos(ackWaitMs),
    max_ack_pending: 20_000,
    max_deliver: -1,
  };
  try {
    const info = await jsm.consumers.info(JOBS_STREAM, name);
    if (o.update && info.config.ack_wait !== cfg.ack_wait)
      await jsm.consumers.update(JOBS_STREAM, name, { ack_wait: cfg.ack_wait });
  } catch (e) {
    if (!isNotFound(e)) throw e;
    await jsm.consumers.add(JOBS_STREAM, cfg);
  }
}

/** Creates the leader's durable consumer on the results stream, if missing. */
export async function ensureResultsConsumer(jsm: JetStreamManager): Promise<void> {
  try {
    await jsm.consumers.info(RESULTS_STREAM, RESULTS_CONSUMER);
  } catch (e) {
    if (!isNotFound(e)) throw e;
    await jsm.consumers.add(RESULTS_STREAM, {
      durable_name: RESULTS_CONSUMER,
      ack_policy: AckPolicy.Explicit,
      ack_wait: nanos(RESULTS_ACK_WAIT_MS),
      max_ack_pending: 50_000,
      max_deliver: -1,
    });
  }
}
