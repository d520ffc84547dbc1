import { type JetStreamClient, type JetStreamManager, jetstream, jetstreamManager } from "@nats-io/jetstream";
import { type KV, Kvm } from "@nats-io/kv";
import type { NatsConnection } from "@nats-io/transport-node";
import type { PlannedCheck } from "../engine/scheduler/index.js";
import type { CheckResult } from "../model/check-result.js";
import type { Clock } from "../model/clock.js";
import type { Config } from "../model/config.js";
import type { Logger } from "../model/logger.js";
import { jobEncoder } from "./job.js";
import type { ZoneMetrics } from "./metrics.js";
import {
  JOBS_STREAM,
  jobMsgId,
  jobSubject,
  jobsConsumer,
  RESULTS_CONSUMER,
  RESULTS_STREAM,
  WORKERS_BUCKET,
} from "./names.js";
import { createAckedPublisher, PUBLISH_ACK_TIMEOUT_MS } from "./publisher.js";
import { ACK_WAIT_MARGIN_MS, ensureStreams, ensureZoneConsumer } from "./streams.js";
import { WORKER_TTL_MS, type WorkerInfo } from "./worker.js";

/** How long a remote zone may have no live worker before its objects go UNKNOWN. */
export const NO_WORKER_GRACE_MS = 30_000;
/** How often the server lists live workers and reads its consumers' counters. */
export const POLL_MS = 2_000;
/** The most job publishes awaiting JetStream's acknowledgement; due jobs beyond it are dropped. */
export const MAX_PENDING_PUBLISHES = 50_000;

/** A live worker, as the server last listed it. */
export interface LiveWorker extends WorkerInfo {
  /** When its entry was last refreshed (ms since the epoch). */
  readonly seenAt: number;
}

export interface Dispatcher {
  /**
   * The scheduler's route hook: false for a check of a zone that runs here; otherwise it publishes
   * the run as a job (or, when the zone has had no live worker beyond the grace, submits UNKNOWN
   * "no worker for zone X"; or drops it while NATS is unreachable) and answers true.
   */
  route(plan: PlannedCheck, due: number): boolean;
  /** Makes every remote zone of the config have its consumer, with an ack wait above its longest timeout. */
  applyConfig(config: Config): Promise<void>;
  /** The live workers, by zone, as of the last poll. */
  workers(): readonly LiveWorker[];
  stop(): Promise<void>;
}

export interface DispatcherOptions {
  readonly nc: NatsConnection;
  /** Zones whose checks this server runs itself. */
  readonly localZones: ReadonlySet<string>;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly metrics: ZoneMetrics;
  /** Where "no worker for zone X" results go: the pipeline, as a local check result would. */
  readonly submit: (result: CheckResult) => void;
  readonly replicas: number;
  /** The fencing token jobs carry: the leader's lease revision (0 without election). */
  readonly token: () => number;
  readonly graceMs?: number;
  readonly pollMs?: number;
}

/** The zone of a planned check: the service's effective zone, or the host's. */
export function zoneOf(plan: PlannedCheck): string {
  return plan.target.service?.zone ?? plan.target.host.zone;
}

/**
 * Creates the server's side of the job flow. It creates the streams (updating their settings),
 * then publishes jobs without waiting: each publish is awaited in the background, bounded by
 * `MAX_PENDING_PUBLISHES`, so a slow or absent NATS never slows the scheduler and never piles up.
 */
export async function createDispatcher(o: DispatcherOptions): Promise<Dispatcher> {
  const { nc, clock, logger, metrics } = o;
  const graceMs = o.graceMs ?? NO_WORKER_GRACE_MS;
  const jsm: JetStreamManager = await jetstreamManager(nc);
  await ensureStreams(jsm, o.replicas);
  const js: JetStreamClient = jetstream(nc);
  const kv: KV = await new Kvm(js).create(WORKERS_BUCKET, {
    ttl: WORKER_TTL_MS,
    history: 1,
    replicas: o.replicas,
  });
  const publisher = createAckedPublisher(nc, PUBLISH_ACK_TIMEOUT_MS);
  let connected = true;
  let pending = 0;
  let live: LiveWorker[] = [];
  const startedAt = clock.now();
  /** Per remote zone: when a live worker was last seen (the server's start counts as seen). */
  const lastSeen = new Map<string, number>();
  const remoteZones = new Set<string>();
  let stopped = false;

  void (async () => {
    for await (const s of nc.status()) {
      if (s.type === "disconnect") connected = false;
      else if (s.type === "reconnect") connected = true;
    }
  })();

  const poll = async (): Promise<void> => {
    const now = clock.now();
    const found: LiveWorker[] = [];
    // The bucket's subjects from one stream info request: `kv.keys()` would create a consumer at
    // every poll, a cluster-wide proposal that times out while JetStream elects leaders.
    const prefix = `$KV.${WORKERS_BUCKET}.`;
    const info = await jsm.streams.info(`KV_${WORKERS_BUCKET}`, { subjects_filter: `${prefix}>` });
    const keys = Object.keys(info.state.subjects ?? {}).map((subject) => subject.slice(prefix.length));
    for (const k of keys) {
      const e = await kv.get(k);
      if (e === null || e.operation !== "PUT") continue;
      try {
        found.push({ ...(e.json() as WorkerInfo), seenAt: e.created.getTime() });
      } catch {
        // Not a worker entry; ignore it.
      }
    }
    live = found;
    const workers = new Map<string, number>();
    const expired = new Map<string, number>();
    for (const w of found) {
      workers.set(w.zone, (workers.get(w.zone) ?? 0) + 1);
      expired.set(w.zone, (expired.get(w.zone) ?? 0) + (w.expired ?? 0));
      lastSeen.set(w.zone, now);
    }
    const taken = new Map<string, number>();
    const waiting = new Map<string, number>();
    for (const zone of remoteZones) {
      try {
        const info = await jsm.consumers.info(JOBS_STREAM, jobsConsumer(zone));
        taken.set(zone, info.delivered.consumer_seq);
        waiting.set(zone, info.num_pending);
      } catch {
        // A zone whose consumer is not made yet.
      }
    }
    let resultsPending = 0;
    try {
      const info = await jsm.consumers.info(RESULTS_STREAM, RESULTS_CONSUMER);
      resultsPending = info.num_pending + info.num_ack_pending;
    } catch {
      // No results consumer yet (no leader has ingested).
    }
    metrics.snapshot({ workers, taken, waiting, expired, resultsPending });
  };
  let polling: Promise<void> = poll().catch(() => {});
  const timer = setInterval(() => {
    polling = polling.then(() =>
      stopped
        ? undefined
        : poll().catch((e: unknown) => logger.debug("cannot list workers", { error: String(e) })),
    );
  }, o.pollMs ?? POLL_MS);

  /**
   * Publishes a job, retrying (same message id, so JetStream keeps one) while a stream leader is
   * being elected, until the job would have expired.
   */
  const publish = async (
    zone: string,
    key: string,
    subject: string,
    data: Uint8Array,
    msgID: string,
    expiresAt: number,
  ): Promise<void> => {
    for (;;) {
      try {
        const ack = await publisher.publish(subject, data, msgID);
        metrics.published(zone);
        logger.debug("job published", { object: key, seq: ack.seq, duplicate: ack.duplicate });
        return;
      } catch (e) {
        // While a stream leader is being elected publishes fail fast: retry until the job is stale.
        if (stopped || clock.now() + 1_000 > expiresAt) {
          metrics.dropped(zone, "publish_failed");
          logger.debug("cannot publish a job", { object: key, error: String(e) });
          return;
        }
        await new Promise((r) => setTimeout(r, 500));
      }
    }
  };

  /**
   * Per planned check (a new plan object comes with each config change of its object): its subject
   * (a SHA-256) and its job encoder, made once rather than at every run.
   */
  const encoders = new WeakMap<PlannedCheck, { subject: string; encode: ReturnType<typeof jobEncoder> }>();
  const encoderOf = (plan: PlannedCheck, zone: string) => {
    let e = encoders.get(plan);
    if (e === undefined) {
      e = {
        subject: jobSubject(zone, plan.key),
        encode: jobEncoder({ key: plan.key, zone, timeoutMs: plan.timeoutMs, target: plan.target }),
      };
      encoders.set(plan, e);
    }
    return e;
  };

  const noWorker = (plan: PlannedCheck, zone: string): void => {
    const now = clock.now();
    const base = {
      exitStatus: 3 as const,
      output: `no worker for zone ${zone}`,
      longOutput: "",
      perfdata: [],
      host: plan.host,
      checkedAt: now,
      durationMs: 0,
      source: "active" as const,
    };
    o.submit(plan.service === undefined ? base : { ...base, service: plan.service });
  };

  return {
    route(plan, due) {
      const zone = zoneOf(plan);
      if (o.localZones.has(zone)) return false;
      const now = clock.now();
      if (now - (lastSeen.get(zone) ?? startedAt) > graceMs) {
        metrics.dropped(zone, "no_worker");
        logger.debug("no worker for the zone", { zone, object: plan.key });
        noWorker(plan, zone);
        return true;
      }
      if (!connected || nc.isClosed()) {
        metrics.dropped(zone, "nats_unreachable");
        logger.debug("NATS unreachable: job dropped", { zone, object: plan.key });
        return true;
      }
      if (pending >= MAX_PENDING_PUBLISHES) {
        metrics.dropped(zone, "backlog");
        return true;
      }
      const { subject, encode } = encoderOf(plan, zone);
      // By then the next run's job has replaced it (one message per object's subject).
      const expiresAt = due + plan.checkIntervalMs;
      const data = encode({ due, expiresAt, leader: o.token() });
      pending++;
      publish(zone, plan.key, subject, data, jobMsgId(subject, due), expiresAt).finally(() => {
        pending--;
      });
      return true;
    },
    async applyConfig(config) {
      const longest = new Map<string, number>();
      for (const host of config.hosts.values()) {
        const see = (zone: string, timeoutMs: number, passive: boolean) => {
          if (passive || o.localZones.has(zone)) return;
          longest.set(zone, Math.max(longest.get(zone) ?? 0, timeoutMs));
        };
        see(host.zone, host.check.timeoutMs, host.check.type === "passive");
        for (const s of host.services.values()) see(s.zone, s.check.timeoutMs, s.check.type === "passive");
      }
      for (const [zone, timeoutMs] of longest) {
        remoteZones.add(zone);
        await ensureZoneConsumer(jsm, zone, timeoutMs + ACK_WAIT_MARGIN_MS);
      }
    },
    workers: () => live,
    async stop() {
      stopped = true;
      clearInterval(timer);
      await polling;
      publisher.close();
    },
  };
}
