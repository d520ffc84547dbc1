import { type JsMsg, jetstream, jetstreamManager } from "@nats-io/jetstream";
import { Kvm } from "@nats-io/kv";
import type { NatsConnection } from "@nats-io/transport-node";
import { checkerFailedOutcome, noCheckerOutcome, timeoutOutcome } from "../engine/scheduler/outcomes.js";
import type { CheckOutcome } from "../model/check-result.js";
import type { Checker } from "../model/checker.js";
import type { Clock } from "../model/clock.js";
import type { CheckType } from "../model/config.js";
import type { Logger } from "../model/logger.js";
import { isExitStatus } from "../model/state.js";
import { decodeJob, encodeResult, type Job, makeResult, targetOfJob } from "./job.js";
import { JOBS_STREAM, jobMsgId, jobsConsumer, resultSubject, WORKERS_BUCKET, workerKey } from "./names.js";
import { createAckedPublisher, PUBLISH_ACK_TIMEOUT_MS } from "./publisher.js";
import { ensureStreams, ensureZoneConsumer } from "./streams.js";

/** A worker's liveness entry lives this long after its last refresh (the KV bucket's max_age). */
export const WORKER_TTL_MS = 15_000;
/** How often a worker refreshes its liveness entry. */
export const WORKER_HEARTBEAT_MS = 5_000;
/** The ack wait a worker gives a zone consumer it has to create itself (the server corrects it). */
const DEFAULT_ACK_WAIT_MS = 62_000;

/** What a worker writes under its key in `WORKERS_BUCKET`. */
export interface WorkerInfo {
  readonly id: string;
  readonly zone: string;
  readonly concurrency: number;
  readonly startedAt: number;
  readonly running: number;
  readonly done: number;
  readonly expired: number;
}

export interface WorkerOptions {
  readonly nc: NatsConnection;
  readonly zone: string;
  /** This worker's name: unique among the zone's workers; it labels the results it publishes. */
  readonly id: string;
  readonly concurrency: number;
  readonly checkers: ReadonlyMap<CheckType, Checker>;
  readonly clock: Clock;
  readonly logger: Logger;
  /** JetStream replicas for streams and buckets the worker has to create (the server's win). */
  readonly replicas?: number;
  readonly heartbeatMs?: number;
  readonly ttlMs?: number;
}

export interface Worker {
  /** Jobs run and results published so far. */
  readonly done: number;
  readonly expired: number;
  /** Stops taking jobs, lets running checks finish and publish, and removes the liveness entry. */
  stop(): Promise<void>;
}

/**
 * Runs the checks of one zone: it pulls jobs from the zone's shared consumer only when it has a
 * free slot (a job waiting in a worker's memory would burn its ack wait), runs each with the same
 * Checker code the server uses, bounded by the job's timeout, publishes the result (the job's
 * identity as message id, so a job run twice yields one result) and acknowledges the job after
 * JetStream acknowledged the result. A job past its expiry is dropped unrun.
 */
export async function startWorker(o: WorkerOptions): Promise<Worker> {
  const { nc, zone, clock, logger } = o;
  const jsm = await jetstreamManager(nc);
  await ensureStreams(jsm, o.replicas ?? 1, { update: false });
  await ensureZoneConsumer(jsm, zone, DEFAULT_ACK_WAIT_MS, { update: false });
  const js = jetstream(nc);
  const kv = await new Kvm(js).create(WORKERS_BUCKET, {
    ttl: o.ttlMs ?? WORKER_TTL_MS,
    history: 1,
    replicas: o.replicas ?? 1,
  });
  const consumer = await js.consumers.get(JOBS_STREAM, jobsConsumer(zone));
  const publisher = createAckedPublisher(nc, PUBLISH_ACK_TIMEOUT_MS);
  const subject = resultSubject(zone);
  const key = workerKey(zone, o.id);
  const startedAt = clock.now();
  let running = 0;
  let done = 0;
  let expired = 0;
  /** The highest leader token seen on a job. */
  let fence = 0;
  let stopping = false;
  let wake: (() => void) | undefined;
  const idle = new Set<() => void>();

  const heartbeat = async () => {
    const info: WorkerInfo = {
      id: o.id,
      zone,
      concurrency: o.concurrency,
      startedAt,
      running,
      done,
      expired,
    };
    try {
      await kv.put(key, JSON.stringify(info));
    } catch (e) {
      logger.warn("cannot refresh the liveness entry", { error: String(e) });
    }
  };
  await heartbeat();
  const beat = setInterval(() => void heartbeat(), o.heartbeatMs ?? WORKER_HEARTBEAT_MS);

  const runCheck = async (job: Job): Promise<CheckOutcome> => {
    const checker = o.checkers.get(job.check.type);
    if (checker === undefined) return noCheckerOutcome(job.check.type);
    const ac = new AbortController();
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timedOut = new Promise<CheckOutcome>((resolve) => {
      timer = setTimeout(() => {
        ac.abort(new DOMException("check timed out", "TimeoutError"));
        resolve(timeoutOutcome(2, job.timeoutMs));
      }, job.timeoutMs);
    });
    try {
      const outcome = await Promise.race([checker.run(targetOfJob(job), ac.signal), timedOut]);
      if (!isExitStatus(outcome.exitStatus)) return checkerFailedOutcome(job.check.type, outcome.exitStatus);
      return outcome;
    } catch (e) {
      return checkerFailedOutcome(job.check.type, e);
    } finally {
      clearTimeout(timer);
    }
  };

  const handle = async (m: JsMsg): Promise<void> => {
    const job = decodeJob(m.data);
    if (job === undefined) {
      logger.warn("dropping a message that is not a job", { subject: m.subject });
      m.term();
      return;
    }
    const startedAtMs = clock.now();
    // A job of a deposed leader (split brain): the newer leader publishes this object's run itself.
    const fenced = (job.leader ?? 0) < fence;
    if (!fenced) fence = Math.max(fence, job.leader ?? 0);
    if (fenced || startedAtMs > job.expiresAt) {
      expired++;
      logger.debug(fenced ? "job of a deposed leader dropped" : "expired job dropped", {
        object: job.key,
        due: job.due,
        leader: job.leader ?? 0,
        deliveries: m.info.deliveryCount,
      });
      m.ack();
      return;
    }
    const outcome = await runCheck(job);
    const result = makeResult(job, o.id, startedAtMs, clock.now() - startedAtMs, outcome);
    const msgID = jobMsgId(m.subject, job.due);
    const data = encodeResult(result);
    for (let attempt = 1; ; attempt++) {
      try {
        const ack = await publisher.publish(subject, data, msgID);
        m.ack();
        done++;
        logger.debug("result published", {
          object: job.key,
          checkedAt: result.checkedAt,
          seq: ack.seq,
          duplicate: ack.duplicate,
        });
        return;
      } catch (e) {
        if (attempt >= 20 || stopping) {
          // The job stays: it goes to a worker again, and its result's id drops a twin.
          logger.warn("cannot publish a result", { object: job.key, error: String(e) });
          m.nak();
          return;
        }
        await new Promise((r) => setTimeout(r, 500));
      }
    }
  };

  const loop = async () => {
    while (!stopping) {
      const free = o.concurrency - running;
      if (free <= 0) {
        await new Promise<void>((resolve) => {
          wake = resolve;
        });
        continue;
      }
      try {
        const batch = await consumer.fetch({ max_messages: free, expires: 1_000 });
        for await (const m of batch) {
          running++;
          void handle(m).finally(() => {
            running--;
            wake?.();
            wake = undefined;
            if (running === 0) for (const f of idle) f();
          });
        }
      } catch (e) {
        if (stopping) break;
        logger.warn("cannot fetch jobs; retrying", { error: String(e) });
        await new Promise((r) => setTimeout(r, 1_000));
      }
    }
  };
  const looping = loop();
  logger.info("worker started", { zone, worker: o.id, concurrency: o.concurrency });

  return {
    get done() {
      return done;
    },
    get expired() {
      return expired;
    },
    async stop() {
      stopping = true;
      clearInterval(beat);
      wake?.();
      await looping;
      if (running > 0) await new Promise<void>((resolve) => idle.add(resolve));
      publisher.close();
      try {
        await kv.delete(key);
      } catch {
        // The entry expires on its own.
      }
    },
  };
}
