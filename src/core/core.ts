import { randomUUID } from "node:crypto";
import { compileConfig, configDigest } from "../engine/index.js";
import { type Clock, systemClock, type TimerHandle } from "../model/clock.js";
import type { Config } from "../model/config.js";
import type { Logger } from "../model/logger.js";
import { type AsOf, createAsOf } from "../store/as-of.js";
import type { ConfigVersionNote } from "../store/config-versions.js";
import type { LogHistoryPage, LogHistoryQuery, LogPerfdataQuery } from "../store/log-history.js";
import { createLogReads, type LogReads } from "../store/log-reads.js";
import type { ObjectIndex } from "../store/object-index.js";
import type { PerfdataSeriesSet } from "../store/perfdata-buckets.js";
import type { Projection } from "../store/projection.js";
import type { ReplicaStatus, WriterOptions, WriterStats } from "../store/protocol.js";
import { type IngestOutcome, type PreparedStoreConfig, Store } from "../store/store.js";
import type { ResultsForm } from "./encoded-results.js";
import { loggedForm } from "./plugin-result.js";
import { batchTouches, precheckCommands } from "./precheck.js";
import { type SubmittedCommand, validateCommands } from "./validate.js";

const encoder = new TextEncoder();

export interface CoreOptions {
  /** Directory of the event log (created if missing). One Core per directory at a time. */
  readonly dataDir: string;
  /** The configuration to run; if it differs from the one in the log, it is applied on open. */
  readonly config: Config;
  /**
   * What identifies the config, e.g. sha256 of its CUE source. Optional: without it Core hashes the
   * typed config, which costs about a second per 100,000 objects at open and on every reload.
   */
  readonly configDigest?: string;
  /** The config history's entry for `config` (docs/config-history.md): see StoreOptions.configVersion. */
  readonly configVersion?: ConfigVersionNote & { readonly text: string };
  /** Stamps commands and drives engine timers (downtime start/end, freshness). Default: wall clock. */
  readonly clock?: Clock;
  readonly logger?: Logger;
  /** Writer tuning (snapshot cadence, history size); defaults suit production. */
  readonly writer?: Partial<WriterOptions>;
  /**
   * Every server a replica (docs/replication.md): commands go through a replicated command log,
   * which the writer's thread opens from `workerUrl` (an entry module that calls runWriterThread
   * with a ReplicatedLogFactory) with `options`; `origin` names this server's groups in it. Timer
   * ticks are then issued only while `setTicking(true)` (the leader).
   */
  readonly replication?: { readonly workerUrl: URL; readonly origin: string; readonly options: unknown };
}

/** A config made ready for Core.applyConfig by Core.prepareConfig. */
export interface PreparedConfig {
  readonly store: PreparedStoreConfig;
  readonly digest: string | undefined;
}

/** Options of Core.submit. */
export interface SubmitOptions {
  /** Called on the caller's thread once the batch is applied and visible through `view`. */
  readonly onVisible?: () => void;
  /** Who submits, for the command counters (CoreObserver); "internal" when absent. */
  readonly source?: CommandSource;
}

/** Who submitted a command: the label of `lookout_commands_total` (docs/metrics.md). */
export type CommandSource =
  | "api"
  | "command_file"
  | "scheduler"
  | "zones"
  | "notifier"
  | "sinks"
  | "internal";

/** What became of submitted commands: enqueued, refused at once (RejectedError), or not stored. */
export type CommandResult = "accepted" | "refused" | "failed";

/**
 * What Core tells whoever watches its pipeline (the app's metrics). Called synchronously on the
 * submitting thread: must be cheap and must not throw.
 */
export interface CoreObserver {
  /** `n` commands of `type` from `source` had `result`. */
  commands(source: CommandSource, type: string, result: CommandResult, n: number): void;
  /** A submission was durably enqueued `seconds` after it was handed over (group commit, fsync). */
  committed(seconds: number): void;
}

/** What a reader sees: the config in force, its object index, and the projection. */
export interface CoreView {
  readonly index: ObjectIndex;
  readonly projection: Projection;
}

/**
 * The heart of Lookout: commands in, durably enqueued, applied in order by the state engine in a
 * writer thread, recorded as events, and visible through the projection that serves every read.
 *
 * Contract:
 * - `submit` validates the whole batch synchronously against the config in force (a RejectedError
 *   rejects the promise and nothing is enqueued), stamps every command with the clock, and resolves
 *   once the batch is fsync'd — enqueued, not yet applied. Concurrent submits share one fsync.
 * - Ordering: batches are enqueued, and so applied, in the order submit/applyConfig were called.
 * - Reads (`view`) are in-memory structures on the caller's thread; they never wait on writes. They
 *   lag the writer by the time a delta takes to arrive: milliseconds when quiet, a few hundred under
 *   full-speed ingestion (changes then coalesce). `flush` waits until everything is visible.
 * - `applyConfig` switches reads to the new objects at once and enqueues the reload behind every
 *   earlier batch; unchanged objects keep their state, removed ones go, new ones are PENDING.
 * - Core owns the writer thread and the event log. The app calls `close` once, after it has stopped
 *   submitting; close applies what is queued, takes a snapshot and stops the writer.
 */
export class Core {
  readonly #store: Store;
  readonly #clock: Clock;
  readonly #logger: Logger | undefined;
  readonly #dataDir: string;
  readonly #committed = new Set<() => void>();
  readonly #issuedDowntimes = new Set<string>();
  readonly #issuedComments = new Set<string>();
  #observer: CoreObserver | undefined;
  #wakeup: { at: number; timer: TimerHandle } | undefined;
  #closed = false;
  /** Whether this server issues timer ticks: always, but replicated only while it leads. */
  #ticking = true;
  /** The engine's next timer as last told (what setTicking(true) schedules). */
  #nextWakeup: number | undefined;
  #replica: ReplicaStatus | undefined;
  #lostWrites = 0;
  /** Projections of the past (projectionAt), made when first asked for. */
  #asOf: AsOf | undefined;
  /** History and perfdata read from the log (historyFromLog, perfdataFromLog), made when first asked for. */
  #logReads: LogReads | undefined;
  readonly #configSources = new Set<(digest: string, source: string | undefined) => void>();

  private constructor(store: Store, clock: Clock, logger: Logger | undefined, dataDir: string) {
    this.#store = store;
    this.#dataDir = dataDir;
    this.#clock = clock;
    this.#logger = logger;
  }

  /** Opens the data directory, recovers (snapshot + log), applies `config`, and starts serving. */
  static async open(options: CoreOptions): Promise<Core> {
    const clock = options.clock ?? systemClock;
    let core: Core | undefined;
    let firstWakeup: number | undefined;
    let firstReplica: ReplicaStatus | undefined;
    const replication = options.replication;
    const store = await Store.open({
      dataDir: options.dataDir,
      config: options.config,
      configDigest: options.configDigest ?? configDigest(options.config),
      ...(options.configVersion === undefined ? {} : { configVersion: options.configVersion }),
      at: clock.now(),
      workerUrl: replication?.workerUrl ?? new URL("./writer-worker.js", import.meta.url),
      ...(replication === undefined
        ? {}
        : {
            replication: { origin: replication.origin, options: replication.options },
            onReplica: (status: ReplicaStatus) => {
              if (core === undefined) firstReplica = status;
              else core.#onReplica(status);
            },
            onConfigSource: (digest: string, source: string | undefined) => {
              if (core !== undefined) for (const f of core.#configSources) f(digest, source);
            },
          }),
      // The writer's engine gets the part of the config it reads, compiled into tables (typed arrays
      // are cloned as bytes), not a copy of the whole document.
      writerConfig: compileConfig,
      ...(options.writer === undefined ? {} : { writer: options.writer }),
      onWakeup: (at) => {
        if (core === undefined) firstWakeup = at;
        else {
          core.#schedule(at);
          for (const f of core.#committed) f();
        }
      },
      onFatal: (message) => options.logger?.error("store writer failed", { error: message }),
    });
    core = new Core(store, clock, options.logger, options.dataDir);
    options.logger?.info("store opened", { dataDir: options.dataDir, ...store.recovered });
    if (replication !== undefined) core.#ticking = false;
    if (firstReplica !== undefined) core.#onReplica(firstReplica);
    core.#schedule(firstWakeup);
    return core;
  }

  /**
   * Replicated: whether this server issues the engine's timer ticks (the leader does; replicas
   * apply the leader's). Turning it on schedules the next one at once.
   */
  setTicking(on: boolean): void {
    if (this.#ticking === on) return;
    this.#ticking = on;
    this.#store.setLeading(on);
    if (!on) {
      this.#wakeup?.timer.cancel();
      this.#wakeup = undefined;
      return;
    }
    this.#schedule(this.#nextWakeup);
  }

  /** Replicated: how this server's copy stands against the command log (undefined: not replicated). */
  get replica(): ReplicaStatus | undefined {
    return this.#replica;
  }

  /** Replicated: writes of this server's the log acknowledged and then lost (each published again). */
  get lostWrites(): number {
    return this.#lostWrites;
  }

  /**
   * Replicated: calls `listener` when a group of another server names a config (it applies in the
   * log's order), with its CUE source when that server sent it. Returns the unsubscribe function.
   */
  onConfigSource(listener: (digest: string, source: string | undefined) => void): () => void {
    this.#configSources.add(listener);
    return () => this.#configSources.delete(listener);
  }

  #onReplica(status: ReplicaStatus): void {
    const before = this.#replica;
    this.#replica = status;
    if (status.lost !== undefined) {
      const { lost } = status;
      this.#lostWrites++;
      if (lost.error === undefined)
        this.#logger?.error("the command log lost a write it had acknowledged; published it again", {
          ...lost,
        });
      else
        this.#logger?.error(
          "the command log lost a write it had acknowledged, and publishing it again failed",
          {
            ...lost,
          },
        );
      this.#replica = { ...status, lost: undefined } as ReplicaStatus;
      return;
    }
    if (status.notice !== undefined) {
      this.#logger?.warn(status.notice, {});
      this.#replica = { ...status, notice: undefined } as ReplicaStatus;
      return;
    }
    if (status.snapshotError !== undefined) {
      this.#logger?.warn("cannot publish a snapshot for servers that join", { error: status.snapshotError });
      this.#replica = { ...status, snapshotError: undefined } as ReplicaStatus;
      return;
    }
    if (status.error !== undefined && status.error !== before?.error) {
      this.#logger?.error("this server stopped applying the command log", { error: status.error });
    } else if (before !== undefined && before.connected !== status.connected) {
      if (status.connected) this.#logger?.info("the command log answers again", { applied: status.applied });
      else
        this.#logger?.warn(
          "the command log does not answer: writes fail as unavailable, reads serve what is applied",
          {},
        );
    }
  }

  /** The read side. Take it once per request: index and projection belong together. */
  get view(): CoreView {
    return { index: this.#store.index, projection: this.#store.projection };
  }

  /** The clock Core stamps commands with (the API uses it for "received now"). */
  get clock(): Clock {
    return this.#clock;
  }

  /** Sets who is told about submitted commands and commit latencies (one at a time). */
  observe(observer: CoreObserver | undefined): void {
    this.#observer = observer;
  }

  /**
   * Commands the engine refused when it applied them since open (accepted by submit, then a
   * CommandRejected event), by command type.
   */
  get rejectedCommands(): ReadonlyMap<string, number> {
    return this.#store.rejectedCommands;
  }

  /** Submissions (batches, reloads, ticks) enqueued or being enqueued and not yet visible in `view`. */
  get queueDepth(): number {
    return this.#store.queueDepth;
  }

  /** A fresh downtime id for a ScheduleDowntime command (ids are returned before the command applies). */
  newDowntimeId(): string {
    return `dt-${randomUUID()}`;
  }

  /** A fresh comment id for an AddComment command (returned before the command applies). */
  newCommentId(): string {
    return `c-${randomUUID()}`;
  }

  /**
   * Validates and durably enqueues a batch; see the class comment. `onVisible`, if given, is called
   * once the batch is applied and `view` shows it (a subscription to applied results: what the
   * scheduler needs to pick a retry interval, without polling).
   */
  submit(commands: readonly SubmittedCommand[], options?: SubmitOptions): Promise<void> {
    if (this.#closed) return Promise.reject(new Error("core is closed"));
    const now = this.#clock.now();
    const projection = this.#store.projection;
    const observer = this.#observer;
    const source = options?.source ?? "internal";
    try {
      validateCommands(commands, {
        index: this.#store.index,
        now,
        hasDowntime: (id) => projection.downtime(id) !== undefined || this.#issuedDowntimes.has(id),
        hasComment: (id) => projection.comment(id)?.kind === "user" || this.#issuedComments.has(id),
        passiveChecksOff: (host, service) =>
          projection.switchedOff(service === undefined ? host : `${host}!${service}`, "passiveChecks"),
      });
      // What the state refuses, where no earlier submission may still change it.
      precheckCommands(commands, {
        index: this.#store.index,
        projection,
        settledFor: (keys) => this.#store.settledFor(keys),
      });
    } catch (e) {
      if (observer !== undefined) countCommands(observer, source, commands, "refused");
      return Promise.reject(e);
    }
    const issued: string[] = [];
    const comments: string[] = [];
    for (const c of commands) {
      if (c.type === "ScheduleDowntime" && c.id !== undefined) issued.push(c.id);
      if (c.type === "AddComment" && c.id !== undefined) comments.push(c.id);
    }
    for (const id of issued) this.#issuedDowntimes.add(id);
    for (const id of comments) this.#issuedComments.add(id);
    // An issued id is remembered until the projection shows the batch (and so the downtime).
    const caller = options?.onVisible;
    const onVisible =
      issued.length === 0 && comments.length === 0
        ? caller
        : () => {
            for (const id of issued) this.#issuedDowntimes.delete(id);
            for (const id of comments) this.#issuedComments.delete(id);
            caller?.();
          };
    // The batch row carries `at`; the writer stamps it on every command of the batch as it decodes.
    const body = encoder.encode(JSON.stringify(commands.map(loggedForm)));
    const stored = this.#store.submit(now, body, onVisible, batchTouches(commands));
    if (observer === undefined) return stored;
    // Counted by type now: the commands are let go of while the batch waits for the disk.
    const counted = countsByType(commands);
    const started = performance.now();
    return stored.then(
      () => {
        observer.committed((performance.now() - started) / 1000);
        for (const [type, n] of counted) observer.commands(source, type, "accepted", n);
      },
      (e: unknown) => {
        for (const [type, n] of counted) observer.commands(source, type, "failed", n);
        throw e;
      },
    );
  }

  /**
   * Validates and durably enqueues passive check results still in their API wire form (`body`, a
   * request body in `form`), with the contract of `submit` — all-or-nothing against the config in
   * force, RejectedError naming the refused result's position, stamped with the clock now (also the
   * `checked_at` of results without one) — except that decoding and validation run on the writer's
   * thread, never on this one. `body` must own its whole ArrayBuffer, which is transferred.
   * Resolves with how many results were enqueued, or with the body when it is in a form the writer
   * does not decode exactly as protobuf-es would (malformed, or an unusual corner): the caller then
   * decodes it and uses `submit`.
   */
  submitEncoded(
    form: ResultsForm,
    body: Uint8Array,
    source: CommandSource = "internal",
  ): Promise<IngestOutcome> {
    if (this.#closed) return Promise.reject(new Error("core is closed"));
    const ingested = this.#store.ingest(this.#clock.now(), form, body);
    const observer = this.#observer;
    if (observer === undefined) return ingested;
    const started = performance.now();
    return ingested.then(
      (outcome) => {
        // An undecoded body comes back to be submitted (and counted) by `submit`.
        if (outcome.kind === "enqueued") {
          observer.committed((performance.now() - started) / 1000);
          observer.commands(source, "ProcessCheckResult", "accepted", outcome.accepted);
        }
        return outcome;
      },
      (e: unknown) => {
        // A refused batch counts once: how many results it held is the writer's to know.
        const refused = e instanceof Error && e.name === "RejectedError";
        observer.commands(source, "ProcessCheckResult", refused ? "refused" : "failed", 1);
        throw e;
      },
    );
  }

  /**
   * Reloads: see the class comment. Resolves when the reload is durably enqueued. `digest` as in
   * CoreOptions.configDigest. A config prepared by prepareConfig (with its digest) only switches
   * and is sent in this call; any other is also indexed and compiled for the writer in it.
   * `version`: the config history's entry, recorded with the reload when the config changed.
   */
  applyConfig(
    config: Config | PreparedConfig,
    digest?: string,
    source?: string,
    version?: ConfigVersionNote & { readonly text: string },
  ): Promise<void> {
    const at = this.#clock.now();
    if ("store" in config) {
      return this.#store.applyConfig(
        config.store,
        at,
        config.digest ?? configDigest(config.store.config),
        source,
        version,
      );
    }
    return this.#store.applyConfig(config, at, digest ?? configDigest(config), source, version);
  }

  /**
   * Makes `config` ready for applyConfig in macrotasks of their own (its object index, its compiled
   * form for the writer), so that the call that switches to it holds the event loop only briefly:
   * what a reload does, with the API serving in between. Changes nothing until applied.
   */
  async prepareConfig(config: Config, digest?: string): Promise<PreparedConfig> {
    return { store: await this.#store.prepareConfig(config), digest };
  }

  /**
   * Resolves once every batch enqueued before the call is applied and visible in `view`: for tests,
   * and for callers that want read-your-writes.
   */
  flush(): Promise<void> {
    return this.#store.sync();
  }

  /**
   * The writer thread's memory in bytes and its CPU time (the reader's are threadMemory() and
   * threadCpuMs() on the reader's thread). `collect`: the writer collects garbage first, when run
   * under --expose-gc (benchmarks: the heap is then the live heap).
   */
  writerStats(collect = false): Promise<WriterStats> {
    return this.#store.writerStats(collect);
  }

  /**
   * Retention: drops the log's events at or below `floor` (every consumer of the log is past them)
   * that were appended before `before` (ms since the epoch); resolves to how many were dropped.
   */
  trimEvents(floor: number, before: number): Promise<number> {
    return this.#store.trim(floor, before);
  }

  /**
   * Calls `listener` after every group the writer committed (events may have been appended): the
   * log's consumers wake on it instead of polling. Returns the function that unsubscribes.
   */
  onCommitted(listener: () => void): () => void {
    this.#committed.add(listener);
    return () => this.#committed.delete(listener);
  }

  /** The data directory of the event log (log consumers open their own reader on it). */
  get dataDir(): string {
    return this.#dataDir;
  }

  /** Takes a snapshot now (normally the writer takes them on its own cadence). */
  snapshot(): Promise<void> {
    return this.#store.snapshot();
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#wakeup?.timer.cancel();
    this.#wakeup = undefined;
    await this.#asOf?.close();
    await this.#logReads?.close();
    await this.#store.close();
  }

  /**
   * The projection as it stood at `at` (ms since the epoch, on this Core's clock): rebuilt off
   * this thread from the nearest kept snapshot before it and the events logged after it, never
   * from `view` (src/store/as-of.ts). Rejects with OutOfRangeError for a moment in the future or
   * older than the log keeps. Read it, never change it; pair it with `view.index`.
   */
  projectionAt(at: number): Promise<Projection> {
    if (this.#closed) return Promise.reject(new Error("core is closed"));
    this.#asOf ??= createAsOf({ dataDir: this.#dataDir, now: () => this.#clock.now() });
    return this.#asOf.projectionAt(at);
  }

  /**
   * History read from the event log itself, off this thread (src/store/log-history.ts): what
   * ListHistory answers beyond the projection's ring (a range, kinds, objects, oldest first).
   */
  historyFromLog(q: LogHistoryQuery): Promise<LogHistoryPage> {
    if (this.#closed) return Promise.reject(new Error("core is closed"));
    this.#logReads ??= createLogReads({ dataDir: this.#dataDir });
    return this.#logReads.history(q);
  }

  /** One object's perfdata series read from the results in the event log, off this thread. */
  perfdataFromLog(q: LogPerfdataQuery): Promise<PerfdataSeriesSet> {
    if (this.#closed) return Promise.reject(new Error("core is closed"));
    this.#logReads ??= createLogReads({ dataDir: this.#dataDir });
    return this.#logReads.perfdata(q);
  }

  /** Keeps one clock timer for the engine's next due timer; when it fires, a Tick is enqueued. */
  #schedule(at: number | undefined): void {
    this.#nextWakeup = at;
    if (this.#closed || !this.#ticking) return;
    if (this.#wakeup !== undefined && this.#wakeup.at === at) return;
    this.#wakeup?.timer.cancel();
    this.#wakeup = undefined;
    if (at === undefined) return;
    const timer = this.#clock.setTimer(at - this.#clock.now(), () => {
      this.#wakeup = undefined;
      if (this.#closed) return;
      const now = this.#clock.now();
      this.#store.submit(now, encoder.encode(JSON.stringify([{ type: "Tick" }]))).catch((e: unknown) => {
        this.#logger?.error("cannot enqueue a tick", { error: String(e) });
      });
    });
    this.#wakeup = { at, timer };
  }
}

/** How many commands of each type a batch holds. */
function countsByType(commands: readonly SubmittedCommand[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const c of commands) counts.set(c.type, (counts.get(c.type) ?? 0) + 1);
  return counts;
}

function countCommands(
  observer: CoreObserver,
  source: CommandSource,
  commands: readonly SubmittedCommand[],
  result: CommandResult,
): void {
  for (const [type, n] of countsByType(commands)) observer.commands(source, type, result, n);
}
