import { Worker } from "node:worker_threads";
import type { Config } from "../model/config.js";
import type { ConfigVersionNote } from "./config-versions.js";
import { RejectedError, StoreError, type StoreFailure } from "./errors.js";
import { createObjectIndex, type ObjectIndex } from "./object-index.js";
import { createProjection, type Projection } from "./projection.js";
import {
  DEFAULT_WRITER_OPTIONS,
  type FromWriter,
  type Recovered,
  type ReplicaStatus,
  type ToWriter,
  type WriterOptions,
  type WriterStats,
} from "./protocol.js";
import type { ProjectionDelta } from "./records.js";
import { packRecords } from "./snapshot-records.js";

/** Records applied per macrotask from a delta: about half a millisecond of work, more on a busy machine. */
const DELTA_STEP = 500;
/** History entries serialized per macrotask when answering a snapshot barrier. */
const SNAPSHOT_PIECE = 500;
/** Status records copied per macrotask when answering a snapshot barrier (~0.5 ms of work). */
const SNAPSHOT_RECORDS = 5_000;

interface Waiter {
  /** `accepted`: for an ingest, how many commands it decoded to; `described`: what its decoder said. */
  resolve(accepted: number, described?: readonly (string | number | null)[]): void;
  reject(e: Error): void;
  /** For an ingest whose body comes back undecoded. */
  undecoded?(body: Uint8Array): void;
}

/**
 * How an ingest ended when it did not fail: enqueued (`accepted` commands), or not decodable by the
 * writer, whose body is returned for the owner to decode itself.
 */
export type IngestOutcome =
  /** `described`: what the writer's decoder says of the commands (SubmissionDecoder.describe). */
  | {
      readonly kind: "enqueued";
      readonly accepted: number;
      readonly described?: readonly (string | number | null)[];
    }
  | { readonly kind: "undecoded"; readonly body: Uint8Array };

/**
 * A config made ready to switch to (Store.prepareConfig): its object index and the form the writer
 * gets, built ahead of the call that switches, in turns of their own.
 */
export interface PreparedStoreConfig {
  readonly config: Config;
  readonly index: ObjectIndex;
  readonly forWriter: unknown;
}

/** Options of Store.open. */
export interface StoreOptions {
  readonly dataDir: string;
  /** The worker entry module: it calls runWriterThread with the state machines to use. */
  readonly workerUrl: URL;
  /** The configuration to run; logged as an ApplyConfig when it differs from the one in force. */
  readonly config: Config;
  /** What identifies the config (e.g. sha256 of its source); computed from `config` when absent. */
  readonly configDigest?: string;
  /**
   * The config history's entry for `config`, with its document's text: recorded when open logs the
   * config (or the history is empty). Ignored when replicated: the config comes through the log.
   */
  readonly configVersion?: ConfigVersionNote & { readonly text: string };
  /**
   * What of a config the writer's state machines need, in the form it is sent to the writer's thread
   * by structured clone (default: the whole config), made once per open and reload. Reads use the
   * whole config; the writer's StateMachineFactory.adopt takes what this makes.
   */
  readonly writerConfig?: (config: Config) => unknown;
  /** The owner's clock now: stamps the ApplyConfig that open enqueues when the config changed. */
  readonly at: number;
  readonly writer?: Partial<WriterOptions>;
  /** Called with the engine's next due timer after every applied group (undefined: none). */
  readonly onWakeup?: (at: number | undefined) => void;
  /** Called once if the writer dies; the store rejects every later write. */
  readonly onFatal?: (message: string) => void;
  /**
   * Replicated (docs/replication.md): writes go through the replicated command log that the
   * worker's entry module opens with `options`; `origin` names this server's groups in it.
   */
  readonly replication?: { readonly origin: string; readonly options: unknown };
  /** Replicated: how this server's copy stands against the log (about once a second). */
  readonly onReplica?: (status: ReplicaStatus) => void;
  /** Replicated: another server's group named config `digest` (with its CUE source when it had it). */
  readonly onConfigSource?: (digest: string, source: string | undefined) => void;
}

/**
 * The owning thread's handle on the store: starts the writer worker, forwards command batches to it
 * and keeps the reader's copy of the projection current from the deltas it posts.
 *
 * Reads (`projection`, `index`) are plain in-memory structures on this thread; they never wait on
 * the writer. Writes resolve once the writer has made them durable. Ordering: batches are enqueued
 * in the order `submit`/`applyConfig` were called. The Store owns its worker; `close` stops it after
 * a final snapshot.
 */
export class Store {
  readonly #worker: Worker;
  readonly #projection: Projection;
  #index: ObjectIndex;
  readonly #waiters = new Map<number, Waiter>();
  readonly #statsWaiters = new Map<number, (s: WriterStats) => void>();
  readonly #trimWaiters = new Map<number, { resolve: (n: number) => void; reject: (e: Error) => void }>();
  /** Callbacks of submits waiting to be visible, in request id order. */
  #visible: { readonly id: number; readonly fn: () => void }[] = [];
  #nextId = 1;
  /**
   * The writes (submits, ingests, reloads) not yet applied and visible, by request id in ascending
   * order, each with the objects it may change (null: any), and those objects counted by key: an
   * object none of them may change shows in the projection as the engine will find it.
   */
  readonly #outstanding = new Map<number, readonly string[] | null>();
  #outstandingAny = 0;
  readonly #outstandingKeys = new Map<string, number>();
  /** Commands the engine refused when it applied them since open, by type. */
  readonly #rejected = new Map<string, number>();
  /**
   * Ingests of this turn, sent to the writer together (one message instead of one per request:
   * a request carrying one result then costs this thread as little as a batch does).
   */
  #ingests: Extract<ToWriter, { t: "ingest" }>[] = [];
  #ingestBuffers: ArrayBuffer[] = [];
  #fatal: string | undefined;
  /** Messages waiting for the delta being applied in steps; undefined while none is. */
  #held: FromWriter[] | undefined;
  readonly #options: StoreOptions;
  /** What the writer recovered at open. */
  readonly recovered: Recovered;

  private constructor(worker: Worker, projection: Projection, options: StoreOptions, recovered: Recovered) {
    this.#worker = worker;
    this.#projection = projection;
    this.#options = options;
    this.#index = createObjectIndex(options.config, projection.heldKey);
    this.recovered = recovered;
    worker.on("message", (m: FromWriter) => this.#onMessage(m));
    worker.on("error", (e) => this.#die(`writer crashed: ${String(e)}`));
    worker.on("exit", (code) => {
      if (code !== 0) this.#die(`writer exited with code ${code}`);
    });
    this.#pull();
  }

  /** Starts the writer, recovers the data directory, and resolves when reads are served. */
  static open(options: StoreOptions): Promise<Store> {
    const writerOptions = { ...DEFAULT_WRITER_OPTIONS, ...options.writer };
    const young = writerOptions.youngGenerationMb;
    const worker = new Worker(
      options.workerUrl,
      young > 0 ? { resourceLimits: { maxYoungGenerationSizeMb: young } } : {},
    );
    const init: ToWriter = {
      t: "init",
      dataDir: options.dataDir,
      config: options.writerConfig?.(options.config) ?? options.config,
      configDigest: options.configDigest,
      at: options.at,
      ...(options.configVersion === undefined || options.replication !== undefined
        ? {}
        : { version: options.configVersion }),
      options: writerOptions,
      ...(options.replication === undefined ? {} : { replication: options.replication }),
    };
    return new Promise((resolve, reject) => {
      const onError = (e: Error): void => reject(new StoreError("writer failed to start", { cause: e }));
      worker.once("error", onError);
      worker.once("message", (m: FromWriter) => {
        worker.off("error", onError);
        if (m.t === "ready") {
          const store = new Store(
            worker,
            createProjection(m.projection, { historyCapacity: writerOptions.historyCapacity }),
            options,
            m.recovered,
          );
          options.onWakeup?.(m.nextWakeup);
          resolve(store);
        } else {
          void worker.terminate();
          reject(new StoreError(m.t === "fatal" ? m.message : `unexpected ${m.t} from writer`));
        }
      });
      worker.postMessage(init);
    });
  }

  /** The reader's projection: statuses, history and downtimes as of the last delta received. */
  get projection(): Projection {
    return this.#projection;
  }

  /**
   * Whether the projection shows the objects `keys` as the engine will find them when it applies a
   * command submitted now: no write waiting to be applied and made visible may change their state
   * or acknowledgement (src/core/precheck.ts relies on it).
   */
  settledFor(keys: readonly string[]): boolean {
    if (this.#outstandingAny > 0) return false;
    if (this.#outstandingKeys.size === 0) return true;
    for (const k of keys) if (this.#outstandingKeys.has(k)) return false;
    return true;
  }

  /** How many commands the engine refused when it applied them since open, by command type. */
  get rejectedCommands(): ReadonlyMap<string, number> {
    return this.#rejected;
  }

  /** How many submits, ingests and reloads are enqueued (or being enqueued) and not yet visible. */
  get queueDepth(): number {
    return this.#outstanding.size;
  }

  /** The configured objects of the config in force (as last given to open or applyConfig). */
  get index(): ObjectIndex {
    return this.#index;
  }

  /**
   * Durably enqueues a batch: `body` is the UTF-8 JSON of a Command[]; commands without `at` get
   * this call's `at`. The buffer is transferred to the writer (unusable afterwards). Resolves when
   * the batch is on disk; rejects with StoreError if it could not be stored. `onVisible` is called
   * on this thread once the batch is applied and `projection` shows its effects (never, if the
   * writer dies first). `touches`: the keys of the objects whose state or acknowledgement the
   * batch may change (null, the default: any), for `settledFor`.
   */
  submit(
    at: number,
    body: Uint8Array,
    onVisible?: () => void,
    touches: readonly string[] | null = null,
  ): Promise<void> {
    return this.#send(
      (id) => {
        if (onVisible !== undefined) this.#visible.push({ id, fn: onVisible });
        this.#outstand(id, touches);
        return { t: "submit", id, at, body };
      },
      [body.buffer as ArrayBuffer],
    );
  }

  /**
   * Durably enqueues a submission still in a wire form: the writer decodes `body` with its
   * SubmissionDecoder (see src/store/submission.ts) and validates it against the config in force
   * at its place in the queue, so this thread never decodes it. `body` must own its whole
   * ArrayBuffer, which is transferred (unusable afterwards). Rejects with RejectedError when a
   * command is refused (nothing enqueued), with StoreError if it could not be stored; resolves
   * once it is on disk, or with the body when the writer does not decode that form.
   */
  ingest(at: number, kind: string, body: Uint8Array): Promise<IngestOutcome> {
    if (this.#fatal !== undefined) return Promise.reject(new StoreError(this.#fatal));
    const id = this.#nextId++;
    this.#outstand(id, null);
    return new Promise<IngestOutcome>((resolve, reject) => {
      this.#waiters.set(id, {
        resolve: (accepted, described) =>
          resolve(
            described === undefined
              ? { kind: "enqueued", accepted }
              : { kind: "enqueued", accepted, described },
          ),
        reject,
        undecoded: (returned) => resolve({ kind: "undecoded", body: returned }),
      });
      this.#ingests.push({ t: "ingest", id, at, kind, body });
      this.#ingestBuffers.push(body.buffer as ArrayBuffer);
      // After the I/O of this turn (setImmediate, not a microtask): requests read from several
      // connections in one poll phase then travel in one message.
      if (this.#ingests.length === 1) setImmediate(() => this.#flushIngests());
    });
  }

  /**
   * Switches to a new config: reads see its objects at once (new ones PENDING), and an ApplyConfig is
   * enqueued behind every earlier batch. Resolves when that is durable. `config` may come prepared
   * (prepareConfig): then the call only switches and sends, which is all that must happen at once.
   * `source` (replicated): the config's CUE text, published with it for the other servers.
   * `version`: the config history's entry, recorded with the ApplyConfig when the config changed.
   */
  applyConfig(
    config: Config | PreparedStoreConfig,
    at: number,
    digest?: string,
    source?: string,
    version?: ConfigVersionNote & { readonly text: string },
  ): Promise<void> {
    const p = "index" in config ? config : undefined;
    const c = p?.config ?? (config as Config);
    this.#index = p?.index ?? createObjectIndex(c, this.#projection.heldKey);
    const forWriter = p === undefined ? (this.#options.writerConfig?.(c) ?? c) : p.forWriter;
    return this.#send((id) => {
      this.#outstand(id, null);
      return {
        t: "config",
        id,
        at,
        config: forWriter,
        digest,
        ...(source === undefined ? {} : { source }),
        ...(version === undefined ? {} : { version }),
      };
    });
  }

  /**
   * Builds what applyConfig needs of `config` — its object index, then what the writer gets —
   * each in a macrotask of its own: at 100,000 objects each is tens of milliseconds that reads
   * would otherwise wait for in one piece. Changes nothing; the result is for applyConfig.
   */
  async prepareConfig(config: Config): Promise<PreparedStoreConfig> {
    await new Promise((resolve) => setImmediate(resolve));
    const index = createObjectIndex(config, this.#projection.heldKey);
    await new Promise((resolve) => setImmediate(resolve));
    const forWriter = this.#options.writerConfig?.(config) ?? config;
    return { config, index, forWriter };
  }

  /**
   * Retention: asks the writer to drop the event groups at or below `floor` appended before
   * `before` (ms since the epoch); resolves to the number of events dropped.
   */
  trim(floor: number, before: number): Promise<number> {
    const id = this.#nextId++;
    return new Promise((resolve, reject) => {
      this.#trimWaiters.set(id, { resolve, reject });
      this.#post({ t: "trim", id, floor, before } satisfies ToWriter);
    });
  }

  /** Replicated: tells the writer whether this server leads (its snapshots are then published). */
  setLeading(on: boolean): void {
    if (this.#fatal === undefined) this.#post({ t: "leading", on } satisfies ToWriter);
  }

  /** Asks the writer for a snapshot now; resolves when it is stored. */
  snapshot(): Promise<void> {
    return this.#send((id) => ({ t: "snapshot", id }));
  }

  /**
   * The writer thread's memory (bytes) and CPU time, answered without waiting for queued work, but
   * only between the writer's tasks: a writer busy with a long task, or kept off the CPU by its low
   * priority, answers late. A caller that must not wait (a /metrics scrape) bounds the wait itself
   * (app/heap-metrics.ts). `collect`: the writer collects garbage first (under --expose-gc only),
   * so its heap is the live one.
   */
  writerStats(collect = false): Promise<WriterStats> {
    const id = this.#nextId++;
    return new Promise((resolve) => {
      this.#statsWaiters.set(id, resolve);
      this.#post({ t: "stats", id, collect } satisfies ToWriter);
    });
  }

  /** Resolves once everything enqueued before the call is applied and visible in `projection`. */
  sync(): Promise<void> {
    return this.#send((id) => ({ t: "sync", id }));
  }

  /** Applies what is enqueued, takes a final snapshot, and stops the writer. */
  async close(): Promise<void> {
    if (this.#fatal === undefined) await this.#send((id) => ({ t: "close", id }));
    this.#fatal ??= "the store is closed";
    await this.#worker.terminate();
  }

  /** Sends the ingests waiting for the end of the turn (before any other message, to keep order). */
  #flushIngests(): void {
    const items = this.#ingests;
    if (items.length === 0) return;
    const transfer = this.#ingestBuffers;
    this.#ingests = [];
    this.#ingestBuffers = [];
    if (this.#fatal !== undefined) return; // their waiters were failed with the store
    this.#worker.postMessage(
      items.length === 1 ? items[0] : ({ t: "ingests", items } satisfies ToWriter),
      transfer,
    );
  }

  /** Every message to the writer but `init` and the ingests goes through here, behind the ingests. */
  #post(m: ToWriter, transfer?: ArrayBuffer[]): void {
    this.#flushIngests();
    this.#worker.postMessage(m, transfer);
  }

  #send(make: (id: number) => ToWriter, transfer?: ArrayBuffer[]): Promise<void> {
    if (this.#fatal !== undefined) return Promise.reject(new StoreError(this.#fatal));
    const id = this.#nextId++;
    return new Promise<void>((resolve, reject) => {
      this.#waiters.set(id, { resolve: () => resolve(), reject });
      this.#post(make(id), transfer);
    });
  }

  #onMessage(m: FromWriter): void {
    // What reads the projection, or settles on it, waits for a delta still being applied.
    if (this.#held !== undefined && (m.t === "delta" || m.t === "barrier" || m.t === "done")) {
      this.#held.push(m);
      return;
    }
    switch (m.t) {
      case "delta":
        this.#applyDelta(m.delta, m.applied);
        return;
      case "acked": {
        const d = m.described;
        let at = 0;
        for (let i = 0; i < m.ids.length; i++) {
          let described: (string | number | null)[] | undefined;
          if (d !== undefined) {
            const n = d[at] as number;
            if (n > 0) described = d.slice(at + 1, at + 1 + n);
            at += 1 + n;
          }
          this.#settle(m.ids[i] as number, undefined, m.accepted?.[i], undefined, described);
        }
        return;
      }
      case "rejected": {
        this.#settled(m.id);
        const w = this.#take(m.id);
        w?.reject(new RejectedError(m.reason, m.message, m.index, m.detail));
        return;
      }
      case "undecoded": {
        this.#settled(m.id);
        const w = this.#take(m.id);
        w?.undecoded?.(m.body);
        return;
      }
      case "failed": {
        const failed = new Set(m.ids);
        for (const id of m.ids) this.#settled(id);
        this.#visible = this.#visible.filter((v) => !failed.has(v.id));
        for (const id of m.ids) this.#settle(id, m.message, 0, m.reason);
        return;
      }
      case "done":
        this.#settle(m.id, m.error);
        return;
      case "trimmed": {
        const w = this.#trimWaiters.get(m.id);
        this.#trimWaiters.delete(m.id);
        if (m.error === undefined) w?.resolve(m.events);
        else w?.reject(new Error(m.error));
        return;
      }
      case "applied":
        if (m.rejected !== undefined) {
          for (const [type, n] of Object.entries(m.rejected)) {
            this.#rejected.set(type, (this.#rejected.get(type) ?? 0) + n);
          }
        }
        this.#options.onWakeup?.(m.nextWakeup);
        return;
      case "fatal":
        this.#die(m.message);
        return;
      case "barrier":
        this.#answerBarrier(m.id);
        // The writer holds later deltas back until asked.
        setImmediate(() => this.#pull());
        return;
      case "stats": {
        const w = this.#statsWaiters.get(m.id);
        this.#statsWaiters.delete(m.id);
        w?.(m.stats);
        return;
      }
      case "ready":
        return;
      case "replica":
        this.#options.onReplica?.(m.state);
        return;
      case "config-source":
        this.#options.onConfigSource?.(m.digest, m.source);
        return;
      default: {
        const never: never = m;
        throw new Error(`unknown message ${String(never)}`);
      }
    }
  }

  /**
   * Sends the projection as it is at this barrier, for the writer's snapshot, a macrotask per part
   * so that reads keep flowing meanwhile. Status records go as they are held, SNAPSHOT_RECORDS at a
   * time (the writer turns them into JSON), with deltas held back until the last of them is copied,
   * so that they are all as of the barrier; history entries (the ring's arrays copied at the
   * barrier, made into records piece by piece) go as JSON, SNAPSHOT_PIECE at a time.
   */
  #answerBarrier(id: number): void {
    const p = this.#projection;
    const { eventSeq, keys, history, downtimes, comments, reschedules } = p.captureFrame();
    const post = (m: ToWriter, transfer?: ArrayBuffer[]): void => {
      if (this.#fatal === undefined) this.#post(m, transfer);
    };
    const text =
      (t: string, last = false) =>
      () =>
        post({ t: "projection", id, text: t, last });
    const pieces: (() => void)[] = [text(`{"eventSeq":${eventSeq},"statuses":[`)];
    for (let i = 0; i < keys.length; i += SNAPSHOT_RECORDS) {
      const from = i;
      pieces.push(() => {
        const records = packRecords(p, keys, from, Math.min(keys.length, from + SNAPSHOT_RECORDS));
        post({ t: "projection-records", id, records }, [records.bytes.buffer as ArrayBuffer]);
      });
    }
    // The records are copied: later deltas may apply.
    const released = pieces.length;
    pieces.push(text(`],"history":[`));
    for (let i = 0; i < history.size; i += SNAPSHOT_PIECE) {
      const from = i;
      pieces.push(() => {
        const json = JSON.stringify(history.slice(from, from + SNAPSHOT_PIECE)).slice(1, -1);
        text((from === 0 ? "" : ",") + json)();
      });
    }
    const pending = reschedules === undefined ? "" : `,"reschedules":${JSON.stringify(reschedules)}`;
    pieces.push(
      text(
        `],"downtimes":${JSON.stringify(downtimes)},"comments":${JSON.stringify(comments ?? [])}${pending}}`,
        true,
      ),
    );
    this.#held = [];
    let i = 0;
    const step = (): void => {
      (pieces[i++] as () => void)();
      if (i === released) this.#release();
      if (i < pieces.length) setImmediate(step);
    };
    step();
  }

  /**
   * Applies a delta DELTA_STEP records per macrotask, so that reads are answered between steps
   * instead of waiting behind a whole part (up to 4,000 records, a few milliseconds). Messages that
   * must see the delta whole are held until it is.
   */
  #applyDelta(delta: ProjectionDelta, applied: number): void {
    const step = this.#projection.applyDeltaInSteps(delta, DELTA_STEP);
    const finish = (): void => {
      if (applied > 0) this.#announce(applied);
      // Ask for the next part only after whatever else is waiting (reads) had its turn.
      setImmediate(() => this.#pull());
      this.#release();
    };
    if (step()) {
      finish();
      return;
    }
    this.#held = [];
    const run = (): void => {
      if (step()) finish();
      else setImmediate(run);
    };
    setImmediate(run);
  }

  /** Handles the messages held while the projection could not take them, in order. */
  #release(): void {
    const held = this.#held ?? [];
    this.#held = undefined;
    for (let i = 0; i < held.length; i++) {
      this.#onMessage(held[i] as FromWriter);
      // (Not narrowed: #onMessage may have started another delta in steps.)
      const again = this.#held as FromWriter[] | undefined;
      if (again !== undefined) {
        // The rest waits for it.
        again.push(...held.slice(i + 1));
        return;
      }
    }
  }

  /** Calls the visibility callbacks of every submit up to request id `applied`. */
  #announce(applied: number): void {
    // Ascending: ids are issued in call order.
    for (const id of this.#outstanding.keys()) {
      if (id > applied) break;
      this.#settled(id);
    }
    let n = 0;
    while (n < this.#visible.length && (this.#visible[n] as { id: number }).id <= applied) n++;
    if (n === 0) return;
    const due = this.#visible.slice(0, n);
    this.#visible = this.#visible.slice(n);
    for (const v of due) v.fn();
  }

  /** Counts a write as outstanding until #settled(id). */
  #outstand(id: number, touches: readonly string[] | null): void {
    this.#outstanding.set(id, touches);
    if (touches === null) this.#outstandingAny++;
    else for (const k of touches) this.#outstandingKeys.set(k, (this.#outstandingKeys.get(k) ?? 0) + 1);
  }

  /** A write is applied and visible, or will never be (refused, failed). */
  #settled(id: number): void {
    const touches = this.#outstanding.get(id);
    if (touches === undefined) return;
    this.#outstanding.delete(id);
    if (touches === null) {
      this.#outstandingAny--;
      return;
    }
    for (const k of touches) {
      const n = this.#outstandingKeys.get(k) ?? 0;
      if (n <= 1) this.#outstandingKeys.delete(k);
      else this.#outstandingKeys.set(k, n - 1);
    }
  }

  #pull(): void {
    if (this.#fatal === undefined) this.#post({ t: "pull" } satisfies ToWriter);
  }

  #settle(
    id: number,
    error?: string,
    accepted = 0,
    reason?: StoreFailure,
    described?: readonly (string | number | null)[],
  ): void {
    const w = this.#take(id);
    if (w === undefined) return;
    if (error === undefined) w.resolve(accepted, described);
    else w.reject(new StoreError(error, { reason }));
  }

  #take(id: number): Waiter | undefined {
    const w = this.#waiters.get(id);
    if (w !== undefined) this.#waiters.delete(id);
    return w;
  }

  #die(message: string): void {
    if (this.#fatal !== undefined) return;
    this.#fatal = message;
    for (const w of this.#waiters.values()) w.reject(new StoreError(message));
    this.#waiters.clear();
    for (const w of this.#trimWaiters.values()) w.reject(new StoreError(message));
    this.#trimWaiters.clear();
    this.#visible = [];
    this.#outstanding.clear();
    this.#outstandingKeys.clear();
    this.#outstandingAny = 0;
    this.#options.onFatal?.(message);
  }
}
