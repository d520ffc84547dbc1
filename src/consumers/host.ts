import type { Clock, TimerHandle } from "../model/clock.js";
import type { Logger } from "../model/logger.js";
import { type EventLogReader, type LoggedEvent, openEventLogReader } from "../store/index.js";
import type {
  AddOptions,
  ConsumerStatus,
  LogConsumer,
  RemoteConsumer,
  RemoteProgress,
  StartAt,
} from "./consumer.js";
import { type ConsumerState, openConsumerState } from "./consumer-state.js";

/** Retention of the event log, enforced by the host because it knows every consumer's position. */
export interface RetentionOptions {
  /** Events younger than this are kept whatever the consumers' positions (ms; 0: no trimming). */
  readonly retentionMs: number;
  /** How often the host trims (ms; default 60 s). */
  readonly everyMs?: number;
  /**
   * Drops the log's event groups at or below `floor` appended before `before`; resolves to the
   * number of events dropped (Core.trimEvents).
   */
  trim(floor: number, before: number): Promise<number>;
}

export interface ConsumerHostOptions {
  readonly dataDir: string;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly retention?: RetentionOptions;
  /** Opens the log reader (tests); default: a read-only connection to `<dataDir>/lookout.db`. */
  readonly reader?: EventLogReader;
  /** Opens the state (tests); default: `<dataDir>/consumers.db`. */
  readonly state?: ConsumerState;
  /**
   * Whether the consumers run from the start (default true). A replica that is not the leader opens
   * its host inactive and activates it once it leads (`setActive`, docs/storage.md).
   */
  readonly active?: boolean;
  /**
   * Whether to log where each consumer starts (default true). The sink thread's host does not: the
   * main thread's host, which keeps the positions, already logs it for each sink.
   */
  readonly logStarts?: boolean;
}

const BACKOFF_START_MS = 1000;
const BACKOFF_MAX_MS = 30_000;
/**
 * Decoded events the default reader keeps (about 10 rows of 1,000 results): consumers at different
 * positions near the head (the notifier, each sink) decode each row of the log once between them.
 */
const READ_CACHE_EVENTS = 10_000;

/**
 * Runs the log's consumers (the notifier, the sinks) on the main thread: each one is offered the
 * committed events after its durable position, in bounded batches with a turn of the event loop
 * between them, is woken when the writer commits new events (`notify`), backs off on its own when
 * it makes no progress (a dead backend never delays another consumer), and has its position stored
 * in `<data-dir>/consumers.db` once it reports progress. The host also trims the log: only events
 * every running consumer has finished, and only after the retention has passed; a consumer whose
 * oldest unfinished event is older than the retention is reported as stuck (log line and metric),
 * never skipped.
 *
 * Events handed to consumers may be shared between them: consumers must not mutate them.
 *
 * With a replicated log only the leader runs the consumers: `setActive(false)` pauses them all (no
 * reading, no handling, positions held, no trimming) and `setActive(true)` resumes them from the
 * positions in the state, which the new leader has just pulled from the replicated copy.
 */
export class ConsumerHost {
  /** Durable per-consumer key/value state (same file as the positions). */
  readonly state: ConsumerState;
  readonly #reader: EventLogReader;
  readonly #clock: Clock;
  readonly #logger: Logger;
  readonly #retention: RetentionOptions | undefined;
  readonly #runners = new Map<string, Running>();
  #retentionTimer: TimerHandle | undefined;
  #trimming: Promise<void> | undefined;
  #stopped = false;
  #active: boolean;
  /** The last setActive call: calls are serialised. */
  #switching: Promise<void> = Promise.resolve();

  readonly #logStarts: boolean;

  private constructor(o: ConsumerHostOptions, reader: EventLogReader, state: ConsumerState) {
    this.#reader = reader;
    this.state = state;
    this.#clock = o.clock;
    this.#logger = o.logger;
    this.#retention = o.retention;
    this.#active = o.active ?? true;
    this.#logStarts = o.logStarts ?? true;
    this.#scheduleRetention();
  }

  /** Opens the log reader and the consumers' state. The event log must exist (Core opened it). */
  static open(o: ConsumerHostOptions): ConsumerHost {
    const reader = o.reader ?? openEventLogReader(o.dataDir, { cacheEvents: READ_CACHE_EVENTS });
    const state = o.state ?? openConsumerState(o.dataDir);
    return new ConsumerHost(o, reader, state);
  }

  /**
   * Starts a consumer; its stored position wins over `o.start`. A name already running is an error.
   * On an inactive host it waits, paused, and takes its position (stored, or from `o.start`, then
   * stored) when the host is activated.
   */
  add(consumer: LogConsumer, o: AddOptions): void {
    if (this.#stopped) throw new Error("the consumer host is stopped");
    if (this.#runners.has(consumer.name)) throw new Error(`log consumer ${consumer.name} is already running`);
    const runner = new Runner(
      this,
      consumer,
      o,
      this.#active ? this.#takePosition(consumer.name, o.start) : 0,
    );
    this.#runners.set(consumer.name, runner);
    if (!this.#active) {
      runner.position = this.state.position(consumer.name) ?? 0;
      void runner.pause();
      this.#logger.info("log consumer added, paused until this server leads", { consumer: consumer.name });
    }
    runner.start();
  }

  /**
   * Registers a consumer whose loop runs on another thread (`RemoteConsumer`): the host takes its
   * position as `add` does (stored, or where `o.start` says), runs it from there while the host is
   * active, pauses and resumes it with the others, counts it for retention and status, and stores
   * the positions it reports through the returned `RemoteProgress`.
   */
  addRemote(consumer: RemoteConsumer, o: { readonly start: StartAt }): RemoteProgress {
    if (this.#stopped) throw new Error("the consumer host is stopped");
    if (this.#runners.has(consumer.name)) throw new Error(`log consumer ${consumer.name} is already running`);
    const position = this.#active
      ? this.#takePosition(consumer.name, o.start)
      : (this.state.position(consumer.name) ?? 0);
    const runner = new RemoteRunner(this, consumer, o.start, position);
    this.#runners.set(consumer.name, runner);
    if (this.#active) runner.start();
    else this.#logger.info("log consumer added, paused until this server leads", { consumer: consumer.name });
    return { advance: (p) => runner.advance(p) };
  }

  /** Whether the consumers run (see `setActive`). */
  get active(): boolean {
    return this.#active;
  }

  /**
   * Pauses (false) or resumes (true) every consumer; calls are serialised, a call that changes
   * nothing returns at once. Pausing aborts the signal of the `handle` or `idle` call in flight (a
   * sink retrying a dead backend would otherwise never return), calls each consumer's `pause`, and
   * resolves once both are done (the position a `handle` reports is stored) and no trim is running;
   * while paused the
   * host reads nothing, calls nothing, moves no position (not even an inactive consumer's, which
   * otherwise follows the end of the log) and trims nothing. Resuming reads each consumer's position
   * from the state again (it may have been replaced meanwhile, by a new leader's pull of the
   * replicated copy) before its first read; a consumer without one starts where its `start` says.
   */
  setActive(active: boolean): Promise<void> {
    const next = this.#switching.then(() => this.#switch(active));
    this.#switching = next.catch(() => {});
    return next;
  }

  async #switch(active: boolean): Promise<void> {
    if (this.#stopped || active === this.#active) return;
    this.#active = active;
    if (!active) {
      await Promise.all([...this.#runners.values()].map((r) => r.pause()));
      await this.#trimming;
      this.#logger.info("log consumers paused", { consumers: this.names() });
      return;
    }
    for (const [name, r] of this.#runners) r.resume(this.#takePosition(name, r.startAt));
    this.#logger.info("log consumers resumed", {
      consumers: this.statuses().map((s) => [s.name, s.position]),
    });
  }

  /** A consumer's stored position, or (stored now) where `start` says. */
  #takePosition(name: string, start: StartAt): number {
    const stored = this.state.position(name);
    const position = stored ?? this.#startPosition(start);
    if (stored === undefined) this.state.put(name, [], position);
    if (this.#logStarts)
      this.#logger.info("log consumer started", {
        consumer: name,
        position,
        from: stored === undefined ? start.kind : "stored",
      });
    return position;
  }

  /** Stops a consumer and waits for its batch in flight; its position and state stay stored. */
  async remove(name: string): Promise<void> {
    const r = this.#runners.get(name);
    if (r === undefined) return;
    this.#runners.delete(name);
    await r.stop();
  }

  /** Deletes a stopped consumer's position and state (a removed sink, a renamed one). */
  forget(name: string): void {
    if (this.#runners.has(name)) throw new Error(`log consumer ${name} is running`);
    this.state.forget(name);
  }

  /** The running consumers' names. */
  names(): string[] {
    return [...this.#runners.keys()];
  }

  /** Where a running consumer is, and how far behind. */
  status(name: string): ConsumerStatus | undefined {
    const r = this.#runners.get(name);
    if (r === undefined) return undefined;
    const lastSeq = this.#reader.lastSeq();
    const lagEvents = Math.max(0, lastSeq - r.position);
    const oldest = lagEvents === 0 ? undefined : this.#reader.timeOf(r.position + 1);
    const now = this.#clock.now();
    const lagSeconds = oldest === undefined ? 0 : Math.max(0, (now - oldest) / 1000);
    const retentionMs = this.#retention?.retentionMs ?? 0;
    return {
      name,
      position: r.position,
      lastSeq,
      lagEvents,
      lagSeconds,
      lastProgressAt: r.lastProgressAt,
      failures: r.failures,
      stuck: retentionMs > 0 && oldest !== undefined && oldest < now - retentionMs,
    };
  }

  /** Every running consumer's status. */
  statuses(): ConsumerStatus[] {
    return this.names().flatMap((n) => this.status(n) ?? []);
  }

  /** New events were committed: wakes the consumers waiting for them. */
  notify(): void {
    for (const r of this.#runners.values()) r.wake();
  }

  /** Stops every consumer (waiting for batches in flight) and closes the reader and the state. */
  async stop(): Promise<void> {
    if (this.#stopped) return;
    this.#stopped = true;
    this.#retentionTimer?.cancel();
    const runners = [...this.#runners.values()];
    this.#runners.clear();
    await Promise.all(runners.map((r) => r.stop()));
    await this.#trimming;
    this.#reader.close();
    this.state.close();
  }

  /** Runs retention once now (tests; normally every `everyMs`). Resolves to the events dropped. */
  async trimNow(): Promise<number> {
    const ret = this.#retention;
    // Paused: the positions are the leader's to move, and the trimming with them.
    if (ret === undefined || ret.retentionMs <= 0 || !this.#active) return 0;
    const now = this.#clock.now();
    const before = now - ret.retentionMs;
    const positions = [...this.#runners.values()].map((r) => r.position);
    const floor = positions.length === 0 ? this.#reader.lastSeq() : Math.min(...positions);
    for (const s of this.statuses()) {
      const r = this.#runners.get(s.name);
      if (r === undefined || s.stuck === r.reportedStuck) continue;
      r.reportedStuck = s.stuck;
      if (s.stuck) {
        this.#logger.warn("log consumer is behind the retention and holds the log's trimming back", {
          consumer: s.name,
          lagEvents: s.lagEvents,
          lagSeconds: Math.round(s.lagSeconds),
        });
      } else {
        this.#logger.info("log consumer is within the retention again", { consumer: s.name });
      }
    }
    const dropped = await ret.trim(floor, before);
    if (dropped > 0) this.#logger.info("event log trimmed", { events: dropped, floor });
    return dropped;
  }

  /** @internal Events after `after`, at most `limit` (the reader shares decoded rows between consumers). */
  read(after: number, limit: number): LoggedEvent[] {
    return this.#reader.eventsAfter(after, limit);
  }

  /** @internal The log's last event sequence number. */
  lastSeq(): number {
    return this.#reader.lastSeq();
  }

  /** @internal */
  get clock(): Clock {
    return this.#clock;
  }

  /** @internal */
  get logger(): Logger {
    return this.#logger;
  }

  /** @internal */
  get stopped(): boolean {
    return this.#stopped;
  }

  #startPosition(start: StartAt): number {
    switch (start.kind) {
      case "end":
        return this.#reader.lastSeq();
      case "oldest":
        return Math.max(0, this.#reader.firstSeq() - 1);
      case "seq":
        return Math.max(0, start.seq);
      case "time":
        return this.#reader.seqBefore(start.at);
      default: {
        const never: never = start;
        throw new Error(`unknown start ${JSON.stringify(never)}`);
      }
    }
  }

  #scheduleRetention(): void {
    const ret = this.#retention;
    if (ret === undefined || ret.retentionMs <= 0 || this.#stopped) return;
    this.#retentionTimer = this.#clock.setTimer(ret.everyMs ?? 60_000, () => {
      this.#trimming = this.trimNow()
        .then(() => undefined)
        .catch((e: unknown) => this.#logger.error("cannot trim the event log", { error: String(e) }))
        .finally(() => this.#scheduleRetention());
    });
  }
}

/** What the host needs of a running consumer, whether its loop runs here or on another thread. */
interface Running {
  position: number;
  readonly failures: number;
  readonly lastProgressAt: number;
  reportedStuck: boolean;
  readonly startAt: StartAt;
  wake(): void;
  pause(): Promise<void>;
  resume(position: number): void;
  stop(): Promise<void>;
}

/**
 * A consumer whose loop runs elsewhere (RemoteConsumer): the host's side of it holds the position
 * it reports and forwards start, pause, resume, stop and wake-ups.
 */
class RemoteRunner implements Running {
  position: number;
  failures = 0;
  lastProgressAt = 0;
  reportedStuck = false;
  readonly startAt: StartAt;
  readonly #host: ConsumerHost;
  readonly #consumer: RemoteConsumer;
  #running = false;
  #stopped = false;

  constructor(host: ConsumerHost, consumer: RemoteConsumer, startAt: StartAt, position: number) {
    this.#host = host;
    this.#consumer = consumer;
    this.startAt = startAt;
    this.position = position;
  }

  start(): void {
    this.#running = true;
    this.#consumer.run(this.position);
  }

  advance(position: number): void {
    // A report that crossed a stop is of a consumer the host no longer runs (and may have forgotten).
    if (this.#stopped || !Number.isFinite(position) || position <= this.position) return;
    this.position = position;
    this.lastProgressAt = this.#host.clock.now();
    this.#host.state.put(this.#consumer.name, [], position);
  }

  wake(): void {
    if (this.#running) this.#consumer.wake();
  }

  async pause(): Promise<void> {
    if (!this.#running) return;
    this.#running = false;
    await this.#consumer.pause();
  }

  resume(position: number): void {
    if (this.#running || this.#stopped) return;
    this.position = position;
    this.start();
  }

  async stop(): Promise<void> {
    if (this.#stopped) return;
    try {
      await this.#consumer.stop();
    } finally {
      this.#running = false;
      this.#stopped = true;
    }
  }
}

/** One consumer's loop: read, handle, store the position; back off without progress. */
class Runner implements Running {
  position: number;
  failures = 0;
  lastProgressAt = 0;
  reportedStuck = false;
  /** Where the consumer starts without a stored position. */
  readonly startAt: StartAt;
  readonly #host: ConsumerHost;
  readonly #consumer: LogConsumer;
  readonly #maxBatch: number;
  readonly #maxWaitMs: number;
  readonly #idleMs: number;
  readonly #abort = new AbortController();
  /** The signal `handle` and `idle` get: aborted by stop, and by pause (a new one on resume). */
  #term = new AbortController();
  #done: Promise<void> = Promise.resolve();
  #wake: (() => void) | undefined;
  #gapReportedAt = -1;
  /** Set while paused: resolved by resume (or stop). */
  #paused: { resumed: Promise<void>; resume: () => void } | undefined;
  /** Resolved when the loop next stands still at the pause (or ends). */
  #parked: { promise: Promise<void>; resolve: () => void } | undefined;
  /** Ends the sleep in progress, wakeable or not. */
  #interrupt: (() => void) | undefined;

  constructor(host: ConsumerHost, consumer: LogConsumer, o: AddOptions, position: number) {
    this.startAt = o.start;
    this.#host = host;
    this.#consumer = consumer;
    this.position = position;
    this.#maxBatch = Math.max(1, o.maxBatch ?? 1000);
    this.#maxWaitMs = Math.max(0, o.maxWaitMs ?? 0);
    this.#idleMs = Math.max(10, o.idleMs ?? 1000);
  }

  start(): void {
    this.#done = this.#loop().catch((e: unknown) => {
      this.#host.logger.error("log consumer stopped on an error", {
        consumer: this.#consumer.name,
        error: String(e),
      });
    });
  }

  wake(): void {
    const w = this.#wake;
    this.#wake = undefined;
    w?.();
  }

  async stop(): Promise<void> {
    const reason = new Error("the log consumer is stopping");
    this.#abort.abort(reason);
    this.#term.abort(reason);
    this.wake();
    this.#paused?.resume();
    await this.#done;
  }

  /** Pauses the loop; resolves once it stands still (the handle or idle call in flight finished). */
  pause(): Promise<void> {
    if (this.#paused === undefined) {
      let resume = (): void => {};
      const resumed = new Promise<void>((r) => {
        resume = r;
      });
      this.#paused = { resumed, resume };
      let resolve = (): void => {};
      const promise = new Promise<void>((r) => {
        resolve = r;
      });
      this.#parked = { promise, resolve };
    }
    this.#interrupt?.();
    // A handle that retries a dead backend until aborted (a sink) would never let the pause end.
    this.#term.abort(new Error("the log consumer is pausing"));
    const own = Promise.resolve()
      .then(() => this.#consumer.pause?.())
      .catch((e: unknown) => {
        this.#host.logger.warn("log consumer failed to pause", {
          consumer: this.#consumer.name,
          error: String(e),
        });
      });
    const parked = Promise.race([(this.#parked as { promise: Promise<void> }).promise, this.#done]);
    return Promise.all([parked, own]).then(() => undefined);
  }

  /** Resumes a paused loop from `position`. */
  resume(position: number): void {
    const p = this.#paused;
    if (p === undefined) return;
    this.position = position;
    try {
      this.#consumer.resume?.();
    } catch (e) {
      this.#host.logger.error("log consumer failed to resume", {
        consumer: this.#consumer.name,
        error: String(e),
      });
    }
    this.#paused = undefined;
    this.#parked = undefined;
    if (!this.#abort.signal.aborted) this.#term = new AbortController();
    p.resume();
  }

  async #loop(): Promise<void> {
    const signal = this.#abort.signal;
    const clock = this.#host.clock;
    const name = this.#consumer.name;
    let lastIdle = clock.now();
    let waitingSince: number | undefined;
    while (!signal.aborted) {
      const paused = this.#paused;
      if (paused !== undefined) {
        this.#parked?.resolve();
        // stop() resolves it too.
        await paused.resumed;
        lastIdle = clock.now();
        waitingSince = undefined;
        continue;
      }
      const term = this.#term.signal;
      if (this.#consumer.active?.() === false) {
        this.#follow();
        await this.#sleep(this.#idleMs, false);
        lastIdle = clock.now();
        waitingSince = undefined;
        continue;
      }
      // Waiting for a full batch: a commit that does not complete it is not worth a read.
      if (waitingSince !== undefined) {
        const left = this.#maxWaitMs - (clock.now() - waitingSince);
        const idleDue = this.#consumer.idle !== undefined && clock.now() - lastIdle >= this.#idleMs;
        if (left > 0 && !idleDue && this.#host.lastSeq() - this.position < this.#maxBatch) {
          await this.#sleep(Math.max(1, Math.min(this.#idleMs, left)), true);
          continue;
        }
      }
      const batch = this.#host.read(this.position, this.#maxBatch);
      const now = clock.now();
      if (batch.length === 0 || (batch.length < this.#maxBatch && this.#maxWaitMs > 0)) {
        if (batch.length > 0) waitingSince ??= now;
        const waited = waitingSince === undefined ? 0 : now - waitingSince;
        if (batch.length === 0 || waited < this.#maxWaitMs) {
          if (this.#consumer.idle !== undefined && now - lastIdle >= this.#idleMs) {
            lastIdle = now;
            try {
              await this.#consumer.idle(term);
            } catch (e) {
              this.#host.logger.warn("log consumer's idle work failed", { consumer: name, error: String(e) });
            }
            continue;
          }
          const until = batch.length === 0 ? this.#idleMs : Math.min(this.#idleMs, this.#maxWaitMs - waited);
          await this.#sleep(Math.max(1, until), true);
          continue;
        }
      }
      waitingSince = undefined;
      const first = (batch[0] as LoggedEvent).seq;
      if (first > this.position + 1 && this.#gapReportedAt !== this.position) {
        this.#gapReportedAt = this.position;
        this.#host.logger.warn("log consumer missed events that were trimmed before it read them", {
          consumer: name,
          from: this.position + 1,
          to: first - 1,
        });
      }
      let done = this.position;
      try {
        done = await this.#consumer.handle(batch, term);
      } catch (e) {
        if (!term.aborted)
          this.#host.logger.warn("log consumer failed a batch", { consumer: name, error: String(e) });
      }
      const last = (batch[batch.length - 1] as LoggedEvent).seq;
      if (done > this.position && Number.isFinite(done)) {
        this.position = Math.min(done, last);
        this.failures = 0;
        this.lastProgressAt = clock.now();
        this.#host.state.put(name, [], this.position);
        // A turn of the event loop between batches: reads and other consumers get their share.
        await new Promise((resolve) => setImmediate(resolve));
      } else if (!term.aborted) {
        this.failures++;
        const ms = Math.min(BACKOFF_MAX_MS, BACKOFF_START_MS * 2 ** Math.min(this.failures - 1, 10));
        await this.#sleep(ms, false);
      }
    }
  }

  /** An inactive consumer: its position moves to the end of the log, without reading events. */
  #follow(): void {
    const end = this.#host.lastSeq();
    if (end <= this.position) return;
    this.position = end;
    this.#host.state.put(this.#consumer.name, [], end);
  }

  /** Waits ms (by the host's clock), or until stopped; `wakeable`: also until new events arrive. */
  #sleep(ms: number, wakeable: boolean): Promise<void> {
    return new Promise((resolve) => {
      const signal = this.#abort.signal;
      if (signal.aborted) return resolve();
      if (this.#paused !== undefined) return resolve();
      let settled = false;
      const finish = (): void => {
        if (settled) return;
        settled = true;
        timer.cancel();
        signal.removeEventListener("abort", finish);
        if (this.#wake === finish) this.#wake = undefined;
        if (this.#interrupt === finish) this.#interrupt = undefined;
        resolve();
      };
      const timer = this.#host.clock.setTimer(ms, finish);
      signal.addEventListener("abort", finish);
      if (wakeable) this.#wake = finish;
      this.#interrupt = finish;
    });
  }
}
