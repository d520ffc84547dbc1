import type { AddOptions, ConsumerHost, StartAt } from "../consumers/index.js";
import type { Config, SinkConfig } from "../model/config.js";
import type { RecordedEvent } from "../model/events.js";
import type { Logger } from "../model/logger.js";
import { parseSinkCursor } from "../model/sink-cursor.js";
import type { ThreadPolicy } from "../store/thread-priority.js";
import { createSink, type SinkDeps } from "./create-sink.js";
import { configLookup, createRecordMapper, type ObjectLookup } from "./records.js";
import { createSinkRunner, newSinkStats, type SinkStats } from "./runner.js";
import type { Sink } from "./sink.js";
import { encodeSinkObjects } from "./thread/objects-text.js";
import { SinkThread } from "./thread/sink-thread.js";

/** The consumer name a sink's position is stored under. */
export const consumerName = (sink: string): string => `sink:${sink}`;

/** Where a sink with no stored position starts: its `cursor`, or for types without one, their default. */
export function startOf(c: SinkConfig): StartAt {
  switch (c.type) {
    // The archive keeps the log: it starts with the oldest event retained.
    case "archive":
      return { kind: "oldest" };
    case "clickhouse":
      return { kind: "end" };
    default: {
      const cur = parseSinkCursor(c.cursor);
      return "error" in cur ? { kind: "end" } : cur;
    }
  }
}

/** How the host runs a sink's consumer: batches of `batch_size`, waiting up to `flush_interval`. */
export function addOptionsOf(c: SinkConfig): AddOptions {
  return {
    start: startOf(c),
    maxBatch: c.batchSize,
    maxWaitMs: c.flushIntervalMs,
    idleMs: Math.min(1000, Math.max(10, c.flushIntervalMs)),
  };
}

/** One configured sink as the set runs it. */
export interface RunningSink {
  readonly config: SinkConfig;
  readonly stats: SinkStats;
  /** False for a type this build cannot send to (it is listed, not run). */
  readonly running: boolean;
}

export interface SinkSetOptions extends SinkDeps {
  readonly host: ConsumerHost;
  readonly logger: Logger;
  /** Appends the sinks' own events to the log (a RecordEvents command). */
  readonly record: (events: RecordedEvent[]) => void;
  /**
   * Runs the sinks on one sink thread (src/sinks/thread/) instead of the main thread: it reads the
   * log, maps, encodes and sends there, at this CPU policy (as the store's writer: `idle`, falling
   * back to nice `nice`; `normal`: none). `create` is then not used.
   */
  readonly thread?: {
    readonly priority: ThreadPolicy | "normal";
    readonly nice: number;
    /** Tests: the thread's module and its restart waits (SinkThreadOptions). */
    readonly workerUrl?: URL;
    readonly restartMinMs?: number;
    readonly restartMaxMs?: number;
  };
  /** Tests: the transport per config (default createSink). */
  readonly create?: (c: SinkConfig, deps: SinkDeps) => Sink | undefined;
  /** Tests: the runner's retry backoff. */
  readonly minBackoffMs?: number;
  readonly maxBackoffMs?: number;
}

/**
 * The configured sinks, each a log consumer "sink:<name>" of the host. `applyConfig` is the sinks'
 * part of the reload fan-out: a sink whose configuration changed restarts from its stored position;
 * a new one starts where its `cursor` says; a removed one stops and its position is forgotten (so it
 * no longer holds the log's retention back; added again, it starts where `cursor` says, and a renamed
 * sink is a removed one plus a new one). Positions of sinks the first configuration no longer names
 * are forgotten at start for the same reason.
 */
export class SinkSet {
  readonly #o: SinkSetOptions;
  readonly #sinks = new Map<
    string,
    { config: SinkConfig; key: string; stats: SinkStats; sink?: Sink; onThread?: boolean }
  >();
  #lookup: ObjectLookup;
  #thread: SinkThread | undefined;
  #applying: Promise<void> = Promise.resolve();

  constructor(o: SinkSetOptions, config: Config) {
    this.#o = o;
    this.#lookup = configLookup(config);
    const configured = new Set([...config.sinks.keys()].map(consumerName));
    for (const { name } of o.host.state.consumers()) {
      if (name.startsWith("sink:") && !configured.has(name)) {
        o.logger.info("forgetting the position of a sink no longer configured", { sink: name.slice(5) });
        o.host.state.forget(name);
      }
    }
  }

  /** Starts the sinks of `config` (the first one). */
  start(config: Config): Promise<void> {
    return this.applyConfig(config);
  }

  /** Applies a new configuration; calls are serialised. */
  applyConfig(config: Config): Promise<void> {
    const next = this.#applying.then(() => this.#apply(config));
    this.#applying = next.catch(() => {});
    return next;
  }

  async #apply(config: Config): Promise<void> {
    this.#lookup = configLookup(config);
    const thread = this.#o.thread;
    if (thread !== undefined && (this.#thread !== undefined || config.sinks.size > 0)) {
      // In steps: a reload must not hold the main thread (encodeSinkObjects).
      this.#startThread(thread).setObjects(await encodeSinkObjects(config));
    }
    for (const [name, cur] of [...this.#sinks]) {
      const c = config.sinks.get(name);
      if (c !== undefined && JSON.stringify(c) === cur.key) continue;
      await this.#stopOne(name);
      if (c === undefined) {
        this.#o.host.forget(consumerName(name));
        this.#o.logger.info("sink removed", { sink: name });
      }
    }
    for (const [name, c] of config.sinks) if (!this.#sinks.has(name)) this.#startOne(c);
  }

  #startOne(c: SinkConfig): void {
    const stats = newSinkStats();
    const key = JSON.stringify(c);
    if (this.#o.thread !== undefined) {
      const thread = this.#startThread(this.#o.thread);
      this.#sinks.set(c.name, { config: c, key, stats, onThread: true });
      const remote = thread.add(c, stats);
      remote.bind(this.#o.host.addRemote(remote, { start: startOf(c) }));
      return;
    }
    const sink = (this.#o.create ?? createSink)(c, this.#o);
    if (sink === undefined) {
      this.#o.logger.warn("sink type not supported by this build yet; not started", {
        sink: c.name,
        type: c.type,
      });
      this.#sinks.set(c.name, { config: c, key, stats });
      return;
    }
    this.#sinks.set(c.name, { config: c, key, stats, sink });
    const runner = createSinkRunner({
      name: c.name,
      sink,
      mapper: createRecordMapper(c.name, c.input, c.selector, () => this.#lookup),
      batchSize: c.batchSize,
      clock: this.#o.clock,
      logger: this.#o.logger,
      stats,
      record: this.#o.record,
      state: this.#o.host.state,
      ...(this.#o.minBackoffMs === undefined ? {} : { minBackoffMs: this.#o.minBackoffMs }),
      ...(this.#o.maxBackoffMs === undefined ? {} : { maxBackoffMs: this.#o.maxBackoffMs }),
    });
    this.#o.host.add(runner, addOptionsOf(c));
  }

  /** The sink thread, started with the first sink that runs on it. */
  #startThread(o: NonNullable<SinkSetOptions["thread"]>): SinkThread {
    if (this.#thread === undefined) {
      this.#thread = new SinkThread({
        dataDir: this.#o.dataDir,
        priority: o.priority,
        nice: o.nice,
        logger: this.#o.logger,
        record: this.#o.record,
        ...(o.workerUrl === undefined ? {} : { workerUrl: o.workerUrl }),
        ...(o.restartMinMs === undefined ? {} : { restartMinMs: o.restartMinMs }),
        ...(o.restartMaxMs === undefined ? {} : { restartMaxMs: o.restartMaxMs }),
        ...(this.#o.minBackoffMs === undefined ? {} : { minBackoffMs: this.#o.minBackoffMs }),
        ...(this.#o.maxBackoffMs === undefined ? {} : { maxBackoffMs: this.#o.maxBackoffMs }),
      });
    }
    return this.#thread;
  }

  async #stopOne(name: string): Promise<void> {
    const cur = this.#sinks.get(name);
    if (cur === undefined) return;
    this.#sinks.delete(name);
    await this.#o.host.remove(consumerName(name));
    await cur.sink?.close().catch(() => {});
  }

  /** The configured sinks with their counters, by name. */
  list(): RunningSink[] {
    return [...this.#sinks.values()]
      .map((s) => ({
        config: s.config,
        stats: s.stats,
        running: s.sink !== undefined || s.onThread === true,
      }))
      .sort((a, b) => (a.config.name < b.config.name ? -1 : a.config.name > b.config.name ? 1 : 0));
  }

  /** Stops every sink (waiting for batches in flight); positions stay stored. */
  async stop(): Promise<void> {
    await this.#applying;
    for (const name of [...this.#sinks.keys()]) await this.#stopOne(name);
    const thread = this.#thread;
    this.#thread = undefined;
    await thread?.close();
  }
}
