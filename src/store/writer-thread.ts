/**
 * The body of the writer's thread. Owns the Writer (SQLite + engine) so that neither fsyncs nor
 * engine work run on the thread that serves reads. Group commit falls out of the event loop: every
 * message that arrives while a flush runs waits in `pending`, and the next flush enqueues all of
 * them with one fsync'd transaction (the one-result ingests among them as one row) and
 * acknowledges them; a task of its own then applies them, after committing whatever arrived
 * meanwhile, so an acknowledgement waits for one commit, not for the apply of the group before.
 * Ingests in a wire form are decoded on the writer's decoding thread meanwhile (decode-ahead.ts):
 * a flush takes requests in the order they arrived, up to the first one still being decoded.
 *
 * Deltas go to the reader by pull: the reader asks for the next part when it has applied the last
 * one, and meanwhile changes coalesce in a DeltaBuffer. A busy reader thus never finds a backlog of
 * messages it would have to drain in one go. Snapshots put a barrier into that stream; the reader
 * answers it with its projection, which completes the snapshot the writer began at the barrier.
 */
import { parentPort } from "node:worker_threads";
import { type ConfigVersionRow, versionsOfRows } from "./config-versions.js";
import type { AheadAnswer } from "./decode-ahead.js";
import { createDecodeAhead, type DecodeAhead } from "./decode-ahead.js";
import { type BufferItem, createDeltaBuffer } from "./delta-buffer.js";
import { DiskFullError, isDiskFull, RejectedError } from "./errors.js";
import type { ConfigRow } from "./event-log.js";
import { EventLog } from "./event-log.js";
import { transferList } from "./packed-statuses.js";
import type { FromWriter, ReplicaStatus, ToWriter, WriterOptions } from "./protocol.js";
import type { ProjectionDelta } from "./records.js";
import {
  decodeGroup,
  decodeSnapshot,
  encodeGroup,
  encodeSnapshot,
  type LogGroup,
  LogUnavailableError,
  type PublishedSnapshot,
  type ReplicaState,
  type ReplicatedLog,
  type ReplicatedLogFactory,
} from "./replicated-log.js";
import { type PackedRecords, recordsJson } from "./snapshot-records.js";
import type { StateMachineFactory } from "./state-machine.js";
import { encodeStatusImage, type ImageFrame } from "./status-image.js";
import type { SubmissionDecoder } from "./submission.js";
import { threadCpuMs } from "./thread-cpu.js";
import { threadMemory } from "./thread-memory.js";
import { applyThreadPolicy } from "./thread-priority.js";
import { type EnqueueRow, type SnapshotStart, Writer } from "./writer.js";

/**
 * Consecutive ingests of one group, as one command row: their elements in order, each request's
 * receive time kept by an `at` mark (Writer's row format) where it differs from the one before.
 * One row instead of one per request brings what a one-result request costs the writer close to
 * what a result in a batch does: one INSERT, one JSON text and one compressed body for the
 * commands, and one for their events, per group rather than per request.
 */
interface MergedIngests {
  readonly kind: "merged";
  /**
   * Appends the elements of one ingest received at `at`: what is applied, and `text`, the JSON of
   * what is logged when it is not `elements` (those the decoding thread prepared further).
   */
  add(at: number, elements: readonly unknown[], text?: string): void;
  /** The row to enqueue (call once, at commit). */
  row(): EnqueueRow;
}

function createMergedIngests(at: number): MergedIngests {
  let lastAt = at;
  const parsed: unknown[] = [];
  /** The body's parts (JSON texts of arrays) while some ingest came with its text; else undefined. */
  let texts: string[] | undefined;
  /** Elements of `parsed` not yet among `texts`, from this index on. */
  let from = 0;
  const textOfRest = (): void => {
    if (texts !== undefined && from < parsed.length) texts.push(JSON.stringify(parsed.slice(from)));
    from = parsed.length;
  };
  return {
    kind: "merged",
    add(when, elements, text) {
      if (when !== lastAt) {
        parsed.push(when);
        lastAt = when;
      }
      if (text !== undefined) {
        texts ??= [];
        textOfRest();
        texts.push(text);
      }
      for (let i = 0; i < elements.length; i++) parsed.push(elements[i]);
      if (text !== undefined) from = parsed.length;
    },
    row: () => {
      if (texts === undefined) return { at, body: JSON.stringify(parsed), parsed };
      textOfRest();
      return { at, body: joinArrays(texts), parsed };
    },
  };
}

/** The JSON text of the concatenation of arrays given as JSON texts (`[1,2]`, `[]`, `[3]`: `[1,2,3]`). */
function joinArrays(texts: readonly string[]): string {
  let body = "";
  for (const t of texts) {
    if (t.length <= 2) continue;
    body += body === "" ? t.slice(0, -1) : `,${t.slice(1, -1)}`;
  }
  return body === "" ? "[]" : `${body}]`;
}

/**
 * How many requests decoded (or not to decode) a flush takes while the decoding thread still works
 * on later ones; fewer wait for it to catch up (see takeReady).
 */
const READY_ENOUGH = 64;

/** The smallest body the decoding thread decodes; the writer decodes smaller ones itself. */
const AHEAD_MIN_BYTES = 2048;

/** How long a replica's start waits for the command log before it serves what it has. */
const START_REACH_MS = 10_000;

/** How long a write waits for a command log not reached yet (a start, NATS down) before it fails. */
const UNREACHED_LOG_WAIT_MS = 10_000;

/** How often a writer whose events wait for room on disk tries to record them again. */
const DISK_FULL_RETRY_MS = 250;

type Pending = Extract<ToWriter, { t: "submit" | "ingest" | "config" | "sync" | "snapshot" | "close" }>;

interface Snapshotting {
  readonly id: number;
  readonly start: SnapshotStart;
  readonly parts: string[];
  /** Status records among the parts so far. */
  records: number;
  /** The records as the reader sent them, for the snapshot's status image. */
  readonly packed: PackedRecords[];
  /** Request ids to answer with `done` when the snapshot is stored. */
  readonly waiters: number[];
  closeAfter: boolean;
}

/**
 * Runs the writer in the current worker thread with the given state machines, answering the
 * messages of Store (src/store/store.ts). The worker's entry module (which picks the engine and the
 * decoder of submissions that arrive in a wire form) calls this once. Without a decoder every
 * such submission goes back undecoded.
 */
export function runWriterThread<C>(
  engines: StateMachineFactory<C>,
  submissions?: SubmissionDecoder,
  replicatedLog?: ReplicatedLogFactory,
): void {
  const port = parentPort;
  if (port === null) throw new Error("the writer must run in a worker thread");
  let writer: Writer<C> | undefined;
  let options: WriterOptions | undefined;
  let pending: Pending[] = [];
  let scheduled = false;
  let closed = false;
  const buffer = createDeltaBuffer();
  let readerWaiting = false;
  let snap: Snapshotting | undefined;
  let nextBarrier = 1;
  /**
   * While a full disk holds applied events back: the last request id they cover (made visible once
   * they are recorded), and the timer that tries again.
   */
  let heldAppliedId = 0;
  let retry: ReturnType<typeof setTimeout> | undefined;
  /** The last request id enqueued and not yet applied (0: none): applyPending applies up to it. */
  let enqueuedId = 0;
  /** The task that applies what the last flush enqueued, while it is due. */
  let applyTask: ReturnType<typeof setImmediate> | undefined;

  const post = (m: FromWriter, transfer?: ArrayBuffer[]): void => port.postMessage(m, transfer);
  const deltaChunk = (): number => options?.deltaChunk ?? 500;
  /** Replicated (docs/replication.md): the command log; undefined while not (yet) reached. */
  let replication: Replication | undefined;
  /** Replicated: whether this server leads (it publishes its snapshots). */
  let leading = false;
  /** The decoding thread, once started (with the first batch: sendAhead). */
  let ahead: DecodeAhead | undefined;
  /** Whether the decoder has a decoding thread and the options want it (until close). */
  let aheadAllowed = false;

  port.on("message", (m: ToWriter) => {
    switch (m.t) {
      case "init":
        if (m.replication !== undefined) {
          void initReplicated(m, m.replication);
          return;
        }
        try {
          options = m.options;
          applyThreadPolicy(m.options.priority, m.options.nice);
          writer = Writer.open(
            m.dataDir,
            m.config,
            m.at,
            engines,
            m.options,
            m.configDigest,
            false,
            m.version,
          );
          aheadAllowed = submissions?.ahead !== undefined && m.options.decodeAhead;
          post({
            t: "ready",
            projection: writer.takeInitialProjection(),
            nextWakeup: writer.nextWakeup(),
            recovered: writer.recovered,
          });
        } catch (e) {
          post({ t: "fatal", message: `cannot open the event log in ${m.dataDir}: ${String(e)}` });
        }
        return;
      case "leading":
        leading = m.on;
        return;
      case "stats": {
        const cpuMs = threadCpuMs();
        const stats = { ...threadMemory(m.collect), cpuMs };
        if (ahead === undefined) post({ t: "stats", id: m.id, stats });
        else
          void ahead.cpuMs().then((decoderCpuMs) =>
            post({
              t: "stats",
              id: m.id,
              stats: decoderCpuMs === undefined ? stats : { ...stats, decoderCpuMs },
            }),
          );
        return;
      }
      case "trim": {
        // Between the writer's tasks, so never inside a group's transaction.
        try {
          const events = writer === undefined ? 0 : writer.trimRetained(m.floor, m.before);
          post({ t: "trimmed", id: m.id, events });
        } catch (e) {
          post({ t: "trimmed", id: m.id, events: 0, error: String(e) });
        }
        return;
      }
      case "pull":
        readerWaiting = true;
        pump();
        return;
      case "projection":
        onProjectionPart(m.id, m.text, m.last);
        return;
      case "projection-records":
        onProjectionRecords(m.id, m.records);
        return;
      case "ingests":
        for (const item of m.items) {
          sendAhead(item);
          pending.push(item);
        }
        if (!scheduled) {
          scheduled = true;
          setImmediate(flush);
        }
        return;
      default:
        if (m.t === "ingest") sendAhead(m);
        pending.push(m);
        if (!scheduled) {
          scheduled = true;
          setImmediate(flush);
        }
    }
  });

  /**
   * Opens a replica: reaches the command log (for a while: a server that cannot reach it serves
   * what it has and follows once it can), and when this server's copy is behind what the log
   * keeps, starts from the newest published snapshot instead (a server that joins with an empty
   * data directory, or one that was down past the log's retention).
   */
  async function initReplicated(
    m: Extract<ToWriter, { t: "init" }>,
    r: { readonly origin: string; readonly options: unknown },
  ): Promise<void> {
    try {
      options = m.options;
      applyThreadPolicy(m.options.priority, m.options.nice);
      if (replicatedLog === undefined) throw new Error("this build has no replicated command log");
      let log: ReplicatedLog | undefined;
      try {
        log = await Promise.race([
          replicatedLog(r.options),
          new Promise<never>((_, reject) =>
            setTimeout(() => reject(new Error("the command log did not answer")), START_REACH_MS),
          ),
        ]);
      } catch {
        log = undefined;
      }
      if (log !== undefined) await takeSnapshotIfBehind(m.dataDir, log);
      const w = Writer.open(m.dataDir, m.config, m.at, engines, m.options, m.configDigest, true);
      writer = w;
      aheadAllowed = submissions?.ahead !== undefined && m.options.decodeAhead;
      replication = startReplication(w, r.origin, r.options, replicatedLog, log);
      post({
        t: "ready",
        projection: w.takeInitialProjection(),
        nextWakeup: w.nextWakeup(),
        recovered: w.recovered,
      });
    } catch (e) {
      post({ t: "fatal", message: `cannot open the event log in ${m.dataDir}: ${String(e)}` });
    }
  }

  /** Installs the newest published snapshot when this copy's position is behind the log's first. */
  async function takeSnapshotIfBehind(dataDir: string, log: ReplicatedLog): Promise<void> {
    const local = EventLog.open(dataDir);
    try {
      if (local.used() && !local.replicated()) return; // Writer.open says why it is refused.
      const position = local.streamPosition();
      const first = await log.firstPosition();
      if (first <= position + 1) return;
      const bytes = await log.latestSnapshot();
      if (bytes === undefined) return; // The follower stops with a clear error.
      const s = decodeSnapshot(bytes);
      if (s.position <= position || s.position + 1 < first) return;
      local.markReplicated(true);
      local.installSnapshot({
        body: s.body,
        eventSeq: s.eventSeq,
        position: s.position,
        config: { digest: s.configDigest, body: s.config },
      });
    } finally {
      local.close();
    }
  }

  function flush(): void {
    scheduled = false;
    const w = writer;
    if (w === undefined || closed) return;
    const batch = takeReady();
    if (batch.length === 0) return;
    let rows: (EnqueueRow | MergedIngests)[] = [];
    let configs: ConfigRow[] = [];
    /** Replicated: the CUE sources of the configs, which travel with them. */
    let sources: { digest: string; source: string }[] = [];
    /** The config history's entries of the group's ApplyConfig rows (replicated: made on materialising). */
    let versions: ConfigVersionRow[] = [];
    /**
     * The row the ingests of this group go into while nothing else comes between them: one log
     * row, one set of events, however many requests (createMergedIngests). Its body is written at commit.
     */
    let merged: MergedIngests | undefined;
    let ids: number[] = [];
    /** Per id, how many commands an ingest decoded to; undefined while the group has no ingest. */
    let accepted: number[] | undefined;
    /**
     * Per id, what the decoder said of an ingest: its length, then its values (see the "acked"
     * message); undefined while no ingest was described.
     */
    let described: (string | number | null)[] | undefined;
    const commit = (): void => {
      if (ids.length === 0) return;
      merged = undefined;
      if (replication !== undefined) {
        replication.publish(
          rows.map((r) => ("kind" in r ? r.row() : r)),
          configs,
          sources,
          { ids, accepted, described },
        );
        rows = [];
        configs = [];
        sources = [];
        versions = [];
        ids = [];
        accepted = undefined;
        described = undefined;
        return;
      }
      try {
        w.enqueue(
          rows.map((r) => ("kind" in r ? r.row() : r)),
          configs,
          undefined,
          versions,
        );
        post({
          t: "acked",
          ids,
          ...(accepted === undefined ? {} : { accepted }),
          ...(described === undefined ? {} : { described }),
        });
        enqueuedId = ids[ids.length - 1] as number;
      } catch (e) {
        post({
          t: "failed",
          ids,
          message: String(e),
          ...(isDiskFull(e) ? { reason: "disk_full" as const } : {}),
        });
      }
      rows = [];
      configs = [];
      versions = [];
      ids = [];
      accepted = undefined;
      described = undefined;
    };
    const apply = (): boolean => applyEnqueued(w);
    const admit = (id: number, count: number, description?: readonly (string | number | null)[]): void => {
      if (accepted === undefined && count > 0) accepted = ids.map(() => 0);
      if (described === undefined && description !== undefined) described = ids.map(() => 0);
      ids.push(id);
      accepted?.push(count);
      if (described !== undefined) {
        if (description === undefined) described.push(0);
        else described.push(description.length, ...description);
      }
    };
    try {
      for (const m of batch) {
        switch (m.t) {
          case "submit":
            merged = undefined;
            rows.push({ at: m.at, body: m.body });
            admit(m.id, 0);
            break;
          case "ingest": {
            const decoded = decodeIngest(w, m);
            if (decoded?.packed !== undefined && decoded.text !== undefined) {
              // A batch the decoding thread packed: a row of its own, as it is.
              merged = undefined;
              rows.push({ at: m.at, body: decoded.text, packed: decoded.packed, parsed: decoded.elements });
              admit(m.id, decoded.elements.length, submissions?.describe?.(m.kind, decoded.elements));
            } else if (decoded !== undefined) {
              const logged = decoded.elements;
              if (merged === undefined) {
                merged = createMergedIngests(m.at);
                rows.push(merged);
              }
              merged.add(m.at, logged, decoded.text);
              admit(m.id, logged.length, submissions?.describe?.(m.kind, logged));
            }
            break;
          }
          case "config": {
            merged = undefined;
            const c = w.configCommand(m.config, m.at, m.digest, m.version);
            if (c !== undefined) {
              rows.push(c.row);
              configs.push(c.config);
              if (m.source !== undefined) sources.push({ digest: c.config.digest, source: m.source });
              if (m.version !== undefined && replication === undefined) {
                const { by, summary, rollbackOf, text } = m.version;
                versions.push({
                  by,
                  summary,
                  ...(rollbackOf === undefined ? {} : { rollbackOf }),
                  at: m.at,
                  text,
                });
              }
            }
            admit(m.id, 0);
            break;
          }
          case "sync":
            commit();
            if (replication !== undefined) {
              const id = m.id;
              void replication.settled().then((error) => {
                if (closed) return;
                if (error !== undefined || !apply()) {
                  post({
                    t: "done",
                    id,
                    error: error ?? "the disk is full: applied events wait to be recorded",
                  });
                  return;
                }
                drain();
                post(appliedMessage(w));
                post({ t: "done", id });
              });
              break;
            }
            if (!apply()) {
              post({ t: "done", id: m.id, error: "the disk is full: applied events wait to be recorded" });
              break;
            }
            drain();
            // The next wakeup before the answer: a caller that syncs, then moves its clock, finds the
            // engine's timer already scheduled.
            post(appliedMessage(w));
            post({ t: "done", id: m.id });
            break;
          case "snapshot":
            commit();
            if (apply()) startSnapshot(w, m.id);
            else post({ t: "done", id: m.id, error: "the disk is full: no snapshot" });
            break;
          case "close":
            commit();
            ahead?.close();
            ahead = undefined;
            aheadAllowed = false;
            if (replication !== undefined) {
              // What was published is acknowledged or refused first; what the log holds of this
              // server's and others' is applied; then the snapshot, as without replication.
              const r = replication;
              const id = m.id;
              replication = undefined;
              pending = [];
              void r.close().then(() => {
                if (!apply()) {
                  w.close();
                  closed = true;
                  post({ t: "done", id });
                  return;
                }
                startSnapshot(w, id).closeAfter = true;
              });
              return;
            }
            if (!apply()) {
              // The commands are durable; their events are applied again on the next start.
              if (retry !== undefined) clearTimeout(retry);
              w.close();
              closed = true;
              post({ t: "done", id: m.id });
              pending = [];
              return;
            }
            startSnapshot(w, m.id).closeAfter = true;
            // Nothing after close is served; the snapshot's completion closes the log.
            pending = [];
            return;
          default: {
            const never: never = m;
            throw new Error(`unknown message ${String(never)}`);
          }
        }
      }
      commit();
      // The group is applied in a task of its own: requests that reach this thread while the group
      // was committed are committed (and acknowledged) before it is applied, not after.
      applyTask ??= setImmediate(applyGroup);
    } catch (e) {
      post({ t: "fatal", message: `writer failed: ${String(e)}` });
      closed = true;
    }
  }

  /** Replicated: the command log as this thread uses it (see startReplication). */
  interface Replication {
    /** Publishes a group's rows; answers its requests once the log stored it (or could not). */
    publish(
      rows: readonly EnqueueRow[],
      configs: readonly ConfigRow[],
      sources: readonly { digest: string; source: string }[],
      requests: {
        ids: number[];
        accepted: number[] | undefined;
        described: (string | number | null)[] | undefined;
      },
    ): void;
    /**
     * Resolves once every publish made so far is answered and what the log stored of them is
     * applied here (an error when that cannot be had in time).
     */
    settled(): Promise<string | undefined>;
    /** Everything materialised is applied: answers the settled() waiting for it. */
    onApplied(): void;
    /** Publishes a snapshot stored here, for servers that join (the leader's). */
    publishSnapshot(snapshot: PublishedSnapshot): void;
    close(): Promise<void>;
  }

  /**
   * Opens the command log (again every 2 s until it answers), follows it from this server's
   * position, and materialises each group: enqueued in the SQLite log with its position, in one
   * transaction per turn's groups, then applied like local commands. This server's own requests
   * become visible when their group comes back through the log.
   */
  function startReplication(
    w: Writer<C>,
    origin: string,
    logOptions: unknown,
    factory: ReplicatedLogFactory,
    opened?: ReplicatedLog,
  ): Replication {
    let log: ReplicatedLog | undefined;
    let stopping = false;
    let groupNo = 0;
    /** Own groups published and not yet back through the log: their last request id. */
    const published = new Map<number, number>();
    const inflight = new Set<Promise<void>>();
    /** The highest position the log gave one of this server's publishes. */
    let publishedUpTo = 0;
    /**
     * Own groups the log acknowledged at a position and that have not come back through it yet, by
     * that position: when the follower passes the position with another group there (or none), the
     * log lost a write it had acknowledged, and it is published again (see `lostAcknowledged`).
     */
    const awaited = new Map<number, { readonly n: number; readonly bytes: Uint8Array }>();
    let applied = w.streamPosition();
    const reached: { position: number; resolve: () => void }[] = [];
    let incoming: { position: number; group: LogGroup }[] = [];
    let materialising: Promise<void> | undefined;
    let state: ReplicaState = { connected: false, last: 0 };
    let snapshotPublishing = false;
    const encoder = new TextEncoder();
    const textOf = new TextDecoder();

    const status = (): ReplicaStatus => ({
      connected: state.connected,
      last: state.last,
      applied,
      ...(state.error === undefined ? {} : { error: state.error }),
    });
    const report = (): void => {
      post({ t: "replica", state: status() });
    };
    /** Publishes wait for the log to be reached, within their budget. */
    let reachedLog: () => void = () => {};
    const logReached = new Promise<void>((resolve) => {
      reachedLog = resolve;
    });
    const open = async (): Promise<void> => {
      while (!stopping && log === undefined) {
        try {
          log = opened ?? (await factory(logOptions));
        } catch (e) {
          state = { connected: false, last: state.last, error: `cannot reach the command log: ${String(e)}` };
          report();
          await new Promise((r) => setTimeout(r, 2_000));
          continue;
        }
        if (stopping) {
          await log.close();
          return;
        }
        state = { connected: true, last: state.last };
        reachedLog();
        log.follow(
          applied,
          (position, bytes) => {
            incoming.push({ position, group: decodeGroup(bytes) });
            materialising ??= new Promise<void>((resolve) => setImmediate(resolve)).then(materialise);
            // Room for a few hundred groups between transactions; beyond that the log waits.
            return incoming.length >= 256 ? materialising : undefined;
          },
          (s) => {
            if (s.notice !== undefined) {
              const { notice, ...rest } = s;
              state = rest;
              post({ t: "replica", state: { ...status(), notice } });
              return;
            }
            state = s;
            report();
          },
        );
      }
    };
    void open();

    /** Enqueues the groups received since the last turn, then applies them. */
    const materialise = (): void => {
      materialising = undefined;
      const items = incoming;
      incoming = [];
      if (items.length === 0 || closed) return;
      const rows: EnqueueRow[] = [];
      const configs: ConfigRow[] = [];
      const versions: ConfigVersionRow[] = [];
      for (const { group } of items) {
        for (const r of group.rows) rows.push({ at: r.at, body: r.body });
        for (const c of group.configs) configs.push({ digest: c.digest, body: textOf.decode(c.body) });
        // Every server records the versions of the log's configs, in the log's order.
        if (group.configs.length > 0) {
          versions.push(
            ...versionsOfRows(group.rows, (digest) => {
              const s = group.sources.find((x) => x.digest === digest);
              return s === undefined ? undefined : textOf.decode(s.body);
            }),
          );
        }
      }
      const last = (items[items.length - 1] as { position: number }).position;
      if (awaited.size > 0) checkAwaited(items, last);
      try {
        w.enqueue(rows, configs, last, versions);
      } catch (e) {
        if (!isDiskFull(e)) {
          post({ t: "fatal", message: `writer failed: ${String(e)}` });
          closed = true;
          return;
        }
        // Kept, and tried again: the log waits meanwhile (its deliveries await this).
        incoming = [...items, ...incoming];
        materialising = new Promise<void>((resolve) => setTimeout(resolve, DISK_FULL_RETRY_MS)).then(
          materialise,
        );
        return;
      }
      for (const { group } of items) {
        for (const c of group.configs) w.followConfig(c.digest);
        if (group.origin === origin) {
          const id = published.get(group.n);
          if (id !== undefined) {
            published.delete(group.n);
            if (id > enqueuedId) enqueuedId = id;
          }
        } else {
          for (const c of group.configs) {
            const source = group.sources.find((s) => s.digest === c.digest);
            post(
              source === undefined
                ? { t: "config-source", digest: c.digest }
                : { t: "config-source", digest: c.digest, source: textOf.decode(source.body) },
            );
          }
        }
      }
      applied = last;
      applyTask ??= setImmediate(applyGroup);
    };

    /**
     * Every own group acknowledged at a position the follower has now passed came back there; one
     * that did not was lost by the log after its acknowledgement (a quorum of nodes that lost
     * state, seen with nats-server 2.9 after SIGKILLed nodes returned). Its client was told it is
     * stored, so it is published again under the same id (a log that still has it answers with its
     * position instead of storing it twice), and said so in the log.
     */
    const checkAwaited = (items: readonly { position: number; group: LogGroup }[], last: number): void => {
      for (const { position, group } of items) {
        const mine = awaited.get(position);
        if (mine === undefined) continue;
        awaited.delete(position);
        if (group.origin !== origin || group.n !== mine.n) {
          lostAcknowledged(position, mine, `${group.origin}-${group.n}`);
        }
      }
      for (const [position, mine] of awaited) {
        if (position > last) continue;
        awaited.delete(position);
        lostAcknowledged(position, mine, "nothing");
      }
    };
    const lostAcknowledged = (
      position: number,
      mine: { n: number; bytes: Uint8Array },
      found: string,
    ): void => {
      const current = log;
      const lost = { position, id: `${origin}-${mine.n}`, found };
      const p = (
        current === undefined
          ? Promise.reject(new Error("the log is closed"))
          : current.publish(lost.id, mine.bytes)
      ).then(
        (to) => {
          if (!published.has(mine.n) || to > applied) {
            // Watched for again, unless it already came back.
            if (published.has(mine.n)) awaited.set(to, mine);
            post({ t: "replica", state: { ...status(), lost: { ...lost, republished: to } } });
            return;
          }
          // The log has it at a position this server passed without it: not applied here.
          post({
            t: "replica",
            state: {
              ...status(),
              lost: {
                ...lost,
                error: `the log has it at position ${to}, which this server passed without applying it`,
              },
            },
          });
        },
        (e: unknown) => {
          post({ t: "replica", state: { ...status(), lost: { ...lost, error: String(e) } } });
        },
      );
      inflight.add(p);
      void p.finally(() => inflight.delete(p));
    };
    return {
      publish(rows, configs, sources, requests) {
        const { ids, accepted, described } = requests;
        const lastId = ids[ids.length - 1] as number;
        const acked: FromWriter = {
          t: "acked",
          ids,
          ...(accepted === undefined ? {} : { accepted }),
          ...(described === undefined ? {} : { described }),
        };
        if (rows.length === 0) {
          // Nothing for the log (a config already in force): answered at once, and visible with
          // the newest group in flight (ids are announced in order), or at once when none is.
          post(acked);
          if (published.size > 0) {
            let newest = 0;
            for (const k of published.keys()) if (k > newest) newest = k;
            published.set(newest, Math.max(published.get(newest) ?? 0, lastId));
            return;
          }
          if (lastId > enqueuedId) enqueuedId = lastId;
          applyTask ??= setImmediate(applyGroup);
          return;
        }
        const n = ++groupNo;
        const bytes = encodeGroup({
          origin,
          n,
          rows: rows.map((r) => ({
            at: r.at,
            body: typeof r.body === "string" ? encoder.encode(r.body) : r.body,
          })),
          configs: configs.map((c) => ({ digest: c.digest, body: encoder.encode(c.body) })),
          sources: sources.map((s) => ({ digest: s.digest, body: encoder.encode(s.source) })),
        });
        published.set(n, lastId);
        const p: Promise<void> = (
          log !== undefined
            ? log.publish(`${origin}-${n}`, bytes)
            : Promise.race([
                logReached.then(() => (log as ReplicatedLog).publish(`${origin}-${n}`, bytes)),
                new Promise<number>((_, reject) =>
                  setTimeout(
                    () => reject(new LogUnavailableError("the command log cannot be reached")),
                    UNREACHED_LOG_WAIT_MS,
                  ),
                ),
              ])
        ).then(
          (position) => {
            if (position > publishedUpTo) publishedUpTo = position;
            if (published.has(n)) {
              // Not back through the log yet: watched for until it is (or the log lost it).
              if (position <= applied) lostAcknowledged(position, { n, bytes }, "nothing");
              else awaited.set(position, { n, bytes });
            }
            post(acked);
          },
          (e: unknown) => {
            published.delete(n);
            post({
              t: "failed",
              ids,
              message: String(e instanceof Error ? e.message : e),
              reason: e instanceof LogUnavailableError ? "unavailable" : "failed",
            });
          },
        );
        inflight.add(p);
        void p.finally(() => inflight.delete(p));
      },
      async settled() {
        await Promise.allSettled([...inflight]);
        const want = publishedUpTo;
        if (applied >= want) return undefined;
        const ok = await new Promise<boolean>((resolve) => {
          const timer = setTimeout(() => resolve(false), 30_000);
          reached.push({
            position: want,
            resolve: () => {
              clearTimeout(timer);
              resolve(true);
            },
          });
        });
        return ok ? undefined : "this server's writes did not come back through the command log in 30 s";
      },
      publishSnapshot(snapshot) {
        const current = log;
        if (current === undefined || snapshotPublishing) return;
        snapshotPublishing = true;
        current
          .publishSnapshot(snapshot.position, encodeSnapshot(snapshot))
          .catch((e: unknown) => {
            post({
              t: "replica",
              state: { connected: state.connected, last: state.last, applied, snapshotError: String(e) },
            });
          })
          .finally(() => {
            snapshotPublishing = false;
          });
      },
      onApplied() {
        for (let i = 0; i < reached.length; ) {
          const r = reached[i] as { position: number; resolve: () => void };
          if (r.position <= applied) {
            reached.splice(i, 1);
            r.resolve();
          } else i++;
        }
      },
      async close() {
        await Promise.allSettled([...inflight]);
        stopping = true;
        if (materialising !== undefined) await materialising;
        await log?.close();
      },
    };
  }

  /**
   * Answers a submission its decoder refused: `rejected` with the reason for a RejectedError, else
   * `failed` (a decoder bug fails this request, not the writer).
   */
  function refuseUndecodable(id: number, e: unknown): void {
    if (e instanceof RejectedError) {
      post({
        t: "rejected",
        id,
        reason: e.reason,
        message: e.message,
        index: e.index,
        ...(e.detail === undefined ? {} : { detail: e.detail }),
      });
    } else {
      post({ t: "failed", ids: [id], message: `cannot decode the submission: ${String(e)}` });
    }
  }

  /**
   * Commits what arrived since the last flush, then applies everything enqueued, sends its delta
   * and the engine's next wakeup, and begins a snapshot when one is due.
   */
  function applyGroup(): void {
    applyTask = undefined;
    if (pending.length > 0 && !scheduled) {
      flush();
      // That flush applied what it needed to (a sync or snapshot) or left the rest to here.
      if (applyTask !== undefined) clearImmediate(applyTask);
      applyTask = undefined;
    }
    const w = writer;
    if (w === undefined || closed) return;
    try {
      const ok = applyEnqueued(w);
      if (ok) replication?.onApplied();
      if (ok && snap === undefined && w.snapshotDue()) startSnapshot(w);
      post(appliedMessage(w));
    } catch (e) {
      post({ t: "fatal", message: `writer failed: ${String(e)}` });
      closed = true;
    }
  }

  /**
   * Applies what is enqueued and sends the delta; false while a full disk holds the events back
   * (they stay in the writer, a retry is set, and the requests they cover stay invisible).
   */
  function applyEnqueued(w: Writer<C>): boolean {
    try {
      sendDelta(w.applyPending(), Math.max(enqueuedId, heldAppliedId));
      heldAppliedId = 0;
      enqueuedId = 0;
      return true;
    } catch (e) {
      if (!(e instanceof DiskFullError)) throw e;
      heldAppliedId = Math.max(enqueuedId, heldAppliedId);
      enqueuedId = 0;
      retry ??= setTimeout(() => {
        retry = undefined;
        if (!scheduled) {
          scheduled = true;
          setImmediate(flush);
        }
      }, DISK_FULL_RETRY_MS);
      return false;
    }
  }

  /**
   * The logged elements of an ingest, validated against the config in force at its place in the
   * queue; undefined when it was answered instead (refused, not decodable here, or the decoder failed).
   */
  function decodeIngest(
    w: Writer<C>,
    m: Extract<Pending, { t: "ingest" }>,
  ): { elements: unknown[]; text?: string; packed?: Uint8Array } | undefined {
    const answer = ahead?.take(m.id);
    if (answer !== undefined) return admitAhead(w, m, answer);
    let logged: unknown[] | undefined;
    try {
      logged = submissions?.decode(m.kind, m.body, m.at, w.objectsInForce());
    } catch (e) {
      refuseUndecodable(m.id, e);
      return undefined;
    }
    if (logged === undefined) {
      post({ t: "undecoded", id: m.id, body: m.body }, [m.body.buffer as ArrayBuffer]);
      return undefined;
    }
    return { elements: logged };
  }

  /**
   * Starts the decoding thread (src/store/decode-ahead.ts): with the first batch, so that a server
   * that is never sent one does not hold it. An answer that comes in lets a flush take the ingests
   * it held back.
   */
  function startDecodeAhead(o: WriterOptions, module: URL): DecodeAhead {
    return createDecodeAhead(module, { priority: o.priority, nice: o.nice }, o.youngGenerationMb, () => {
      // Once the decoding thread caught up: what arrived together is committed together, as
      // without it (a flush that a message's arrival asks for takes what is decoded by then).
      if (!scheduled && pending.length > 0 && ahead?.outstanding() === 0) {
        scheduled = true;
        setImmediate(flush);
      }
    });
  }

  /**
   * Has the decoding thread decode an ingest's body, when there is one and the body is a batch's
   * (it takes the body); a small one costs the writer less to decode than two messages do.
   */
  function sendAhead(m: Extract<Pending, { t: "ingest" }>): void {
    if (m.body.byteLength < AHEAD_MIN_BYTES || !aheadAllowed) return;
    const module = submissions?.ahead?.module;
    if (ahead === undefined && options !== undefined && module !== undefined)
      ahead = startDecodeAhead(options, module);
    ahead?.start({ id: m.id, kind: m.kind, body: m.body, at: m.at });
  }

  /**
   * Takes from `pending` what a flush may take now: everything up to the first ingest whose
   * decoding is still out, so that requests are enqueued in the order they arrived — and, while
   * some decoding is out, nothing until that is a good part of a group (READY_ENOUGH): the
   * decoding thread's last answer flushes, so what arrived together is committed together.
   */
  function takeReady(): Pending[] {
    const a = ahead;
    let n = pending.length;
    if (a !== undefined && a.outstanding() > 0) {
      for (let i = 0; i < pending.length; i++) {
        const m = pending[i] as Pending;
        if (m.t === "ingest" && a.waiting(m.id)) {
          n = i;
          break;
        }
      }
      if (n < READY_ENOUGH) return [];
    }
    const batch = n === pending.length ? pending : pending.slice(0, n);
    pending = n === pending.length ? [] : pending.slice(n);
    return batch;
  }

  /**
   * An ingest as the decoding thread answered it: its elements admitted against the config in
   * force here (at its place in the queue) with the JSON of what is logged, or undefined when it
   * was answered instead (refused, not decodable there, or the decoder failed).
   */
  function admitAhead(
    w: Writer<C>,
    m: Extract<Pending, { t: "ingest" }>,
    a: AheadAnswer,
  ): { elements: unknown[]; text: string; packed?: Uint8Array } | undefined {
    switch (a.t) {
      case "decoded":
        break;
      case "rejected":
        post({
          t: "rejected",
          id: m.id,
          reason: a.reason,
          message: a.message,
          index: a.index,
          ...(a.detail === undefined ? {} : { detail: a.detail }),
        });
        return undefined;
      case "undecoded":
        post({ t: "undecoded", id: m.id, body: a.body }, [a.body.buffer as ArrayBuffer]);
        return undefined;
      case "failed":
        post({ t: "failed", ids: [m.id], message: `cannot decode the submission: ${a.message}` });
        return undefined;
      default: {
        const never: never = a;
        throw new Error(`unknown answer ${String(never)}`);
      }
    }
    let elements: unknown[];
    try {
      elements = JSON.parse(a.prepared) as unknown[];
      submissions?.ahead?.admit(m.kind, elements, w.objectsInForce());
    } catch (e) {
      refuseUndecodable(m.id, e);
      return undefined;
    }
    return a.packed === undefined
      ? { elements, text: a.logged }
      : { elements, text: a.logged, packed: a.packed };
  }

  /** Begins a snapshot (or joins the one under way) and puts its barrier into the delta stream. */
  function startSnapshot(w: Writer<C>, requestId?: number): Snapshotting {
    if (snap === undefined) {
      snap = {
        id: nextBarrier++,
        start: w.beginSnapshot(),
        parts: [],
        records: 0,
        packed: [],
        waiters: [],
        closeAfter: false,
      };
      buffer.seal(snap.id);
      pump();
    }
    if (requestId !== undefined) snap.waiters.push(requestId);
    return snap;
  }

  /** Records of the snapshot's `statuses`, decoded into its JSON here, on the writer's time. */
  function onProjectionRecords(id: number, records: PackedRecords): void {
    const s = snap;
    if (s === undefined || s.id !== id || records.keys.length === 0) return;
    s.parts.push((s.records > 0 ? "," : "") + recordsJson(records));
    s.records += records.keys.length;
    s.packed.push(records);
  }

  function onProjectionPart(id: number, text: string, last: boolean): void {
    const s = snap;
    const w = writer;
    if (s === undefined || s.id !== id || w === undefined) return;
    s.parts.push(text);
    if (!last) return;
    snap = undefined;
    let error: string | undefined;
    try {
      const body = w.finishSnapshot(s.start, s.parts.join(""), imageOf(s, text));
      const config = w.configText(s.start.configDigest);
      if (replication !== undefined && leading && s.start.position > 0 && config !== undefined) {
        replication.publishSnapshot({
          position: s.start.position,
          eventSeq: s.start.eventSeq,
          configDigest: s.start.configDigest,
          config,
          body,
        });
      }
    } catch (e) {
      error = `snapshot failed: ${String(e)}`;
    }
    if (s.closeAfter) {
      w.close();
      closed = true;
    }
    for (const id of s.waiters) post(error === undefined ? { t: "done", id } : { t: "done", id, error });
  }

  /**
   * The snapshot's status image (src/store/status-image.ts): its records as the reader sent them,
   * and the downtimes, comments and reschedules of the reader's last part (store.ts, answerBarrier:
   * `],"downtimes":…,"comments":…[,"reschedules":…]}`); undefined when that part is not in that form.
   */
  function imageOf(s: Snapshotting, last: string): Uint8Array | undefined {
    const HEAD = '],"downtimes":';
    if (!last.startsWith(HEAD)) return undefined;
    let tail: Pick<ImageFrame, "downtimes" | "comments" | "reschedules">;
    try {
      tail = JSON.parse(`{${last.slice(2)}`) as typeof tail;
    } catch {
      // The snapshot is stored without one: kept, it stays whole.
      return undefined;
    }
    const frame: ImageFrame = {
      eventSeq: s.start.eventSeq,
      downtimes: tail.downtimes,
      comments: tail.comments ?? [],
      ...(tail.reschedules === undefined ? {} : { reschedules: tail.reschedules }),
      fold: s.start.fold,
    };
    return encodeStatusImage(frame, s.packed);
  }

  /** Buffers what a group applied; `appliedId` is the last request id the group covers (0: none). */
  function sendDelta(delta: ProjectionDelta | undefined, appliedId: number): void {
    if (delta !== undefined) buffer.add(delta);
    if (appliedId > 0) buffer.markApplied(appliedId);
    pump();
  }

  /**
   * Sends the next item if the reader asked for one. A reader asks between the writer's flushes, so
   * a part per ask must keep up with ingestion: parts grow with the backlog (up to 8 chunks, a few
   * milliseconds of the reader's time) instead of letting it lag.
   */
  function pump(): void {
    if (!readerWaiting) return;
    const chunk = deltaChunk();
    const item = buffer.take(Math.min(8 * chunk, Math.max(chunk, Math.ceil(buffer.size() / 2))));
    if (item === undefined) return;
    readerWaiting = false;
    postItem(item);
  }

  /** Sends everything buffered now, barriers included (messages arrive in order). */
  function drain(): void {
    for (let item = buffer.take(deltaChunk()); item !== undefined; item = buffer.take(deltaChunk())) {
      postItem(item);
    }
  }

  /** Posts an item, handing over (not copying) a part's packed buffers: see PackedStatuses. */
  function postItem(item: BufferItem): void {
    post(toMessage(item), item.kind === "delta" ? transferList(item.delta) : undefined);
  }

  function toMessage(item: BufferItem): FromWriter {
    switch (item.kind) {
      case "delta":
        return { t: "delta", delta: item.delta, applied: item.applied };
      case "barrier":
        return { t: "barrier", id: item.id };
      default: {
        const never: never = item;
        throw new Error(`unknown buffer item ${String(never)}`);
      }
    }
  }
}

/** What the writer tells the reader after applying a group: the engine's next timer, refusals. */
function appliedMessage(w: {
  nextWakeup(): number | undefined;
  takeRejected(): Record<string, number> | undefined;
}): FromWriter {
  const rejected = w.takeRejected();
  return rejected === undefined
    ? { t: "applied", nextWakeup: w.nextWakeup() }
    : { t: "applied", nextWakeup: w.nextWakeup(), rejected };
}
