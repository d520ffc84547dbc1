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
  /** Tests: the thread's module (default sink-worker.js), e.g. one that dies on cue. */
  readonly workerUrl?: URL;
  /** The wait before restarting a thread that died, doubling per death up to the max (1 s, 30 s). */
  readonly restartMinMs?: number;
  readonly restartMaxMs?: number;
}

/** A thread that ran this long before it died restarts after the shortest wait again. */
const STABLE_MS = 60_000;

/** What the main thread keeps of a sink to start it again on a new thread. */
interface Entry {
  readonly config: SinkConfig;
  readonly stats: SinkStats;
  progress?: RemoteProgress;
  /** Running (the host's `run`, not paused since) from `position`, the last stored one. */
  running: boolean;
  position: number;
  /** The counters of the threads that died before this one (a new thread counts from zero). */
  base: { sent: number; retries: number; dropped: SinkStats["dropped"] };
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
 * If the thread dies (it should not: an uncaught error, its heap limit), the error is logged, each
 * sink's `lastError` says so, and a new thread is started after a wait (1 s, doubling per death in a
 * row up to 30 s); it gets the objects and sinks again and runs each running sink from its last
 * stored position, so nothing is lost and at most the batch in flight is sent twice.
 */
export class SinkThread {
  #worker: Worker;
  readonly #o: SinkThreadOptions;
  readonly #sinks = new Map<string, Entry>();
  readonly #pending = new Map<number, () => void>();
  #nextId = 1;
  #wakePosted = false;
  /** No thread runs now (it died, or is closed); posts are dropped. */
  #dead = false;
  #closed = false;
  #objects: string | undefined;
  #startedAt = 0;
  #restartWaitMs: number;
  #restartTimer: NodeJS.Timeout | undefined;
  /** Threads started after a death (for tests and the log). */
  restarts = 0;

  constructor(o: SinkThreadOptions) {
    this.#o = o;
    this.#restartWaitMs = o.restartMinMs ?? 1_000;
    this.#worker = this.#spawn();
  }

  #spawn(): Worker {
    const o = this.#o;
    const init: SinkThreadInit = {
      dataDir: o.dataDir,
      priority: o.priority,
      nice: o.nice,
      ...(o.minBackoffMs === undefined ? {} : { minBackoffMs: o.minBackoffMs }),
      ...(o.maxBackoffMs === undefined ? {} : { maxBackoffMs: o.maxBackoffMs }),
    };
    const worker = new Worker(o.workerUrl ?? new URL("./sink-worker.js", import.meta.url), {
      workerData: init,
    });
    worker.on("message", (m: FromSinkThread) => {
      if (worker === this.#worker) this.#onMessage(m);
    });
    worker.on("error", (e) => this.#die(worker, String(e)));
    worker.on("exit", (code) => this.#die(worker, `exited with code ${code}`));
    this.#startedAt = Date.now();
    return worker;
  }

  /**
   * The zones and labels the sinks map events with (the first config's, then each reload's), as
   * encodeSinkObjects writes them.
   */
  setObjects(text: string): void {
    this.#objects = text;
    this.#post({ t: "objects", text });
  }

  /** Creates a sink on the thread; the host runs it through the returned RemoteConsumer. */
  add(config: SinkConfig, stats: SinkStats): ThreadSink {
    const name = config.name;
    const entry: Entry = {
      config,
      stats,
      running: false,
      position: 0,
      base: { sent: 0, retries: 0, dropped: new Map() },
    };
    this.#sinks.set(name, entry);
    this.#post({ t: "start", config });
    return {
      name: `sink:${name}`,
      bind: (progress) => {
        entry.progress = progress;
      },
      run: (position) => {
        entry.running = true;
        entry.position = position;
        this.#post({ t: "run", name, position });
      },
      pause: () => {
        entry.running = false;
        return this.#request((id) => ({ t: "pause", name, id }));
      },
      stop: async () => {
        entry.running = false;
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
    this.#closed = true;
    clearTimeout(this.#restartTimer);
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
        const entry = this.#sinks.get(name);
        // Stored (through the host) before the thread may send the next batch.
        entry?.progress?.advance(m.position);
        if (entry !== undefined) entry.position = m.position;
        this.#post({ t: "stored", name: m.name, position: m.position });
        return;
      }
      case "stats": {
        const e = this.#sinks.get(m.name);
        if (e === undefined) return;
        const s = e.stats;
        s.sent = e.base.sent + m.stats.sent;
        s.retries = e.base.retries + m.stats.retries;
        s.lastSuccessAt = Math.max(s.lastSuccessAt, m.stats.lastSuccessAt);
        s.retrying = m.stats.retrying;
        s.lastError = m.stats.lastError;
        s.dropped.clear();
        for (const [k, v] of e.base.dropped) s.dropped.set(k, v);
        for (const [k, v] of m.stats.dropped) s.dropped.set(k, (s.dropped.get(k) ?? 0) + v);
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

  #die(worker: Worker, why: string): void {
    if (worker !== this.#worker || this.#dead) return;
    this.#dead = true;
    for (const r of this.#pending.values()) r();
    this.#pending.clear();
    if (this.#closed) return;
    if (Date.now() - this.#startedAt >= STABLE_MS) this.#restartWaitMs = this.#o.restartMinMs ?? 1_000;
    const wait = this.#restartWaitMs;
    this.#restartWaitMs = Math.min(wait * 2, this.#o.restartMaxMs ?? 30_000);
    this.#o.logger.error(
      "the sink thread stopped; its sinks resume from their stored positions on a new one",
      {
        error: why,
        restartInMs: wait,
      },
    );
    for (const e of this.#sinks.values()) {
      e.base = { sent: e.stats.sent, retries: e.stats.retries, dropped: new Map(e.stats.dropped) };
      e.stats.retrying = true;
      e.stats.lastError = `the sink thread stopped (${why}); restarting`;
    }
    this.#restartTimer = setTimeout(() => this.#restart(), wait);
    this.#restartTimer.unref();
  }

  /** A new thread: the objects, every sink, and each running sink from its last stored position. */
  #restart(): void {
    if (this.#closed) return;
    this.#worker = this.#spawn();
    this.#dead = false;
    this.restarts++;
    if (this.#objects !== undefined) this.#post({ t: "objects", text: this.#objects });
    for (const [name, e] of this.#sinks) {
      this.#post({ t: "start", config: e.config });
      if (e.running) this.#post({ t: "run", name, position: e.position });
    }
    this.#o.logger.warn("the sink thread was started again", {
      restarts: this.restarts,
      sinks: [...this.#sinks.keys()],
    });
  }
}
