import { Worker } from "node:worker_threads";
import type { RemoteConsumer, RemoteProgress } from "../../consumers/index.js";
import type { SinkConfig } from "../../model/config.js";
import type { RecordedEvent } from "../../model/events.js";
import type { Logger } from "../../model/logger.js";
import type { SinkStats } from "../runner.js";
import type { FromSinkThread, SinkThreadInit, ToSinkThread } from "./protocol.js";

export interface SinkThreadOptions extends SinkThreadInit {
  readonly logger: Logger;
  /** Appends the sinks' own events to the log (a RecordEvents command). */
  readonly record: (events: RecordedEvent[]) => void;
}

/** A sink run on the thread, as the consumer host sees it. */
export interface ThreadSink extends RemoteConsumer {
  /** Where the host takes the positions the thread reports. */
  bind(progress: RemoteProgress): void;
}

/**
 * The main thread's side of the sink thread (sink-worker.ts): starts it, posts it the objects'
 * zones and labels and the sinks to run, and takes back positions (stored through the consumer
 * host, then acknowledged to the thread), counters, the sinks' own events and log lines. Each sink
 * is a `RemoteConsumer` of the host, which decides when it runs.
 *
 * If the thread dies (it should not), its sinks stand still at their stored positions: the error is
 * logged, each sink's `lastError` says so, and a restart of Lookout resumes them.
 */
export class SinkThread {
  readonly #worker: Worker;
  readonly #o: SinkThreadOptions;
  readonly #sinks = new Map<string, { stats: SinkStats; progress?: RemoteProgress }>();
  readonly #pending = new Map<number, () => void>();
  #nextId = 1;
  #wakePosted = false;
  #dead = false;

  constructor(o: SinkThreadOptions) {
    this.#o = o;
    const init: SinkThreadInit = {
      dataDir: o.dataDir,
      priority: o.priority,
      nice: o.nice,
      ...(o.minBackoffMs === undefined ? {} : { minBackoffMs: o.minBackoffMs }),
      ...(o.maxBackoffMs === undefined ? {} : { maxBackoffMs: o.maxBackoffMs }),
    };
    this.#worker = new Worker(new URL("./sink-worker.js", import.meta.url), { workerData: init });
    this.#worker.on("message", (m: FromSinkThread) => this.#onMessage(m));
    this.#worker.on("error", (e) => this.#die(String(e)));
    this.#worker.on("exit", (code) => this.#die(`exited with code ${code}`));
  }

  /**
   * The zones and labels the sinks map events with (the first config's, then each reload's), as
   * encodeSinkObjects writes them.
   */
  setObjects(text: string): void {
    this.#post({ t: "objects", text });
  }

  /** Creates a sink on the thread; the host runs it through the returned RemoteConsumer. */
  add(config: SinkConfig, stats: SinkStats): ThreadSink {
    const name = config.name;
    const entry: { stats: SinkStats; progress?: RemoteProgress } = { stats };
    this.#sinks.set(name, entry);
    this.#post({ t: "start", config });
    return {
      name: `sink:${name}`,
      bind: (progress) => {
        entry.progress = progress;
      },
      run: (position) => this.#post({ t: "run", name, position }),
      pause: () => this.#request((id) => ({ t: "pause", name, id })),
      stop: async () => {
        await this.#request((id) => ({ t: "stop", name, id }));
        if (this.#sinks.get(name) === entry) this.#sinks.delete(name);
      },
      wake: () => this.wake(),
    };
  }

  /** New events were committed: one wake-up per turn of the event loop, whatever the sinks. */
  wake(): void {
    if (this.#wakePosted || this.#dead) return;
    this.#wakePosted = true;
    setImmediate(() => {
      this.#wakePosted = false;
      this.#post({ t: "wake" });
    });
  }

  /** Stops every sink on the thread (batches in flight finish, positions stored) and ends it. */
  async close(): Promise<void> {
    await this.#request((id) => ({ t: "close", id }));
    this.#dead = true;
    await this.#worker.terminate();
  }

  #post(m: ToSinkThread): void {
    if (!this.#dead) this.#worker.postMessage(m);
  }

  #request(make: (id: number) => ToSinkThread): Promise<void> {
    if (this.#dead) return Promise.resolve();
    const id = this.#nextId++;
    return new Promise((resolve) => {
      this.#pending.set(id, resolve);
      this.#post(make(id));
    });
  }

  #onMessage(m: FromSinkThread): void {
    switch (m.t) {
      case "put": {
        const name = m.name.slice("sink:".length);
        // Stored (through the host) before the thread may send the next batch.
        this.#sinks.get(name)?.progress?.advance(m.position);
        this.#post({ t: "stored", name: m.name, position: m.position });
        return;
      }
      case "stats": {
        const s = this.#sinks.get(m.name)?.stats;
        if (s === undefined) return;
        s.sent = m.stats.sent;
        s.retries = m.stats.retries;
        s.lastSuccessAt = m.stats.lastSuccessAt;
        s.retrying = m.stats.retrying;
        s.lastError = m.stats.lastError;
        s.dropped.clear();
        for (const [k, v] of m.stats.dropped) s.dropped.set(k, v);
        return;
      }
      case "record":
        this.#o.record(m.events);
        return;
      case "log":
        this.#o.logger[m.level](m.msg, m.fields);
        return;
      case "done": {
        const r = this.#pending.get(m.id);
        this.#pending.delete(m.id);
        r?.();
        return;
      }
      case "fatal":
        this.#o.logger.error("the sink thread cannot start", { error: m.message });
        return;
      default: {
        const never: never = m;
        throw new Error(`unknown message ${JSON.stringify(never)}`);
      }
    }
  }

  #die(why: string): void {
    if (this.#dead) return;
    this.#dead = true;
    this.#o.logger.error("the sink thread stopped; sinks stand still at their stored positions", {
      error: why,
    });
    for (const s of this.#sinks.values()) {
      s.stats.retrying = true;
      s.stats.lastError = "the sink thread stopped; restart Lookout";
    }
    for (const r of this.#pending.values()) r();
    this.#pending.clear();
  }
}
