import { hostname } from "node:os";
import { connect, type NatsConnection } from "@nats-io/transport-node";
import type { Registry } from "prom-client";
import type { AuditEntry } from "../audit/index.js";
import type { ConsumerHost } from "../consumers/index.js";
import type { Core } from "../core/core.js";
import type { PlannedCheck } from "../engine/scheduler/index.js";
import type { Clock } from "../model/clock.js";
import type { Config } from "../model/config.js";
import type { Logger } from "../model/logger.js";
import {
  createDispatcher,
  createZoneMetrics,
  type Dispatcher,
  type LeaderElection,
  type LiveWorker,
  loggedResultSeqs,
  type NatsAuth,
  natsConnectOptions,
  parseLoggedSeqs,
  type ResultsIngest,
  SeqSet,
  startLeaderElection,
  startResultsIngest,
  zoneOf,
  zoneToken,
} from "../zones/index.js";
import { type ActiveChecks, startActiveChecks } from "./active-checks.js";

/** Each config's zones by results subject token, made when a refusal first needs one. */
const tokensByConfig = new WeakMap<Config, ReadonlyMap<string, string>>();
function zoneTokens(config: Config): ReadonlyMap<string, string> {
  let tokens = tokensByConfig.get(config);
  if (tokens === undefined) {
    const m = new Map<string, string>();
    for (const h of config.hosts.values()) {
      m.set(zoneToken(h.zone), h.zone);
      for (const sv of h.services.values()) m.set(zoneToken(sv.zone), sv.zone);
    }
    tokens = m;
    tokensByConfig.set(config, tokens);
  }
  return tokens;
}

/** The consumers.db entry (consumer "zones") holding the results stream position. */
const POSITION_CONSUMER = "zones";
const POSITION_KEY = "results-position";

/** Remote runs held until NATS was first reached are published at this rate once it is. */
const HELD_PER_SECOND = 1_000;
export interface ServerZones extends ActiveChecks {
  /** The live workers as of the last poll (empty until connected). */
  workers(): readonly LiveWorker[];
  /** Whether this server schedules and ingests now (always, without leader election). */
  readonly leading: boolean;
}

/**
 * Runs the active checks with zones on NATS (docs/zones.md): the zones in `localZones` run here;
 * due checks of the others are published as jobs and their results ingested from the results
 * stream. With `leaderElection`, both happen only while this server holds the leader lease; a
 * standby serves reads and waits. Without it, a NATS outage leaves local zones running.
 */
export async function startServerZones(o: {
  readonly nats: string;
  /** How to authenticate to NATS (creds, user and password, TLS files). */
  readonly natsAuth?: NatsAuth;
  readonly localZones: readonly string[];
  readonly replicas: number;
  readonly leaderElection: boolean;
  /** The leader lease's TTL. */
  readonly leaseMs: number;
  /** How long a remote zone may have no live worker before its objects go UNKNOWN. */
  readonly graceMs: number;
  readonly core: Core;
  readonly consumers: ConsumerHost;
  readonly config: Config;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly metrics: Registry;
  readonly concurrency: number;
  readonly id?: string;
  /** Where refused results from workers are recorded. */
  readonly audit?: { record(entry: AuditEntry): void };
  /**
   * Replicated (docs/replication.md): called when this server starts leading (before it schedules)
   * and when it stops (after it stopped scheduling); awaited.
   */
  readonly onLeading?: (leading: boolean) => Promise<void>;
  /** Whether this server may take the lease now (a replica that caught up with the log). */
  readonly ready?: () => boolean;
  /** Called with the NATS connection once it is made (the consumers' replicated state uses it). */
  readonly onConnected?: (nc: NatsConnection) => void;
}): Promise<ServerZones> {
  const { core, clock, logger } = o;
  const local = new Set(o.localZones);
  const zoneMetrics = createZoneMetrics(o.metrics);
  const id = o.id ?? `${hostname()}-${process.pid}`;
  let config = o.config;
  let checks: ActiveChecks | undefined;
  let ingest: ResultsIngest | undefined;
  let dispatcher: Dispatcher | undefined;
  let election: LeaderElection | undefined;
  let nc: NatsConnection | undefined;
  let stopped = false;
  /** Whether a results consumer is being set up (startIngest runs one at a time). */
  let starting = false;
  const startedAt = clock.now();
  const renewMs = Math.max(200, Math.floor(o.leaseMs / 5));

  // The durable key/value store of the log's consumers: the results position lives there too.
  const state = o.consumers.state;
  /**
   * Remote runs due before NATS was first reached, the latest per object: handed to the dispatcher
   * once it is there (a new object's first run comes as scheduling starts, before the connection).
   */
  const held = new Map<string, { plan: PlannedCheck; due: number }>();
  /** Hands the held runs to the dispatcher, HELD_PER_SECOND a second (as first runs are spread). */
  const publishHeld = async (d: Dispatcher): Promise<void> => {
    const runs = [...held.values()];
    held.clear();
    for (let i = 0; i < runs.length && !stopped; i += HELD_PER_SECOND) {
      if (i > 0) await new Promise((r) => setTimeout(r, 1_000));
      for (const { plan, due } of runs.slice(i, i + HELD_PER_SECOND)) d.route(plan, due);
    }
  };
  /** Before NATS is reached: remote runs are held for it, and UNKNOWN once the grace is over. */
  const route = (plan: PlannedCheck, due: number): boolean => {
    if (dispatcher !== undefined) return dispatcher.route(plan, due);
    const zone = zoneOf(plan);
    if (local.has(zone)) return false;
    if (clock.now() - startedAt <= o.graceMs) {
      held.set(plan.key, { plan, due });
      return true;
    }
    held.delete(plan.key);
    zoneMetrics.dropped(zone, "nats_unreachable");
    const base = {
      exitStatus: 3 as const,
      output: `no worker for zone ${zone} (NATS unreachable)`,
      longOutput: "",
      perfdata: [],
      host: plan.host,
      checkedAt: clock.now(),
      durationMs: 0,
      source: "active" as const,
    };
    checks?.submit(plan.service === undefined ? base : { ...base, service: plan.service });
    return true;
  };

  const lead = async (token: number): Promise<void> => {
    if (stopped || checks !== undefined) return;
    await o.onLeading?.(true);
    if (stopped || checks !== undefined) return;
    checks = startActiveChecks({
      core,
      config,
      clock,
      logger: logger.child({ component: "scheduler" }),
      metrics: o.metrics,
      concurrency: o.concurrency,
      route,
      // A standby that takes over runs at once what the dead leader may have missed: its lease, and
      // as much again for a takeover slowed by load (runs it did publish are de-duplicated).
      ...(token > 0 ? { catchUpMs: 2 * o.leaseMs + renewMs } : {}),
    });
    leaderToken = token;
    logger.info("scheduling", { token, localZones: [...local] });
    void keepStartingIngest();
  };
  /**
   * Starts reading results, retrying every 2 s while it fails (NATS still electing leaders after a
   * node's death): a leader that schedules must ingest, so it never gives up while it leads.
   */
  const keepStartingIngest = async (): Promise<void> => {
    for (;;) {
      try {
        await startIngest();
        return;
      } catch (e) {
        if (stopped || checks === undefined) return;
        logger.warn("cannot start ingesting results; retrying", { error: String(e) });
        await new Promise((r) => setTimeout(r, 2_000));
      }
    }
  };
  /** Starts reading results once this server schedules and NATS is reached (either may come first). */
  const startIngest = async (): Promise<void> => {
    const leading = checks;
    if (leading === undefined || ingest !== undefined || nc === undefined || starting) return;
    // Both are records of what is in the log (the store's saved after the log's): their union.
    const logged = new SeqSet(loggedResultSeqs(core.dataDir));
    const stored = parseLoggedSeqs(state.get(POSITION_CONSUMER, POSITION_KEY));
    if (stored !== undefined) logged.union(stored);
    starting = true;
    let started: ResultsIngest;
    try {
      started = await startResultsIngest({
        nc,
        submit: (commands, onVisible) => core.submit(commands, { onVisible, source: "zones" }),
        placement: (host, service) => {
          const h = core.view.index.config.hosts.get(host);
          if (h === undefined) return undefined;
          if (service === undefined) return { zone: h.zone, active: h.check.type !== "passive" };
          const sv = h.services.get(service);
          return sv === undefined ? undefined : { zone: sv.zone, active: sv.check.type !== "passive" };
        },
        isLocal: (zone) => local.has(zone),
        zoneOfToken: (token) => zoneTokens(core.view.index.config).get(token),
        ...(o.audit === undefined ? {} : { audit: o.audit }),
        applied: (key) => checks?.resultApplied(key),
        logged: logged.toJSON(),
        store: {
          load: () => parseLoggedSeqs(state.get(POSITION_CONSUMER, POSITION_KEY)),
          save: (seqs) => state.put(POSITION_CONSUMER, [{ key: POSITION_KEY, value: JSON.stringify(seqs) }]),
        },
        logger: logger.child({ component: "zones" }),
        metrics: zoneMetrics,
        now: () => clock.now(),
      });
    } finally {
      starting = false;
    }
    if (stopped || checks !== leading) {
      // Leadership was lost (or the server stopped) while the consumer was being set up.
      await started.stop();
      return;
    }
    ingest = started;
    logger.info("ingesting results", { position: logged.floor, rangesAbove: logged.toJSON().above.length });
  };
  const follow = async (): Promise<void> => {
    const i = ingest;
    const c = checks;
    ingest = undefined;
    checks = undefined;
    await i?.stop();
    await c?.stop();
    await o.onLeading?.(false);
  };
  let leaderToken = 0;

  const connectNats = async (): Promise<NatsConnection> =>
    connect(natsConnectOptions(o.nats, `lookout-${id}`, o.natsAuth));

  const setUp = async (): Promise<void> => {
    nc = await connectNats();
    o.onConnected?.(nc);
    dispatcher = await createDispatcher({
      nc,
      localZones: local,
      clock,
      logger: logger.child({ component: "zones" }),
      metrics: zoneMetrics,
      submit: (r) => checks?.submit(r),
      replicas: o.replicas,
      token: () => leaderToken,
      graceMs: o.graceMs,
    });
    await dispatcher.applyConfig(config);
    void publishHeld(dispatcher);
    if (o.leaderElection) {
      election = await startLeaderElection({
        nc,
        id,
        replicas: o.replicas,
        logger: logger.child({ component: "leader" }),
        onElected: lead,
        onLost: follow,
        ttlMs: o.leaseMs,
        renewMs,
        ...(o.ready === undefined ? {} : { ready: o.ready }),
      });
    } else {
      // Leading since start: ingestion joins now that NATS answers.
      void keepStartingIngest();
    }
  };

  if (o.leaderElection) {
    await setUp();
  } else {
    // Local zones run at once, whatever NATS does; remote ones join once it answers.
    await lead(0);
    setUp().catch((e: unknown) => logger.error("cannot set up zones on NATS", { error: String(e) }));
  }

  return {
    get leading() {
      return checks !== undefined;
    },
    workers: () => dispatcher?.workers() ?? [],
    submit: (r) => checks?.submit(r),
    resultApplied: (key) => checks?.resultApplied(key),
    async applyConfig(c) {
      config = c;
      await checks?.applyConfig(c);
      await dispatcher
        ?.applyConfig(c)
        .catch((e: unknown) => logger.warn("cannot update zone consumers", { error: String(e) }));
    },
    async stop() {
      stopped = true;
      await election?.stop();
      await follow();
      await dispatcher?.stop();
      await nc?.close();
    },
  };
}
