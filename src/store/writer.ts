import { createHash } from "node:crypto";
import type { ApplyConfigCommand, Command } from "../model/commands.js";
import { type Config, EMPTY_CONFIG } from "../model/config.js";
import type { EngineEvent, LookoutEvent } from "../model/events.js";
import { EventLog } from "./event-log.js";
import { createFold, type Fold, type FoldSnapshot } from "./fold.js";
import { decodeJson, encodeJson } from "./json-codec.js";
import { createProjection, type Projection, type ProjectionSnapshot } from "./projection.js";
import { DEFAULT_WRITER_OPTIONS, type WriterOptions } from "./protocol.js";
import type { ProjectionDelta } from "./records.js";
import type { StateMachine, StateMachineFactory } from "./state-machine.js";

interface WriterSnapshot {
  readonly config: Config;
  readonly engine: unknown;
  readonly projection: ProjectionSnapshot;
  readonly fold: FoldSnapshot;
}

interface Queued {
  readonly seq: number;
  readonly body: string;
}

/** The digest the store gives a config: sha256 of its Map-aware JSON. */
export function configDigest(config: Config): string {
  return createHash("sha256").update(encodeJson(config)).digest("hex");
}

/**
 * The single writer: owns the event log and the state machine, and keeps the writer's copy of the
 * projection. Runs in the store's worker thread (src/store/writer-worker.ts), but has no thread
 * logic itself, so tests drive it directly.
 *
 * Protocol: `enqueue` makes commands durable (one fsync per call, however many bodies); `applyPending`
 * then applies every enqueued command in order, commits the events, folds them and returns the
 * delta for readers. A crash between the two loses nothing: `open` applies what was enqueued but not
 * applied. Not thread-safe; one Writer per data directory (SQLite's lock guards against a second).
 */
export class Writer {
  readonly #log: EventLog;
  readonly #options: WriterOptions;
  #engine: StateMachine;
  #config: Config;
  readonly #projection: Projection;
  readonly #fold: Fold;
  #queue: Queued[] = [];
  #lastConfigDigest: string;
  #eventsSinceSnapshot = 0;
  #lastSnapshotAt = Date.now();
  #appliedSinceSnapshot = false;
  /** Commands re-applied to the engine and commands applied fresh while opening. */
  readonly recovered = { replayed: 0, applied: 0 };

  private constructor(log: EventLog, engines: StateMachineFactory, options: WriterOptions) {
    this.#log = log;
    this.#options = options;
    const row = log.latestSnapshot();
    if (row === undefined) {
      this.#config = EMPTY_CONFIG;
      this.#engine = engines.create();
      this.#projection = createProjection(undefined, { historyCapacity: options.historyCapacity });
      this.#fold = createFold(this.#projection);
    } else {
      const s = decodeJson<WriterSnapshot>(row.body);
      this.#config = s.config;
      this.#engine = engines.restore(s.engine, s.config);
      this.#projection = createProjection(s.projection, { historyCapacity: options.historyCapacity });
      this.#fold = createFold(this.#projection, s.fold);
    }
    this.#recover(row?.cmdSeq ?? 0);
    this.#lastConfigDigest = this.#engine.digest();
  }

  /** Opens the log in dataDir, recovers, and makes sure `config` is the config in force. */
  static open(
    dataDir: string,
    config: Config,
    at: number,
    engines: StateMachineFactory,
    options: WriterOptions = DEFAULT_WRITER_OPTIONS,
  ): Writer {
    const log = EventLog.open(dataDir);
    try {
      const w = new Writer(log, engines, options);
      const body = w.configBody(config, at);
      if (body !== undefined) w.enqueue([{ at, body }]);
      w.applyPending();
      return w;
    } catch (e) {
      log.close();
      throw e;
    }
  }

  get projection(): Projection {
    return this.#projection;
  }

  nextWakeup(): number | undefined {
    return this.#engine.nextWakeup();
  }

  /** Durably enqueues command batches (each the JSON text of a Command[]), in order, with one fsync. */
  enqueue(bodies: readonly { at: number; body: string }[]): void {
    const seqs = this.#log.enqueue(bodies);
    for (let i = 0; i < seqs.length; i++) {
      this.#queue.push({ seq: seqs[i] as number, body: (bodies[i] as { body: string }).body });
    }
  }

  /**
   * The queue body of an ApplyConfig for `config`, or undefined when that config is already the
   * last one enqueued (a restart with an unchanged file logs nothing).
   */
  configBody(config: Config, at: number): string | undefined {
    const digest = configDigest(config);
    if (digest === this.#lastConfigDigest) return undefined;
    this.#lastConfigDigest = digest;
    const cmd: ApplyConfigCommand = { type: "ApplyConfig", at, config, digest };
    return encodeJson(cmd);
  }

  /**
   * Applies every enqueued command, commits their events, folds them into the projection and returns
   * the delta (undefined when nothing changed). Afterwards takes a snapshot if one is due.
   */
  applyPending(): ProjectionDelta | undefined {
    if (this.#queue.length === 0) return undefined;
    const queue = this.#queue;
    this.#queue = [];
    const events: LookoutEvent[] = [];
    const rows: { cmdSeq: number; body: string }[] = [];
    for (const q of queue) {
      for (const cmd of decodeBody(q.body)) {
        for (const e of this.#applyOne(cmd)) {
          events.push(e);
          rows.push({ cmdSeq: q.seq, body: JSON.stringify(e) });
        }
      }
    }
    const first = this.#log.lastEventSeq() + 1;
    this.#log.recordApplied((queue[queue.length - 1] as Queued).seq, rows);
    for (let i = 0; i < events.length; i++) this.#fold.apply(events[i] as LookoutEvent, first + i);
    this.#eventsSinceSnapshot += events.length;
    this.#appliedSinceSnapshot = true;
    const delta = this.#fold.take();
    if (delta !== undefined) this.#projection.applyDelta(delta);
    this.maybeSnapshot();
    return delta;
  }

  /** Takes a snapshot if enough events or time passed since the last one. */
  maybeSnapshot(): void {
    if (
      this.#eventsSinceSnapshot >= this.#options.snapshotEveryEvents ||
      (this.#appliedSinceSnapshot && Date.now() - this.#lastSnapshotAt >= this.#options.snapshotEveryMs)
    ) {
      this.snapshot();
    }
  }

  /** Stores a snapshot of everything applied so far and drops the commands it covers. */
  snapshot(): void {
    this.applyPending();
    const cmdSeq = this.#log.appliedSeq();
    const body = encodeJson({
      config: this.#config,
      engine: this.#engine.snapshot(),
      projection: this.#projection.snapshot(),
      fold: this.#fold.snapshot(),
    } satisfies WriterSnapshot);
    this.#log.saveSnapshot({ cmdSeq, eventSeq: this.#log.lastEventSeq(), at: Date.now(), body });
    this.#log.compactCommands(cmdSeq);
    this.#eventsSinceSnapshot = 0;
    this.#appliedSinceSnapshot = false;
    this.#lastSnapshotAt = Date.now();
  }

  /** Events after seq, for tests and tools (sinks open their own reader). */
  eventsAfter(seq: number, limit?: number): { seq: number; event: LookoutEvent }[] {
    return this.#log.eventsAfter(seq, limit).map((r) => ({ seq: r.seq, event: JSON.parse(r.body) }));
  }

  close(): void {
    this.#log.close();
  }

  #applyOne(cmd: Command): readonly EngineEvent[] {
    if (cmd.type === "ApplyConfig") this.#config = cmd.config;
    try {
      return this.#engine.apply(cmd);
    } catch (e) {
      // An engine bug must not wedge the queue. Replaying the same command fails the same way, so
      // recording the failure keeps the log and a replay in step.
      return [
        { type: "CommandRejected", at: cmd.at, command: cmd.type, reason: `engine error: ${String(e)}` },
      ];
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
        for (const cmd of decodeBody(r.body)) this.#applyOne(cmd);
        this.recovered.replayed++;
        after = r.seq;
      }
      if ((rows[rows.length - 1] as { seq: number }).seq > applied) break;
    }
    // 2. Fold the logged events the projection has not seen.
    for (let after = this.#projection.eventSeq(); ; ) {
      const rows = this.#log.eventsAfter(after, 10_000);
      if (rows.length === 0) break;
      for (const r of rows) this.#fold.apply(JSON.parse(r.body) as LookoutEvent, r.seq);
      after = (rows[rows.length - 1] as { seq: number }).seq;
      const delta = this.#fold.take();
      if (delta !== undefined) this.#projection.applyDelta(delta);
    }
    // 3. Commands enqueued (acknowledged to a client) but never applied: apply them now.
    for (let after = applied; ; ) {
      const rows = this.#log.commandsAfter(after, 256);
      if (rows.length === 0) break;
      for (const r of rows) this.#queue.push({ seq: r.seq, body: r.body });
      this.recovered.applied += rows.length;
      after = (rows[rows.length - 1] as { seq: number }).seq;
      this.applyPending();
    }
  }
}

/** A queue row holds either a JSON array of commands or one ApplyConfig (Map-aware JSON). */
function decodeBody(body: string): readonly Command[] {
  if (body.startsWith("[")) return JSON.parse(body) as Command[];
  return [decodeJson<ApplyConfigCommand>(body)];
}
