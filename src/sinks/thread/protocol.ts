import type { SinkConfig } from "../../model/config.js";
import type { RecordedEvent } from "../../model/events.js";
import type { LogFields } from "../../model/logger.js";
import type { ThreadPolicy } from "../../store/thread-priority.js";
import type { SinkStats } from "../runner.js";

/** What the sink thread is started with (its `workerData`). */
export interface SinkThreadInit {
  /** The data directory: the event log it reads, the archive's staging files. */
  readonly dataDir: string;
  /** How the thread yields the CPU (as the store's writer); "normal": it does not. */
  readonly priority: ThreadPolicy | "normal";
  readonly nice: number;
  /** Tests: the runner's retry backoff. */
  readonly minBackoffMs?: number;
  readonly maxBackoffMs?: number;
}

/**
 * Main thread → sink thread. `start` creates a sink's transport and runner, `run` runs it from a
 * position, `pause` stops its loop (the transport stays), `stop` stops it and closes the transport;
 * each request with an `id` is answered by `done` once it is over.
 */
export type ToSinkThread =
  /** The objects' zones and labels, as encodeSinkObjects writes them. */
  | { readonly t: "objects"; readonly text: string }
  | { readonly t: "start"; readonly config: SinkConfig }
  | { readonly t: "run"; readonly name: string; readonly position: number }
  | { readonly t: "pause"; readonly name: string; readonly id: number }
  | { readonly t: "stop"; readonly name: string; readonly id: number }
  | { readonly t: "stored"; readonly name: string; readonly position: number }
  | { readonly t: "wake" }
  | { readonly t: "close"; readonly id: number };

/** A sink's counters as the thread posts them (SinkStats, whose `dropped` a post copies). */
export type PostedStats = SinkStats;

/**
 * Sink thread → main thread. `put`: a sink's backend acknowledged everything up to `position`;
 * the main thread stores it and answers `stored`. `stats` comes before each `put` and whenever the
 * counters changed. `record` appends the sinks' own events (SinkFailed, SinkFlushed, SinkDropped).
 */
export type FromSinkThread =
  | { readonly t: "put"; readonly name: string; readonly position: number }
  | { readonly t: "stats"; readonly name: string; readonly stats: PostedStats }
  | { readonly t: "record"; readonly events: RecordedEvent[] }
  | {
      readonly t: "log";
      readonly level: "debug" | "info" | "warn" | "error";
      readonly msg: string;
      readonly fields?: LogFields;
    }
  | { readonly t: "done"; readonly id: number }
  | { readonly t: "fatal"; readonly message: string };
