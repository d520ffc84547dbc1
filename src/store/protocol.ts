import type { ConfigVersionNote } from "./config-versions.js";
import type { RejectReason, StoreFailure } from "./errors.js";
import type { ProjectionImage } from "./projection.js";
import type { ProjectionDelta } from "./records.js";
import type { PackedRecords } from "./snapshot-records.js";
import type { ThreadMemory } from "./thread-memory.js";
import type { ThreadPolicy } from "./thread-priority.js";

/** Tuning of the writer; every field has a default (see DEFAULT_WRITER_OPTIONS). */
export interface WriterOptions {
  /** Take a snapshot when this many events were appended since the last one. */
  readonly snapshotEveryEvents: number;
  /** Take a snapshot when this much time (ms, writer's wall clock) passed and something was applied. */
  readonly snapshotEveryMs: number;
  /**
   * After a start that replayed or applied at least this many events logged since the newest
   * snapshot (and at least as many as the projection holds records, which is what a snapshot
   * costs), take a snapshot before serving; 0: never. Without it a server killed soon after every
   * start never reaches snapshotEveryEvents or snapshotEveryMs, and each start replays a longer log.
   */
  readonly snapshotAfterReplayEvents: number;
  /**
   * Besides the newest two (recovery), keep snapshots at least this far apart in the log's time
   * (ms), for as long as the events after them are kept: the starting points of ListStatus `at`
   * (src/store/as-of.ts; docs/storage.md, "Status as of a moment"). 0: only the newest two.
   */
  readonly snapshotKeepEveryMs: number;
  /** Newest history entries kept in the projection. */
  readonly historyCapacity: number;
  /** Largest number of status records in one delta message (bounds a reader's task length). */
  readonly deltaChunk: number;
  /**
   * Events kept in the log behind the newest snapshot (older ones are deleted when a snapshot is
   * stored); 0 keeps everything. Sinks that fall further behind lose events.
   */
  readonly retainEvents: number;
  /**
   * How the writer thread yields the CPU to the thread that serves reads (Linux; ignored
   * elsewhere), so that under full-speed ingestion reads keep their latency and writes absorb the
   * wait. `idle` (SCHED_IDLE): the writer runs on CPU time nothing else in its scheduling group
   * wants, and a read that wakes takes its CPU at once; on a machine kept busy by other work of
   * normal priority in the same group (the same cgroup, or the same terminal session) ingestion
   * then nearly stops, and every acknowledgement waits for it. `nice`: the writer at `nice`,
   * always a share. `normal`: the process's own priority. `auto`: `normal` while the writer mostly
   * waits — a commit of a few requests then runs as soon as they arrive — and `idle` for good once
   * it runs flat out (full-speed ingestion), where reads must come first (docs/storage.md, "Latency").
   */
  readonly priority: ThreadPolicy;
  /** The writer thread's nice value (0..19; 0: the process's own) under `nice`, and where SCHED_IDLE cannot be had. */
  readonly nice: number;
  /**
   * The writer thread's V8 young generation in MiB (V8 makes it three semi-spaces; 0: V8's default,
   * 48 MiB on 64-bit). The writer's garbage is short-lived — each group's commands, events and their
   * JSON — so a small young generation keeps its RSS small for a few percent more of its CPU time.
   */
  readonly youngGenerationMb: number;
  /**
   * Whether submissions that reach the writer in a wire form are decoded on a thread of the
   * writer's own, ahead of its apply (src/store/decode-ahead.ts), where the decoder offers it.
   */
  readonly decodeAhead: boolean;
}

export const DEFAULT_WRITER_OPTIONS: WriterOptions = {
  snapshotEveryEvents: 2_000_000,
  snapshotEveryMs: 5 * 60_000,
  snapshotAfterReplayEvents: 100_000,
  // Every snapshot of the 5-minute rule (snapshotEveryMs, wall clock) is at least this far from the last.
  snapshotKeepEveryMs: 4 * 60_000,
  historyCapacity: 50_000,
  deltaChunk: 500,
  // Retention is by age and by the log's consumers' positions (Store.trim, driven by app/); a count
  // cap would trim past a consumer that is behind.
  retainEvents: 0,
  priority: "idle",
  nice: 10,
  youngGenerationMb: 6,
  decodeAhead: true,
};

/** A replicated server's copy of the command log (docs/replication.md). */
export interface ReplicaStatus {
  /** Whether the command log answers. */
  readonly connected: boolean;
  /** The log's last position as last seen (0: unknown yet). */
  readonly last: number;
  /** The position of the last group applied here. */
  readonly applied: number;
  /** Why this server stopped applying the log (a group it cannot read); it never skips one. */
  readonly error?: string;
  /** Why the last snapshot this server (the leader) published failed, when it did. */
  readonly snapshotError?: string;
  /** Something the follower noticed and made good (ReplicaState.notice), logged once. */
  readonly notice?: string;
  /**
   * A write of this server's that the log acknowledged at `position` and then lost (`found` there
   * instead), and the position it was published again at, or why that failed.
   */
  readonly lost?: {
    readonly position: number;
    readonly id: string;
    readonly found: string;
    readonly republished?: number;
    readonly error?: string;
  };
}

/** What a start recovered from the log (logged as the "store opened" line). */
export interface Recovered {
  /** Command rows re-applied to the engine (their events were logged already). */
  readonly replayed: number;
  /** Command rows enqueued before the start but never applied, applied now. */
  readonly applied: number;
  /** Events logged after the newest snapshot once the start had applied everything: what it replayed or applied. */
  readonly events: number;
  /** Whether the start took a snapshot before serving (WriterOptions.snapshotAfterReplayEvents). */
  readonly snapshot: boolean;
  /** Why that snapshot failed (the start goes on; the usual policy tries again). */
  readonly snapshotError?: string;
}

/** The writer thread's memory (bytes) and CPU time (ms; undefined where the OS does not tell). */
export interface WriterStats extends ThreadMemory {
  readonly cpuMs: number | undefined;
  /** The writer's decoding thread's CPU time (ms), when it has one (WriterOptions.decodeAhead). */
  readonly decoderCpuMs?: number;
}

/** Messages from the owning thread to the writer worker. */
export type ToWriter =
  | {
      readonly t: "init";
      readonly dataDir: string;
      /** What StoreOptions.writerConfig made of the config (structured-cloned). */
      readonly config: unknown;
      readonly configDigest: string | undefined;
      /** When the config is applied, if it has to be (the owner's clock). */
      readonly at: number;
      /** The config history's entry for the config, with its text (not replicated: see Store.open). */
      readonly version?: ConfigVersionNote & { readonly text: string };
      readonly options: WriterOptions;
      /**
       * Replicated (docs/replication.md): commands go through the replicated command log, which
       * the thread opens with `options` (its ReplicatedLogFactory's); `origin` names this server's
       * groups in it (unique per start).
       */
      readonly replication?: { readonly origin: string; readonly options: unknown };
    }
  /** `body` is the UTF-8 JSON of a Command[] (commands without `at` get this `at`), transferred. */
  | { readonly t: "submit"; readonly id: number; readonly at: number; readonly body: Uint8Array }
  /**
   * A submission in a wire form, for the writer's SubmissionDecoder (`kind` says which form; `at`
   * is the owner's receive time). Answered like a submit (`acked` with how many commands, or
   * `failed`), or with `rejected` (a command was refused) or `undecoded` (the body goes back).
   */
  | {
      readonly t: "ingest";
      readonly id: number;
      readonly at: number;
      readonly kind: string;
      readonly body: Uint8Array;
    }
  /** Several ingests of one turn of the owning thread, in order; each answered as on its own. */
  | {
      readonly t: "ingests";
      readonly items: readonly {
        readonly t: "ingest";
        readonly id: number;
        readonly at: number;
        readonly kind: string;
        readonly body: Uint8Array;
      }[];
    }
  | {
      readonly t: "config";
      readonly id: number;
      readonly at: number;
      /** What StoreOptions.writerConfig made of the config (structured-cloned). */
      readonly config: unknown;
      readonly digest: string | undefined;
      /** Replicated: the config's CUE source, which travels with it to every server. */
      readonly source?: string;
      /** The config history's entry for the config, with its text (config-versions.ts). */
      readonly version?: ConfigVersionNote & { readonly text: string };
    }
  | { readonly t: "snapshot"; readonly id: number }
  /** Replicated: whether this server leads (the leader publishes its snapshots for servers that join). */
  | { readonly t: "leading"; readonly on: boolean }
  /** The reader is ready for the next delta part. */
  | { readonly t: "pull" }
  /**
   * Part of the reader's projection at barrier `id` (JSON text; the parts concatenated, with the
   * `projection-records` parts in between as JSON, form a ProjectionSnapshot). `last` marks the
   * final part.
   */
  | { readonly t: "projection"; readonly id: number; readonly text: string; readonly last: boolean }
  /**
   * Status records of the reader's projection at barrier `id`, as held (bytes transferred): the
   * writer decodes them into the snapshot's `statuses` JSON where the text parts leave room for it.
   */
  | { readonly t: "projection-records"; readonly id: number; readonly records: PackedRecords }
  /**
   * Answered at once with `stats`: the writer thread's memory and CPU time, for benchmarks and
   * metrics. `collect`: collect garbage first (under --expose-gc only; benchmarks).
   */
  | { readonly t: "stats"; readonly id: number; readonly collect: boolean }
  /** Answered with `done` once everything enqueued before it is applied and its deltas are sent. */
  | { readonly t: "sync"; readonly id: number }
  /**
   * Retention: drop the stored event groups at or below `floor` (every log consumer is past them)
   * appended before `before` (ms since the epoch). Answered with `trimmed`.
   */
  | { readonly t: "trim"; readonly id: number; readonly floor: number; readonly before: number }
  | { readonly t: "close"; readonly id: number };

/** Messages from the writer worker to the owning thread. */
export type FromWriter =
  | {
      readonly t: "ready";
      readonly projection: ProjectionImage;
      readonly nextWakeup: number | undefined;
      readonly recovered: Recovered;
    }
  /**
   * The submits/configs with these ids are durably enqueued; `accepted`, when present, holds for
   * each id how many commands its ingest decoded to (0 for other requests), and `described` what
   * its decoder says of them (SubmissionDecoder.describe), all ids in one flat array: for each id
   * the length of its description (0 for other requests), then its values.
   */
  | {
      readonly t: "acked";
      readonly ids: readonly number[];
      readonly accepted?: readonly number[];
      readonly described?: readonly (string | number | null)[];
    }
  /**
   * The ingest with this id was refused: command `index` of it, for `reason`; `detail` describes
   * the ingest (RejectedError.detail). Nothing was stored.
   */
  | {
      readonly t: "rejected";
      readonly id: number;
      readonly reason: RejectReason;
      readonly message: string;
      readonly index: number | undefined;
      readonly detail?: unknown;
    }
  /** The ingest with this id is in a form the writer does not decode; its body comes back. */
  | { readonly t: "undecoded"; readonly id: number; readonly body: Uint8Array }
  /** The submits/configs with these ids could not be enqueued; nothing of them was stored. */
  | {
      readonly t: "failed";
      readonly ids: readonly number[];
      readonly message: string;
      /** `disk_full`: nothing was enqueued because the filesystem is full. */
      readonly reason?: StoreFailure;
    }
  /**
   * The next part of what was applied (coalesced); sent in answer to a `pull`, or before a sync's
   * `done`. Once it is applied, every submit up to request id `applied` is visible (0: no news).
   */
  | { readonly t: "delta"; readonly delta: ProjectionDelta; readonly applied: number }
  /**
   * A snapshot point: every delta before it is delivered, none after. The reader answers with its
   * projection (`projection` messages) so the writer can complete the snapshot.
   */
  | { readonly t: "barrier"; readonly id: number }
  /** A group of commands is applied and its deltas are sent; the engine's next timer is due at nextWakeup. */
  | {
      readonly t: "applied";
      readonly nextWakeup: number | undefined;
      /** Commands the engine refused since the last `applied`, by command type (absent: none). */
      readonly rejected?: Readonly<Record<string, number>>;
    }
  | { readonly t: "stats"; readonly id: number; readonly stats: WriterStats }
  | { readonly t: "trimmed"; readonly id: number; readonly events: number; readonly error?: string }
  /** A snapshot, sync or close request finished. */
  | { readonly t: "done"; readonly id: number; readonly error?: string }
  /** Replicated: how this server's copy stands against the command log (about once a second). */
  | { readonly t: "replica"; readonly state: ReplicaStatus }
  /**
   * Replicated: a group of another server named config `digest` (with its CUE source, when that
   * server had it); it is applied in the log's order, like every command.
   */
  | { readonly t: "config-source"; readonly digest: string; readonly source?: string }
  /** The writer cannot go on (corrupt log, disk failure); the store is unusable. */
  | { readonly t: "fatal"; readonly message: string };
