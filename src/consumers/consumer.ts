import type { LoggedEvent } from "../store/index.js";

/**
 * A reader of the committed event log with a durable position of its own: the notifier, each sink.
 * The host (host.ts) offers it the events after its position, in order, and stores the position
 * it reports, so a restart neither skips nor (beyond the batch in flight) repeats its work.
 */
export interface LogConsumer {
  /** Unique and stable; the position is stored under it: "notifier", "sink:<name>". */
  readonly name: string;
  /**
   * Handles the events after the consumer's position, in log order; never called concurrently.
   * Resolves to the sequence number it is done with: the batch's last seq (all done), a smaller one
   * (partial: the rest is offered again), or the position it started from (no progress: the host
   * backs off, 1 s doubling to 30 s, and offers the same events again). A rejection counts as no
   * progress and is logged. The host stores the returned position durably once handle resolves.
   */
  handle(batch: readonly LoggedEvent[], signal: AbortSignal): Promise<number>;
  /**
   * Called when the log has nothing new for this consumer, about every `idleMs`: time-driven work
   * (renotify timers, a period that opens, the flush_interval of a partial batch). Optional.
   */
  idle?(signal: AbortSignal): Promise<void>;
  /**
   * Whether the consumer has work at all (optional; default true). While it answers false the host
   * reads nothing for it and calls neither `handle` nor `idle`: its position follows the end of the
   * log (checked and stored every `idleMs`, without reading events), so that once it answers true
   * again it starts with the events committed from then on (give or take `idleMs`), not with the
   * backlog of the time it had nothing to do. The notifier answers false while no object has a
   * notification policy.
   */
  active?(): boolean;
  /**
   * The host pauses (this server stops leading, `ConsumerHost.setActive(false)`): stop every side
   * effect of your own (timers, sends in flight) and resolve once none is left. Called alongside
   * the abort of the signal of a `handle` or `idle` in flight. Optional.
   */
  pause?(): Promise<void>;
  /**
   * The host resumes (this server leads again): reload what you keep from the state, which a new
   * leader's pull may have replaced, before the first `handle`. Optional.
   */
  resume?(): void;
}

/**
 * Where a consumer with no stored position starts: after the newest event, before the oldest one
 * retained, after a sequence number, or after the last event appended before a time (ms since the
 * epoch).
 */
export type StartAt =
  | { readonly kind: "end" }
  | { readonly kind: "oldest" }
  | { readonly kind: "seq"; readonly seq: number }
  | { readonly kind: "time"; readonly at: number };

/** How the host runs one consumer. */
export interface AddOptions {
  /** Used only when no position is stored under the consumer's name. */
  readonly start: StartAt;
  /** Most events offered per handle call (default 1,000). */
  readonly maxBatch?: number;
  /** Wait this long for `maxBatch` events before offering fewer (default 0: offer what there is). */
  readonly maxWaitMs?: number;
  /** How often `idle` is called while nothing new arrives (default 1,000 ms). */
  readonly idleMs?: number;
}

/** How far a consumer is, as /metrics and ListSinks show it. */
export interface ConsumerStatus {
  readonly name: string;
  /** The last event sequence number it finished (0: none). */
  readonly position: number;
  /** The log's last event sequence number when this was read. */
  readonly lastSeq: number;
  readonly lagEvents: number;
  /** Age of the oldest event it has not finished (0 when caught up). */
  readonly lagSeconds: number;
  /** Ms since the epoch of its last progress (0: none since start). */
  readonly lastProgressAt: number;
  /** Consecutive handle calls without progress. */
  readonly failures: number;
  /** Its oldest unfinished event is older than the log's retention: it holds the log's trimming back. */
  readonly stuck: boolean;
}

/**
 * A consumer whose loop runs on another thread (the sinks, on the sink thread): it reads the log
 * there and reports its progress through the `RemoteProgress` that `ConsumerHost.addRemote`
 * returns. The host keeps what only the main thread may: its durable position, its share of the
 * retention floor, its status, and when it runs (leader only). Calls are serialised by the host.
 */
export interface RemoteConsumer {
  readonly name: string;
  /** Runs (or runs again) the consumer from `position`: offer it the events after it. */
  run(position: number): void;
  /**
   * Stops the loop without forgetting the consumer (the host pauses: this server stops leading).
   * Resolves once it stands still, with every position it reached already reported.
   */
  pause(): Promise<void>;
  /** Stops the loop for good; resolves like `pause`. */
  stop(): Promise<void>;
  /** New events were committed. */
  wake(): void;
}

/** How a remote consumer reports its progress to the host. */
export interface RemoteProgress {
  /**
   * The consumer finished every event up to `position` (its backend acknowledged them): the host
   * stores it durably before this returns. A position at or below the current one is ignored.
   */
  advance(position: number): void;
}
