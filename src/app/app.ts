import { access, constants, readFile } from "node:fs/promises";
import type { AddressInfo } from "node:net";
import { hostname } from "node:os";
import type { NatsConnection } from "@nats-io/transport-node";
import type { Registry } from "prom-client";
import {
  createAdminService,
  createCommandService,
  createHttpHandler,
  createQueryService,
  DualProtocolServer,
} from "../api/index.js";
import { planConfigInSteps, planSummary } from "../config/index.js";
import { ConsumerHost, openConsumerState } from "../consumers/index.js";
import { Core } from "../core/core.js";
import { type CommandFile, CommandFileError, startCommandFile } from "../extcmd/index.js";
import { systemClock } from "../model/clock.js";
import type { Config } from "../model/config.js";
import type { Logger } from "../model/logger.js";
import type { Notifier } from "../notify/index.js";
import { SinkSet } from "../sinks/index.js";
import { type ConfigHistory, documentSha256, openConfigHistory } from "../store/index.js";
import { createStaticSite, placeholderPage } from "../web/index.js";
import { createReplicatedConsumerState, type ReplicatedConsumerState } from "../zones/index.js";
import { type ActiveChecks, startActiveChecks } from "./active-checks.js";
import { adminDeps } from "./admin.js";
import { AuthSetupError, type AuthWiring, wireAuth } from "./auth-wiring.js";
import { loadConfigFile } from "./config-file.js";
import { registerConsumerMetrics } from "./consumer-metrics.js";
import { registerHeapMetrics } from "./heap-metrics.js";
import { memorySettings } from "./memory-settings.js";
import { createMetricsRegistry } from "./metrics.js";
import { DEFAULT_NOTIFY_OPTIONS, startNotifier, TimeZoneError } from "./notifier-wiring.js";
import { hostCheckOf, isLoopbackAddress, writesOpen } from "./open-writes.js";
import { registerCommandFileMetrics, registerPipelineMetrics } from "./pipeline-metrics.js";
import { Reloader, type ReloadInfo, type ReloadResult } from "./reload.js";
import {
  caughtUp,
  configSource,
  coreReplication,
  followConfigSources,
  isReplicated,
  registerReplicaMetrics,
} from "./replication.js";
import { parseListen, type ServerOptions } from "./server-flags.js";
import { registerSinkMetrics, sinkStatusOf } from "./sink-metrics.js";
import { startServerZones } from "./zones.js";

export interface AppDeps {
  readonly logger: Logger;
  readonly version: string;
}

/** The most active checks in flight at once; due checks beyond it wait, earliest first. */
const CHECK_CONCURRENCY = 1000;

/** A failure to start that the operator must fix (bad flag value, unreadable file, busy port). */
export class StartupError extends Error {
  override readonly name = "StartupError";
}

/**
 * The running Lookout: it wires the components together from the server options, owns their
 * lifecycle (start, stop) and is what tests run in-process. Only app/ knows the concrete
 * implementations of the seams.
 */
export class App {
  readonly address: AddressInfo;
  readonly metrics: Registry;
  readonly #server: DualProtocolServer;
  readonly #logger: Logger;
  readonly #core: Core;
  readonly #checks: ActiveChecks;
  readonly #reloader: Reloader;
  readonly #loads: AbortController;
  /** The log's consumers (the notifier, the sinks) and the log's retention. */
  readonly consumers: ConsumerHost;
  /** The notifier (a consumer of the log). */
  readonly notifier: Notifier;
  /** The configured sinks, each a consumer of the log. */
  readonly sinks: SinkSet;
  readonly #auth: AuthWiring;
  readonly #commandFile: CommandFile | undefined;
  readonly #history: ConfigHistory;

  private constructor(
    address: AddressInfo,
    metrics: Registry,
    parts: {
      server: DualProtocolServer;
      logger: Logger;
      core: Core;
      checks: ActiveChecks;
      reloader: Reloader;
      loads: AbortController;
      consumers: ConsumerHost;
      notifier: Notifier;
      sinks: SinkSet;
      auth: AuthWiring;
      commandFile: CommandFile | undefined;
      history: ConfigHistory;
    },
  ) {
    this.address = address;
    this.metrics = metrics;
    this.#server = parts.server;
    this.#logger = parts.logger;
    this.#core = parts.core;
    this.#checks = parts.checks;
    this.#reloader = parts.reloader;
    this.#loads = parts.loads;
    this.consumers = parts.consumers;
    this.notifier = parts.notifier;
    this.sinks = parts.sinks;
    this.#auth = parts.auth;
    this.#commandFile = parts.commandFile;
    this.#history = parts.history;
  }

  /** Starts serving; rejects with a StartupError the operator can act on. */
  static async start(o: ServerOptions, deps: AppDeps): Promise<App> {
    const { logger, version } = deps;
    for (const [flag, path] of [
      ["-config", o.config],
      ["-auth-config", o.authConfig],
    ] as const) {
      if (path === "") continue;
      try {
        await access(path, constants.R_OK);
      } catch {
        throw new StartupError(`${flag} ${path}: file not readable`);
      }
    }
    // On a worker thread like a reload: the main thread never holds the evaluation, which the CUE
    // engine keeps alive after a load (its shared-leaf cache holds on to the last document).
    const loaded = await loadConfigFile(o.config, o.configProfile, undefined, o.listen);
    if (!loaded.ok) {
      const lines = loaded.diagnostics.map((d) => `${d.file}:${d.line}:${d.column}: ${d.message}`);
      throw new StartupError(`-config ${o.config} is rejected:\n${lines.join("\n")}`);
    }
    const metrics = createMetricsRegistry(version);
    const clock = systemClock;
    let auth: AuthWiring;
    try {
      auth = await wireAuth(o, clock, logger);
    } catch (e) {
      if (e instanceof AuthSetupError) throw new StartupError(e.message);
      throw new StartupError(`-data-dir ${o.dataDir}: ${(e as Error).message}`);
    }
    let core: Core;
    const replicated = isReplicated(o);
    // The config history's first entry, when this config is new to the log (docs/config-history.md).
    const startupText = o.config === "" ? undefined : await readFile(o.config, "utf8").catch(() => undefined);
    const serverId = `${hostname()}-${process.pid}`;
    try {
      core = await Core.open({
        ...(replicated ? { replication: coreReplication(o, serverId) } : {}),
        dataDir: o.dataDir,
        config: loaded.config,
        ...(loaded.digest === undefined ? {} : { configDigest: loaded.digest }),
        ...(startupText === undefined
          ? {}
          : { configVersion: { by: "startup", summary: startupSummary(loaded.config), text: startupText } }),
        clock,
        logger: logger.child({ component: "core" }),
        writer: {
          ...(o.writerPriority === undefined ? {} : { priority: o.writerPriority }),
          ...(o.snapshotAfterReplayEvents === undefined
            ? {}
            : { snapshotAfterReplayEvents: o.snapshotAfterReplayEvents }),
          ...(o.snapshotEveryMs === undefined ? {} : { snapshotEveryMs: o.snapshotEveryMs }),
          ...(o.snapshotKeepEveryMs === undefined ? {} : { snapshotKeepEveryMs: o.snapshotKeepEveryMs }),
        },
      });
    } catch (e) {
      auth.auditLog.close();
      throw new StartupError(`-data-dir ${o.dataDir}: ${(e as Error).message}`);
    }
    registerHeapMetrics(metrics, () => core.writerStats());
    registerPipelineMetrics(metrics, core);
    if (replicated) registerReplicaMetrics(metrics, core);
    /** The config this server runs (its -config file's, or the one the log applied). */
    let running = loaded.config;
    const countLine = registerCommandFileMetrics(metrics);
    // Replicated, the notifier and the sinks run on the leader only, from positions the leader
    // mirrors to NATS (docs/replication.md): the host starts paused, and runs while this server leads.
    let consumerState: ReplicatedConsumerState | undefined;
    let consumers: ConsumerHost;
    if (replicated) {
      consumerState = createReplicatedConsumerState({
        local: openConsumerState(o.dataDir),
        logger: logger.child({ component: "consumers" }),
        replicas: o.natsReplicas ?? 1,
        mirroring: () => consumers.active,
      });
    }
    /**
     * Replicated: the consumers run while this server leads, once it has the last leader's record
     * of them (pulled from NATS, retried every second while NATS elects its leaders): the checks and
     * the ticks do not wait for it. One change at a time.
     */
    let consumersTerm = 0;
    let consumersTurn: Promise<void> = Promise.resolve();
    const leadConsumers = (leading: boolean): Promise<void> => {
      const term = ++consumersTerm;
      const run = async (): Promise<void> => {
        if (!leading) {
          await consumers.setActive(false);
          return;
        }
        for (;;) {
          try {
            await consumerState?.pull();
            break;
          } catch (e) {
            logger.warn("cannot read the last leader's record of the notifier and the sinks; retrying", {
              error: String(e),
            });
            await new Promise((resolve) => setTimeout(resolve, 1_000));
            if (term !== consumersTerm) return;
          }
        }
        if (term === consumersTerm) await consumers.setActive(true);
      };
      consumersTurn = consumersTurn.then(run, run);
      // Stepping down waits for the consumers to stop; taking the lead does not wait for them.
      return leading ? Promise.resolve() : consumersTurn;
    };
    consumers = ConsumerHost.open({
      dataDir: o.dataDir,
      clock,
      logger: logger.child({ component: "consumers" }),
      retention: {
        retentionMs: o.eventRetentionMs,
        trim: (floor, before) => core.trimEvents(floor, before),
      },
      ...(consumerState === undefined ? {} : { state: consumerState, active: false }),
    });
    core.onCommitted(() => consumers.notify());
    registerConsumerMetrics(metrics, consumers);
    const sinksLogger = logger.child({ component: "sinks" });
    const sinks = new SinkSet(
      {
        host: consumers,
        clock,
        dataDir: o.dataDir,
        logger: sinksLogger,
        // Off the main thread, at the process's priority (docs/sinks.md, "The sink thread").
        thread: { priority: "normal", nice: 0 },
        // A sink's drops and outages go to the log like the engine's events (never one per delivery).
        record: (events) => {
          core.submit([{ type: "RecordEvents", events }], { source: "sinks" }).catch((e: unknown) => {
            sinksLogger.warn("cannot record a sink event", { error: String(e) });
          });
        },
      },
      loaded.config,
    );
    await sinks.start(loaded.config);
    registerSinkMetrics(metrics, sinks, consumers);
    const zones =
      o.nats !== undefined && o.nats !== ""
        ? await startServerZones({
            nats: o.nats,
            ...(o.natsAuth === undefined ? {} : { natsAuth: o.natsAuth }),
            localZones: o.localZones ?? ["default"],
            replicas: o.natsReplicas ?? 1,
            leaderElection: o.leaderElection === true,
            leaseMs: o.leaderLeaseMs ?? 10_000,
            graceMs: o.noWorkerGraceMs ?? 30_000,
            core,
            consumers,
            config: loaded.config,
            clock,
            logger,
            metrics,
            concurrency: CHECK_CONCURRENCY,
            audit: auth.auditLog,
            id: serverId,
            ...(replicated
              ? {
                  ready: () => caughtUp(core.replica),
                  onConnected: (nc: NatsConnection) => consumerState?.attach(nc),
                  onLeading: async (leading: boolean) => {
                    core.setTicking(leading);
                    await leadConsumers(leading);
                    if (!leading) return;
                    // The config of this server's file, if the log does not run it yet (a first start).
                    const published = await configSource(o.config);
                    await core
                      .applyConfig(
                        running,
                        published?.digest ?? "empty",
                        published?.source,
                        published === undefined
                          ? undefined
                          : { by: "startup", summary: startupSummary(running), text: published.source },
                      )
                      .catch((e: unknown) =>
                        logger.warn("cannot publish this server's config; it leads with the log's", {
                          error: String(e),
                        }),
                      );
                  },
                }
              : {}),
          })
        : undefined;
    const checks =
      zones ??
      startActiveChecks({
        core,
        config: loaded.config,
        clock,
        logger: logger.child({ component: "scheduler" }),
        metrics,
        concurrency: CHECK_CONCURRENCY,
      });
    // Stopping ends a reload's worker rather than waiting for its evaluation.
    const loads = new AbortController();
    const reloader = new Reloader(loaded.config, {
      // A reload evaluates on a worker thread: the API and the scheduler keep running meanwhile.
      load: () => loadConfigFile(o.config, o.configProfile, loads.signal, o.listen),
      logger: logger.child({ component: "reload" }),
      metrics,
    });
    /** The digest of the config last handed to the core: an unchanged one records no version. */
    let coreDigest = loaded.digest;
    // Prepared first, in turns of their own: the switch itself then holds the event loop briefly.
    reloader.register({
      name: "core",
      applyConfig: async (c, digest, info) => {
        running = c;
        // The document's text: the caller's (ApplyConfig, RollbackConfig), else the file's. Read after
        // the reload loaded it: a file changed in between is what the next reload takes.
        const text =
          o.config === "" || info?.source === "replication"
            ? undefined
            : (info?.text ?? (await readFile(o.config, "utf8").catch(() => undefined)));
        // Replicated, the config goes into the log with its source, by the digest of its text.
        const published = replicated
          ? text === undefined
            ? await configSource(o.config)
            : { digest: documentSha256(text), source: text }
          : undefined;
        const changed = digest === undefined || digest !== coreDigest;
        coreDigest = digest;
        const version =
          text === undefined || info === undefined || !changed ? undefined : await versionNote(info, c, text);
        return core.applyConfig(
          await core.prepareConfig(c, published?.digest ?? digest),
          undefined,
          published?.source,
          version,
        );
      },
    });
    if (replicated) {
      followConfigSources({
        core,
        configPath: o.config,
        reloader,
        logger: logger.child({ component: "replication" }),
      });
    }
    reloader.register({ name: "scheduler", applyConfig: (c) => checks.applyConfig(c) });
    let notifier: Notifier;
    try {
      notifier = startNotifier({
        options: o.notify ?? DEFAULT_NOTIFY_OPTIONS,
        config: loaded.config,
        core,
        consumers,
        reloader,
        metrics,
        clock,
        logger: logger.child({ component: "notifier" }),
      });
    } catch (e) {
      await checks.stop();
      await sinks.stop();
      await consumers.stop();
      await core.close();
      if (e instanceof TimeZoneError) throw new StartupError(`-notify-timezone: ${e.message}`);
      throw e;
    }
    const site = createStaticSite();
    const history = openConfigHistory(o.dataDir);
    reloader.register({ name: "sinks", applyConfig: (c) => sinks.applyConfig(c) });
    const allowHost = hostCheckOf(o);
    const handler = createHttpHandler({
      ...(allowHost === undefined ? {} : { allowHost }),
      readOnly: o.readOnly,
      authConfigured: o.authConfig !== "",
      gate: auth.gate,
      audit: auth.audit,
      extraRoutes: auth.routes,
      query: createQueryService({
        version,
        core,
        notifications: notifier,
        sinkStatus: sinkStatusOf(sinks, consumers),
        ...(zones === undefined
          ? {}
          : { zoneWorkers: () => ({ leading: zones.leading, workers: zones.workers() }) }),
      }),
      command: createCommandService({ core, logger: logger.child({ component: "api" }), audit: auth.audit }),
      admin: createAdminService(
        adminDeps({
          configPath: o.config,
          profile: o.configProfile,
          reloader,
          auditLog: auth.auditLog,
          record: auth.audit,
          logger: logger.child({ component: "admin" }),
          signal: loads.signal,
          history,
        }),
      ),
      metrics,
      page: () => placeholderPage(version),
      site: (path, acceptEncoding) => site.serve(path, acceptEncoding),
      logger,
      ...(zones === undefined
        ? {}
        : {
            documents: new Map([
              ["/zones/workers", () => ({ leading: zones.leading, workers: zones.workers() })],
            ]),
          }),
    });
    let commandFile: CommandFile | undefined;
    if (o.commandFile !== "") {
      try {
        commandFile = await startCommandFile({
          path: o.commandFile,
          core,
          audit: auth.auditLog,
          clock,
          logger: logger.child({ component: "extcmd" }),
          count: countLine,
        });
      } catch (e) {
        await checks.stop();
        await notifier.stop();
        await sinks.stop();
        await consumers.stop();
        await core.close();
        auth.auditLog.close();
        history.close();
        throw e instanceof CommandFileError ? new StartupError(e.message) : e;
      }
    }
    const server = new DualProtocolServer(handler);
    const listen = parseListen(o.listen);
    if (listen === undefined) throw new StartupError(`-listen ${o.listen}: want host:port`);
    let address: AddressInfo;
    try {
      address = await server.listen(listen.port, listen.host);
    } catch (e) {
      commandFile?.stop();
      await checks.stop();
      await notifier.stop();
      await sinks.stop();
      await consumers.stop();
      await core.close();
      auth.auditLog.close();
      history.close();
      throw new StartupError(`-listen ${o.listen}: ${(e as Error).message}`);
    }
    const shown = `${address.family === "IPv6" ? `[${address.address}]` : address.address}:${address.port}`;
    if (writesOpen(o) && !isLoopbackAddress(address.address)) {
      logger.warn(
        "writes are open: anyone who can reach this address may submit results, acknowledge and schedule downtimes without credentials; set -api-token or -auth-config, or -read-only (only loopback names, IP addresses and -allowed-hosts are served as Host)",
        { address: shown },
      );
    }
    logger.info("listening", {
      address: shown,
      readOnly: o.readOnly,
      commandAuth: o.apiToken !== "",
      admin: o.authConfig !== "" && !o.readOnly,
      identities: auth.identities?.current.byName.size ?? 0,
      version,
      hosts: loaded.config.hosts.size,
      memory: memorySettings(),
    });
    return new App(address, metrics, {
      server,
      logger,
      core,
      checks,
      reloader,
      loads,
      consumers,
      notifier,
      sinks,
      auth,
      commandFile,
      history,
    });
  }

  /**
   * Reloads the identities (-auth-config) and -config through the one fan-out (SIGHUP); a rejected
   * document changes nothing.
   */
  async reload(): Promise<ReloadResult> {
    await this.#auth.identities?.reload();
    return this.#reloader.reload("sighup");
  }

  /**
   * Stops accepting, lets in-flight calls finish (bounded), stops the checks, then closes the core
   * (which applies what is queued and snapshots).
   */
  async stop(): Promise<void> {
    this.#logger.info("shutting down");
    this.#loads.abort(new Error("lookout is stopping"));
    await this.#server.close();
    this.#commandFile?.stop();
    await this.#commandFile?.idle();
    await this.#checks.stop();
    // The notifier first: its last records and state go to consumers.db, which the host closes.
    await this.notifier.stop();
    await this.sinks.stop();
    await this.consumers.stop();
    this.#history.close();
    await this.#core.close();
    this.#auth.auditLog.close();
    this.#logger.info("stopped");
  }
}

/** The config history's line for a config loaded at start: what it holds (the log's last config is not at hand). */
function startupSummary(c: Config): string {
  let objects = 0;
  for (const h of c.hosts.values()) objects += 1 + h.services.size;
  return `startup: ${objects} objects`;
}

/**
 * The config history's entry of a reload: who (the API's caller, SIGHUP, startup) and what it
 * changed from the config it replaces (compared in steps: the API keeps its turns meanwhile).
 */
async function versionNote(
  info: ReloadInfo,
  config: Config,
  text: string,
): Promise<{ by: string; summary: string; rollbackOf?: number; text: string }> {
  const summary = planSummary(await planConfigInSteps(info.previous, config));
  const by = info.source === "sighup" ? "SIGHUP" : info.source === "api" ? (info.by ?? "api") : info.source;
  return info.rollbackOf === undefined
    ? { by, summary, text }
    : { by, summary, rollbackOf: info.rollbackOf, text };
}
