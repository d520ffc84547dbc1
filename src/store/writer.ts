import { createHash } from "node:crypto";
import type { Command } from "../model/commands.js";
import type { EngineEvent, LookoutEvent } from "../model/events.js";
import type { ConfigVersionNote, ConfigVersionRow } from "./config-versions.js";
import { DiskFullError, isDiskFull } from "./errors.js";
import { type ConfigRow, type EventChunk, EventLog, type LoggedEvent } from "./event-log.js";
import { createEventRowWriter } from "./event-row.js";
import { createFold, type Fold, type FoldSnapshot } from "./fold.js";
import {
  createProjection,
  type Projection,
  type ProjectionImage,
  type ProjectionSnapshot,
} from "./projection.js";
import { DEFAULT_WRITER_OPTIONS, type Recovered, type WriterOptions } from "./protocol.js";
import type { ProjectionDelta } from "./records.js";
import type { KnownObjects, StateMachine, StateMachineFactory } from "./state-machine.js";
import { statusImageOf } from "./status-image.js";

const decoder = new TextDecoder();
/** For re-applying commands whose events are already logged. */
const ignoreEvent = (): void => {};

interface WriterSnapshot {
  /** Digest of the config in force; the config itself is in the configs table. */
  readonly configDigest: string;
  readonly engine: unknown;
  readonly projection: ProjectionSnapshot;
  readonly fold: FoldSnapshot;
}

/** An ApplyConfig as queued: the config travels by digest (see EventLog's configs table). */
interface QueuedApplyConfig {
  readonly type: "ApplyConfig";
  readonly at: number;
  readonly digest: string;
  /** Who made this config and what it changed: the config history's entry (config-versions.ts). */
  readonly note?: ConfigVersionNote;
}

interface Queued {
  readonly seq: number;
  readonly at: number;
  readonly body: string | Uint8Array;
  /** What JSON.parse(body) gives, when the submitter still has it (saves parsing it again). */
  readonly parsed?: unknown[];
}

/** A command batch to enqueue: see Writer.enqueue. */
export interface EnqueueRow {
  readonly at: number;
  readonly body: string | Uint8Array;
  /**
   * The parsed form of `body` (a JSON array), if the caller built the body from it: applied as is
   * instead of parsing the body again. The writer takes ownership (it empties it as it applies it).
   */
  readonly parsed?: unknown[];
  /** `body` as the log stores it (packBody), when the caller packed it already. */
  readonly packed?: Uint8Array;
}

/** The digest the writer gives a config when the caller has none: sha256 of the text it logs. */
function textDigest(text: string): string {
  return `sha256:${createHash("sha256").update(text).digest("hex")}`;
}

/** A config and the digest it is known by (e.g. a hash of its source document). */
interface DigestedConfig<C> {
  readonly config: C;
  readonly digest: string;
}

/** A snapshot begun by the writer, waiting for the reader's projection at the same point. */
export interface SnapshotStart {
  readonly cmdSeq: number;
  readonly eventSeq: number;
  /** Replicated: the command log position the snapshot covers (0 otherwise). */
  readonly position: number;
  /** The digest of the config in force at the snapshot. */
  readonly configDigest: string;
  /** JSON of the writer's part, an object missing its closing `}` and its `projection` member. */
  readonly prefix: string;
  /** The fold's state at the snapshot (what its status image carries, src/store/status-image.ts). */
  readonly fold: FoldSnapshot;
}

/**
 * The single writer: owns the event log and the state machine. Runs in the store's worker thread
 * (src/store/writer-thread.ts), but has no thread logic itself, so tests drive it directly.
 *
 * Protocol: `enqueue` makes commands durable (one fsync per call, however many bodies); `applyPending`
 * then applies every enqueued command in order, commits the events, folds them and returns the
 * delta for readers. A crash between the two loses nothing: `open` applies what was enqueued but not
 * applied. Not thread-safe; one Writer per data directory.
 *
 * The writer holds no projection once open: the reader's copy is the only one. A snapshot is taken
 * in two steps — `beginSnapshot` captures the engine and fold, the reader's projection at the same
 * event (a barrier in the delta stream) completes it with `finishSnapshot`.
 */
export class Writer<C = unknown> {
  readonly #log: EventLog;
  readonly #options: WriterOptions;
  readonly #engines: StateMachineFactory<C>;
  readonly #engine: StateMachine<C>;
  readonly #prepare: ((logged: unknown, at: number) => Command) | undefined;
  /** The projection while opening (recovery folds into it); handed to the reader, then dropped. */
  #boot: Projection | undefined;
  readonly #fold: Fold;
  /** Configs by digest that are known decoded: the one given to open, and the last enqueued. */
  readonly #configs = new Map<string, C>();
  /** The objects of the last config enqueued, for validating ingests; made when first asked for. */
  #known: KnownObjects | undefined;
  #configDigest: string;
  readonly #givenDigest: string;
  #queue: Queued[] = [];
  /**
   * Events applied (engine and fold moved on) but not yet recorded because the disk was full, with
   * the last command they cover: recorded first by the next applyPending. Their delta is withheld
   * until then, so the reader never shows what the log does not hold.
   */
  #unrecorded: { lastSeq: number; chunks: EventChunk[]; events: number } | undefined;
  /** Serializes and packs each command row's events as they come (applyPending). */
  readonly #row = createEventRowWriter();
  #lastConfigDigest: string;
  #eventsSinceSnapshot = 0;
  #lastSnapshotAt = Date.now();
  #appliedSinceSnapshot = false;
  /** The newest snapshot's last event when opened (0: none). */
  readonly #snapshotEventSeq: number;
  /** Commands re-applied to the engine and commands applied fresh while opening (see Recovered). */
  readonly #recovered = { replayed: 0, applied: 0 };
  /** CommandRejected events applied since takeRejected, by command type (replays not counted). */
  #rejected: Record<string, number> | undefined;
  #recoveredAfter: Pick<Recovered, "events" | "snapshot" | "snapshotError"> = { events: 0, snapshot: false };

  private constructor(
    log: EventLog,
    engines: StateMachineFactory<C>,
    options: WriterOptions,
    given: DigestedConfig<C>,
  ) {
    this.#log = log;
    this.#options = options;
    this.#engines = engines;
    this.#prepare = engines.prepare;
    this.#configs.set(given.digest, given.config);
    this.#givenDigest = given.digest;
    this.#lastConfigDigest = "";
    const row = log.latestSnapshot();
    this.#snapshotEventSeq = row?.eventSeq ?? 0;
    const limits = { historyCapacity: options.historyCapacity };
    if (row === undefined) {
      this.#engine = engines.create();
      this.#configDigest = this.#engine.digest();
      this.#boot = createProjection(undefined, limits);
      this.#fold = createFold();
    } else {
      const s = JSON.parse(row.body) as WriterSnapshot;
      this.#configDigest = s.configDigest;
      this.#engine = engines.restore(s.engine, this.#configFor(s.configDigest));
      this.#boot = createProjection(s.projection, limits);
      this.#fold = createFold(s.fold);
    }
    this.#recover(row?.cmdSeq ?? 0);
    this.#lastConfigDigest = this.#configDigest;
  }

  /**
   * Opens the log in dataDir, recovers, and makes sure `config` (as the owning thread sent it: see
   * StateMachineFactory.adopt) is the config in force, enqueuing an ApplyConfig stamped `at` when
   * it is not. Without a digest, one is computed from the text the writer logs for the config.
   */
  static open<C>(
    dataDir: string,
    config: unknown,
    at: number,
    engines: StateMachineFactory<C>,
    options: WriterOptions = DEFAULT_WRITER_OPTIONS,
    digest?: string,
    replicated = false,
    version?: ConfigVersionNote & { readonly text: string },
  ): Writer<C> {
    const log = EventLog.open(dataDir);
    try {
      if (replicated && !log.replicated()) {
        if (log.used()) {
          throw new Error(
            "it holds the log of a server that ran without replication; a replicated server starts from an empty data directory and takes its state from the command stream (docs/replication.md)",
          );
        }
        log.markReplicated(true);
      } else if (!replicated && log.replicated()) {
        // Run on its own from here: it can no longer follow the command stream.
        log.markReplicated(false);
      }
      const adopted = engines.adopt(config);
      const given = digest ?? textDigest(engines.encode(adopted));
      const w = new Writer(log, engines, options, { config: adopted, digest: given });
      // Replicated, the config is applied when it comes through the command stream, like any command.
      const c = replicated ? undefined : w.configCommand(adopted, at, given, version);
      const versions: ConfigVersionRow[] = version === undefined ? [] : [{ ...version, at }];
      if (c !== undefined) w.enqueue([c.row], [c.config], undefined, versions);
      // The history begins with the document in force when it is first kept (a log written before
      // config history, or by a server without it, runs a config the history has not seen).
      else if (versions.length > 0 && !log.hasConfigVersions()) w.enqueue([], [], undefined, versions);
      w.applyPending();
      w.#snapshotAfterRecovery();
      return w;
    } catch (e) {
      log.close();
      throw e;
    }
  }

  /** What opening recovered from the log. */
  get recovered(): Recovered {
    return { ...this.#recovered, ...this.#recoveredAfter };
  }

  /**
   * The projection recovered while opening, for the reader; the writer drops its copy. Call once,
   * before the first applyPending after open.
   */
  takeInitialProjection(): ProjectionImage {
    const p = this.#boot;
    if (p === undefined) throw new Error("the initial projection was already taken");
    this.#boot = undefined;
    return p.capture();
  }

  nextWakeup(): number | undefined {
    return this.#engine.nextWakeup();
  }

  /**
   * Durably enqueues command batches (each the UTF-8 JSON of a Command[]), in order, with one fsync,
   * together with the configs their ApplyConfig commands name.
   */
  enqueue(
    rows: readonly EnqueueRow[],
    configs: readonly ConfigRow[] = [],
    stream?: number,
    versions: readonly ConfigVersionRow[] = [],
  ): void {
    const seqs = this.#log.enqueue(rows, configs, stream, versions);
    for (let i = 0; i < seqs.length; i++) {
      const row = rows[i] as EnqueueRow;
      const seq = seqs[i] as number;
      // A row given parsed is applied from that: its text (logged now) is not kept for it.
      this.#queue.push(
        row.parsed === undefined
          ? { seq, at: row.at, body: row.body }
          : { seq, at: row.at, body: "", parsed: row.parsed },
      );
    }
  }

  /** Replicated: the command stream's position of the last group enqueued (0: none). */
  streamPosition(): number {
    return this.#log.streamPosition();
  }

  /** The digest of the config the engine runs (as of the commands applied so far). */
  configDigestInForce(): string {
    return this.#configDigest;
  }

  /**
   * Replicated: a group from the command stream named config `digest` (its ApplyConfig is enqueued
   * with it): commands published from now on are validated against it, as if enqueued here.
   */
  followConfig(digest: string): void {
    if (digest === this.#lastConfigDigest) return;
    this.#lastConfigDigest = digest;
    this.#known = undefined;
  }

  /**
   * The config that commands enqueued now are validated against: the last one enqueued (reads
   * switch to a config when it is enqueued, not when it is applied), in the machines' form.
   */
  configInForce(): C {
    return this.#configFor(this.#lastConfigDigest);
  }

  /** The objects of configInForce(): what an ingest is validated against. */
  objectsInForce(): KnownObjects {
    if (this.#known === undefined) {
      const known = this.#engines.objects(this.configInForce());
      const engine = this.#engine;
      this.#known =
        engine.passiveChecksOff === undefined
          ? known
          : {
              hasHost: (h) => known.hasHost(h),
              hasService: (h, s) => known.hasService(h, s),
              passiveChecksOff: (h, s) => engine.passiveChecksOff?.(h, s) === true,
            };
    }
    return this.#known;
  }

  /**
   * The queue row and config row of an ApplyConfig for `config` (as the owning thread sent it), or
   * undefined when that config is already the last one enqueued (a restart with an unchanged config
   * logs nothing). Without a digest, one is computed from the text logged for the config.
   */
  configCommand(
    sent: unknown,
    at: number,
    digest?: string,
    note?: ConfigVersionNote,
  ): { row: { at: number; body: string }; config: ConfigRow } | undefined {
    if (digest !== undefined && digest === this.#lastConfigDigest) return undefined;
    const config =
      (digest === undefined ? undefined : this.#configs.get(digest)) ?? this.#engines.adopt(sent);
    const body = this.#engines.encode(config);
    const d = digest ?? textDigest(body);
    if (d === this.#lastConfigDigest) return undefined;
    this.#lastConfigDigest = d;
    this.#known = undefined;
    this.#configs.set(d, config);
    const cmd: QueuedApplyConfig =
      note === undefined
        ? { type: "ApplyConfig", at, digest: d }
        : {
            type: "ApplyConfig",
            at,
            digest: d,
            note:
              note.rollbackOf === undefined
                ? { by: note.by, summary: note.summary }
                : { by: note.by, summary: note.summary, rollbackOf: note.rollbackOf },
          };
    return { row: { at, body: JSON.stringify(cmd) }, config: { digest: d, body } };
  }

  /**
   * Applies every enqueued command, commits their events, folds them into the projection and returns
   * the delta (undefined when nothing changed). Afterwards takes a snapshot if one is due.
   */
  /** The commands the engine refused since the last call, by type (for metrics); undefined: none. */
  takeRejected(): Record<string, number> | undefined {
    const r = this.#rejected;
    this.#rejected = undefined;
    return r;
  }

  applyPending(): ProjectionDelta | undefined {
    const stalled = this.#unrecorded;
    if (this.#queue.length === 0 && stalled === undefined) return undefined;
    const queue: (Queued | undefined)[] = this.#queue;
    this.#queue = [];
    const lastSeq =
      queue.length === 0 ? (stalled?.lastSeq as number) : (queue[queue.length - 1] as Queued).seq;
    const chunks: EventChunk[] = stalled?.chunks ?? [];
    // Each command is prepared just before it is applied, and its events are folded (not yet sent)
    // and serialized a few dozen at a time, then let go of: a group can hold tens of thousands of
    // results, and what lives to the end of a row or the group survives the young-generation
    // collections in between, to be promoted, marked and compacted (on V8's helper threads).
    const first = this.#log.lastEventSeq() + (stalled?.events ?? 0);
    let seq = first;
    const row = this.#row;
    for (let i = 0; i < queue.length; i++) {
      const q = queue[i] as Queued;
      queue[i] = undefined;
      this.#applyRow(q.body, q.at, q.parsed, (e) => {
        this.#fold.apply(e, ++seq);
        row.add(e);
        if (e.type === "CommandRejected") {
          this.#rejected ??= {};
          this.#rejected[e.command] = (this.#rejected[e.command] ?? 0) + 1;
        }
      });
      const count = row.count;
      if (count > 0) {
        // The events that make history entries, for the log's `history` table.
        const history = row.takeHistory();
        const body = row.take();
        chunks.push(
          history === undefined
            ? { cmdSeq: q.seq, at: q.at, count, body }
            : { cmdSeq: q.seq, at: q.at, count, body, history },
        );
      }
      this.#eventsSinceSnapshot += count;
    }
    // The fold's delta goes out only after the events are committed. A full disk keeps them for
    // the next call (the commands are durable already); any other failure stops the writer (the
    // caller reports it fatal) and the delta is never sent.
    try {
      this.#log.recordApplied(lastSeq, chunks);
    } catch (e) {
      if (!isDiskFull(e)) throw e;
      this.#unrecorded = { lastSeq, chunks, events: seq - first + (stalled?.events ?? 0) };
      throw new DiskFullError(`cannot record applied events: ${String(e)}`, { cause: e });
    }
    this.#unrecorded = undefined;
    this.#appliedSinceSnapshot = true;
    const delta = this.#fold.take();
    if (delta !== undefined) this.#boot?.applyDelta(delta);
    return delta;
  }

  /** Whether applied events wait for room on disk to be recorded (no snapshot may begin then). */
  get stalled(): boolean {
    return this.#unrecorded !== undefined;
  }

  /** Whether enough events or time passed since the last snapshot to take one. */
  snapshotDue(): boolean {
    return (
      this.#eventsSinceSnapshot >= this.#options.snapshotEveryEvents ||
      (this.#appliedSinceSnapshot && Date.now() - this.#lastSnapshotAt >= this.#options.snapshotEveryMs)
    );
  }

  /**
   * Captures the engine and the fold after everything applied so far (call applyPending first and
   * hand its delta to the reader). Complete it with the reader's projection at the same event.
   */
  beginSnapshot(): SnapshotStart {
    const fold = this.#fold.snapshot();
    const prefix = JSON.stringify({
      configDigest: this.#configDigest,
      engine: this.#engine.snapshot(),
      fold,
    } satisfies Omit<WriterSnapshot, "projection">);
    this.#eventsSinceSnapshot = 0;
    this.#appliedSinceSnapshot = false;
    this.#lastSnapshotAt = Date.now();
    return {
      cmdSeq: this.#log.appliedSeq(),
      eventSeq: this.#log.lastEventSeq(),
      position: this.#log.streamPosition(),
      configDigest: this.#configDigest,
      prefix: prefix.slice(0, -1),
      fold,
    };
  }

  /**
   * Stores the snapshot with `projection` (JSON of a ProjectionSnapshot) and, when given, its status
   * image (src/store/status-image.ts: what a kept snapshot keeps once it is no longer one of the
   * newest two) and drops the commands it covers; returns the snapshot's body (what a replicated
   * leader also publishes).
   */
  finishSnapshot(start: SnapshotStart, projection: string, image?: Uint8Array): string {
    const body = `${start.prefix},"projection":${projection}}`;
    this.#log.saveSnapshot(
      { cmdSeq: start.cmdSeq, eventSeq: start.eventSeq, at: Date.now(), body },
      this.#options.snapshotKeepEveryMs,
      image,
    );
    this.#log.compactCommands(start.cmdSeq);
    const keep = this.#options.retainEvents;
    if (keep > 0 && start.eventSeq > keep) this.#log.trimEvents(start.eventSeq - keep);
    return body;
  }

  /** A stored config's text, by digest (what a published snapshot carries with it). */
  configText(digest: string): string | undefined {
    return this.#log.config(digest);
  }

  /** Retention by age that spares what a log consumer has not read (EventLog.trimRetained). */
  trimRetained(floor: number, before: number): number {
    return this.#log.trimRetained(floor, before);
  }

  /** Events after seq, for tests and tools (sinks open their own reader). */
  eventsAfter(seq: number, limit?: number): LoggedEvent[] {
    return this.#log.eventsAfter(seq, limit);
  }

  close(): void {
    this.#log.close();
  }

  #configFor(digest: string): C {
    const known = this.#configs.get(digest);
    if (known !== undefined) return known;
    const body = this.#log.config(digest);
    if (body === undefined) throw new Error(`config ${digest} is missing from the log`);
    const config = this.#engines.decode(body);
    this.#configs.set(digest, config);
    return config;
  }

  /**
   * Applies one queue row, handing each of its events to `onEvent` as it comes. A row holds a JSON
   * array of commands — stamped with the row's `at` unless they carry their own — or one
   * ApplyConfig naming its config by digest. A number among the commands is an `at` mark: the
   * commands after it are stamped with it instead (the writer thread merges the ingests of a group,
   * each received at its own time, into one row this way).
   */
  #applyRow(
    body: string | Uint8Array,
    at: number,
    parsed: unknown[] | undefined,
    onEvent: (e: LookoutEvent) => void,
  ): void {
    let commands = parsed;
    if (commands === undefined) {
      const text = typeof body === "string" ? body : decoder.decode(body);
      if (!text.startsWith("[")) {
        for (const e of this.#applyConfig(JSON.parse(text) as QueuedApplyConfig)) onEvent(e);
        return;
      }
      commands = JSON.parse(text) as unknown[];
    }
    for (const cmd of this.#prepared(commands, at)) for (const e of this.#applyOne(cmd)) onEvent(e);
  }

  #applyConfig(q: QueuedApplyConfig): EngineEvent[] {
    const config = this.#configFor(q.digest);
    this.#configDigest = q.digest;
    // Keep decoded only the config given to open, the one in force, and the last enqueued.
    for (const d of this.#configs.keys()) {
      if (d !== this.#givenDigest && d !== q.digest && d !== this.#lastConfigDigest) this.#configs.delete(d);
    }
    try {
      return [...this.#engine.applyConfig(config, q.at, q.digest)];
    } catch (e) {
      // As for any command (#applyOne): recorded, so that the log and a replay stay in step.
      return [{ type: "CommandRejected", at: q.at, command: q.type, reason: `engine error: ${String(e)}` }];
    }
  }

  /**
   * The elements of a logged batch as commands to apply, each prepared when it is reached and let
   * go of by the batch (so a command lives only while it is applied).
   */
  *#prepared(commands: unknown[], rowAt: number): Generator<Command> {
    const prepare = this.#prepare;
    let at = rowAt;
    for (let i = 0; i < commands.length; i++) {
      const logged = commands[i];
      commands[i] = undefined;
      // An `at` mark: the elements after it were received then (ingests merged into one row).
      if (typeof logged === "number") {
        at = logged;
        continue;
      }
      if (prepare !== undefined) {
        yield prepare(logged, at);
      } else {
        (logged as { at?: number }).at ??= at;
        yield logged as Command;
      }
    }
  }

  #applyOne(cmd: Command): readonly LookoutEvent[] {
    try {
      const out = this.#engine.apply(cmd);
      // Recorded events follow whatever timers the command's time fired, as the log's order says.
      return cmd.type === "RecordEvents" ? [...out, ...cmd.events] : out;
    } catch (e) {
      // An engine bug must not wedge the queue. Replaying the same command fails the same way, so
      // recording the failure keeps the log and a replay in step.
      return [
        { type: "CommandRejected", at: cmd.at, command: cmd.type, reason: `engine error: ${String(e)}` },
      ];
    }
  }

  /**
   * A start that replayed (or applied) many events logged since the newest snapshot takes one
   * before it serves, from the projection it recovered: a server killed soon after every start
   * would otherwise never reach a snapshot, and each start would replay a longer log (a crash loop
   * that slows every restart). The bound is at least the records the projection holds, so the
   * snapshot never costs much more than the replay did. The snapshot is one SQLite transaction
   * (EventLog.saveSnapshot), so a kill during it leaves the snapshot before it in force. Failing
   * (a full disk) does not stop the start: the count carries over to snapshotEveryEvents.
   */
  #snapshotAfterRecovery(): void {
    const events = this.#log.lastEventSeq() - this.#snapshotEventSeq;
    this.#recoveredAfter = { events, snapshot: false };
    this.#eventsSinceSnapshot = events;
    const boot = this.#boot as Projection;
    const bound = this.#options.snapshotAfterReplayEvents;
    if (bound <= 0 || events < Math.max(bound, boot.size()) || this.stalled) return;
    try {
      const start = this.beginSnapshot();
      this.finishSnapshot(start, JSON.stringify(boot.snapshot()), statusImageOf(boot.capture(), start.fold));
      this.#recoveredAfter = { events, snapshot: true };
    } catch (e) {
      this.#eventsSinceSnapshot = events;
      this.#recoveredAfter = { events, snapshot: false, snapshotError: String(e) };
    }
  }

  #recover(snapshotCmdSeq: number): void {
    const applied = this.#log.appliedSeq();
    // 1. Commands the snapshot does not cover but whose events are logged: re-apply to the engine
    //    only (their events are already in the log).
    for (let after = snapshotCmdSeq; after < applied; ) {
      const rows = this.#log.commandsAfter(after, 256);
      if (rows.length === 0) break;
      for (const r of rows) {
        if (r.seq > applied) break;
        this.#applyRow(r.body, r.at, undefined, ignoreEvent);
        this.#recovered.replayed++;
        after = r.seq;
      }
      if ((rows[rows.length - 1] as { seq: number }).seq > applied) break;
    }
    // 2. Fold the logged events the projection has not seen.
    const boot = this.#boot as Projection;
    for (let after = boot.eventSeq(); ; ) {
      const rows = this.#log.eventsAfter(after, 10_000);
      if (rows.length === 0) break;
      for (const r of rows) this.#fold.apply(r.event, r.seq);
      after = (rows[rows.length - 1] as { seq: number }).seq;
      const delta = this.#fold.take();
      if (delta !== undefined) boot.applyDelta(delta);
    }
    // 3. Commands enqueued (acknowledged to a client) but never applied: apply them now.
    for (let after = applied; ; ) {
      const rows = this.#log.commandsAfter(after, 256);
      if (rows.length === 0) break;
      for (const r of rows) this.#queue.push({ seq: r.seq, at: r.at, body: r.body });
      this.#recovered.applied += rows.length;
      after = (rows[rows.length - 1] as { seq: number }).seq;
      this.applyPending();
    }
  }
}
