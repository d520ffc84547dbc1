import type { ConsumerState, LogConsumer } from "../consumers/index.js";
import type { Clock } from "../model/clock.js";
import type { DroppedRecord, RecordedEvent, SinkDroppedEvent } from "../model/events.js";
import type { Logger } from "../model/logger.js";
import type { LoggedEvent } from "../store/index.js";
import type { RecordMapper } from "./records.js";
import type { SendOutcome, Sink, SinkBatch, SinkRecord } from "./sink.js";

/** Why records were dropped: the backend refused them for good. */
export type DropReason = "rejected";

/** What a running sink has done since it started, for /metrics and ListSinks. */
export interface SinkStats {
  /** Records the backend acknowledged. */
  sent: number;
  /** Records dropped, by reason. */
  readonly dropped: Map<DropReason, number>;
  /** Sends that failed and were retried. */
  retries: number;
  /** Ms since the epoch of the last acknowledged batch (0: none yet). */
  lastSuccessAt: number;
  /** Whether the last send failed and the runner is retrying. */
  retrying: boolean;
  /** The last error, with credentials already kept out by the transport ("" when none). */
  lastError: string;
}

export function newSinkStats(): SinkStats {
  return { sent: 0, dropped: new Map(), retries: 0, lastSuccessAt: 0, retrying: false, lastError: "" };
}

export interface SinkRunnerOptions {
  /** The sink's configured name; the consumer is "sink:<name>". */
  readonly name: string;
  readonly sink: Sink;
  readonly mapper: RecordMapper;
  /** Records per send (`batch_size`); an event's records are never split between two sends. */
  readonly batchSize: number;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly stats: SinkStats;
  /** Appends the sink's own events (SinkFailed, SinkFlushed, SinkDropped) to the log. */
  readonly record: (events: RecordedEvent[]) => void;
  /** Stores the position after each send inside one offered batch (the host stores the last one). */
  readonly state?: ConsumerState;
  /**
   * Resolves once the position just put in `state` is durable (the sink thread's state stores it on
   * the main thread): the next batch is sent only then, so a crash repeats at most the batch in
   * flight. Absent: `state.put` is durable when it returns.
   */
  readonly stored?: (position: number) => Promise<void>;
  /** First retry delay (default 250 ms), doubled per failure up to `maxBackoffMs` (default 5 s). */
  readonly minBackoffMs?: number;
  readonly maxBackoffMs?: number;
  /** How long a send in flight may finish after a stop (default `STOP_GRACE_MS`). */
  readonly stopGraceMs?: number;
}

/**
 * How long a send already in flight may go on after the sink is stopped (a reload that removes it, a
 * shutdown). A backend that has taken the batch is given the time to say so, so that a restart does
 * not send it again; one still busy after this is aborted and the batch is repeated after the restart.
 */
export const STOP_GRACE_MS = 5_000;

/** The signal a send gets: aborted `graceMs` (by `clock`) after `stop` is. */
function graceSignal(
  stop: AbortSignal,
  graceMs: number,
  clock: Clock,
): { signal: AbortSignal; dispose(): void } {
  const ac = new AbortController();
  let timer: { cancel(): void } | undefined;
  const onStop = (): void => {
    timer = clock.setTimer(graceMs, () => ac.abort(stop.reason));
  };
  if (stop.aborted) onStop();
  else stop.addEventListener("abort", onStop, { once: true });
  return {
    signal: ac.signal,
    dispose() {
      stop.removeEventListener("abort", onStop);
      timer?.cancel();
    },
  };
}

/** The two halves of a batch's records (log order kept), each a batch of its own. */
function halves(records: readonly SinkRecord[]): [SinkBatch, SinkBatch] {
  const mid = Math.ceil(records.length / 2);
  const part = (rs: readonly SinkRecord[]): SinkBatch => ({
    records: rs,
    firstSeq: (rs[0] as SinkRecord).seq,
    lastSeq: (rs[rs.length - 1] as SinkRecord).seq,
  });
  return [part(records.slice(0, mid)), part(records.slice(mid))];
}

/** What names a dropped record in its SinkDropped event. */
function droppedRecord(r: SinkRecord): DroppedRecord {
  if (r.kind === "metric")
    return r.service === ""
      ? { host: r.host, perfdata: r.name, time: r.time }
      : { host: r.host, service: r.service, perfdata: r.name, time: r.time };
  const e = r.event as { type: string; host?: unknown; service?: unknown };
  return {
    event: e.type,
    ...(typeof e.host === "string" ? { host: e.host } : {}),
    ...(typeof e.service === "string" ? { service: e.service } : {}),
  };
}

/** The longest Retry-After honoured; a backend asking for more is asked again after this. */
const MAX_RETRY_AFTER_MS = 60_000;

/**
 * Creates the log consumer of one sink: maps the offered events to records, cuts them into sends of
 * at most `batchSize` records at event boundaries, and sends each until the backend acknowledges it
 * (retrying with capped exponential backoff, or after Retry-After) or refuses it for good (the
 * records are counted as dropped and a SinkDropped event says which; a batch refused for its data is
 * split to deliver every record the backend takes, see `deliver`). It reports the position of the
 * last event whose records are all delivered or dropped, so the log is the queue: nothing waits in
 * memory beyond the batch in flight and the next one (mapped and encoded while the first waits for
 * its backend, sent only after it is acknowledged), and a restart repeats at most the batch in flight. It records SinkFailed
 * when the backend starts failing and SinkFlushed when it recovers, never an event per delivery.
 */
export function createSinkRunner(o: SinkRunnerOptions): LogConsumer {
  const consumer = `sink:${o.name}`;
  const minBackoff = o.minBackoffMs ?? 250;
  // Prometheus's own remote-write queue stops at 5 s too: a backend that is back is found within 5 s.
  const maxBackoff = o.maxBackoffMs ?? 5_000;
  const stats = o.stats;
  const log = o.logger;

  const sleep = (ms: number, signal: AbortSignal): Promise<void> =>
    new Promise((resolve) => {
      if (signal.aborted) return resolve();
      const t = o.clock.setTimer(ms, () => {
        signal.removeEventListener("abort", done);
        resolve();
      });
      const done = (): void => {
        t.cancel();
        resolve();
      };
      signal.addEventListener("abort", done, { once: true });
    });

  /** Sends one batch until the backend acknowledges or refuses it; undefined when stopped first. */
  const attempt = async (
    batch: SinkBatch,
    signal: AbortSignal,
  ): Promise<Exclude<SendOutcome, { kind: "retry" }> | undefined> => {
    for (let failures = 0; ; failures++) {
      if (signal.aborted) return undefined;
      let outcome: SendOutcome;
      const send = graceSignal(signal, o.stopGraceMs ?? STOP_GRACE_MS, o.clock);
      try {
        outcome = await o.sink.send(batch, send.signal);
      } catch (e) {
        outcome = { kind: "retry", error: e instanceof Error ? e.message : String(e) };
      } finally {
        send.dispose();
      }
      if (signal.aborted && outcome.kind !== "delivered") return undefined;
      switch (outcome.kind) {
        case "delivered":
          stats.sent += batch.records.length;
          stats.lastSuccessAt = o.clock.now();
          if (stats.retrying) {
            stats.retrying = false;
            log.info("sink delivers again", { sink: o.name, retries: failures });
            o.record([
              {
                type: "SinkFlushed",
                at: o.clock.now(),
                sink: o.name,
                cursor: batch.lastSeq,
                count: batch.records.length,
              },
            ]);
          }
          return outcome;
        case "rejected":
          return outcome;
        case "retry": {
          stats.retries++;
          stats.lastError = outcome.error;
          if (!stats.retrying) {
            stats.retrying = true;
            log.warn("sink backend failed; retrying with backoff", { sink: o.name, error: outcome.error });
            o.record([
              { type: "SinkFailed", at: o.clock.now(), sink: o.name, error: outcome.error, retryable: true },
            ]);
          }
          const backoff = Math.min(maxBackoff, minBackoff * 2 ** Math.min(failures, 20));
          const wait =
            outcome.retryAfterMs === undefined
              ? backoff
              : Math.min(MAX_RETRY_AFTER_MS, Math.max(backoff, outcome.retryAfterMs));
          await sleep(wait, signal);
          break;
        }
        default: {
          const never: never = outcome;
          throw new Error(`unknown send outcome ${JSON.stringify(never)}`);
        }
      }
    }
  };

  /**
   * Sends one batch until every record is acknowledged or refused for good; false when stopped
   * first. A batch refused as data is split in halves, each sent the same way, so that only the
   * records the backend refuses on their own are dropped (each named in its SinkDropped event);
   * a batch refused as a request is dropped whole. The drops are recorded once the batch is done.
   */
  const deliver = async (batch: SinkBatch, signal: AbortSignal): Promise<boolean> => {
    const drops: SinkDroppedEvent[] = [];
    /** Counts `count` records of `b` as refused for good and records one SinkDropped for them. */
    const drop = (b: SinkBatch, count: number, error: string, record?: SinkRecord): void => {
      stats.dropped.set("rejected", (stats.dropped.get("rejected") ?? 0) + count);
      stats.lastError = error;
      drops.push({
        type: "SinkDropped",
        at: o.clock.now(),
        sink: o.name,
        reason: "rejected",
        count,
        fromSeq: b.firstSeq,
        toSeq: b.lastSeq,
        error,
        ...(record === undefined ? {} : { record: droppedRecord(record) }),
      });
    };
    const go = async (b: SinkBatch): Promise<boolean> => {
      const outcome = await attempt(b, signal);
      if (outcome === undefined) return false;
      if (outcome.kind === "delivered") {
        if (outcome.refused !== undefined) {
          // Taken, but some records refused without naming them: counted for the part as a whole.
          const n = Math.min(outcome.refused.count, b.records.length);
          stats.sent -= n;
          drop(b, n, outcome.refused.error);
        }
        return true;
      }
      stats.lastError = outcome.error;
      if (outcome.data === true && b.records.length > 1) {
        const [head, tail] = halves(b.records);
        return (await go(head)) && (await go(tail));
      }
      const n = b.records.length;
      drop(b, n, outcome.error, n === 1 ? b.records[0] : undefined);
      return true;
    };
    const done = await go(batch);
    if (drops.length > 0) {
      const count = drops.reduce((k, d) => k + d.count, 0);
      log.error(
        count === batch.records.length
          ? "sink backend refused a batch; its records are dropped"
          : "sink backend refused records of a batch; those are dropped, the rest delivered",
        {
          sink: o.name,
          records: count,
          of: batch.records.length,
          fromSeq: batch.firstSeq,
          toSeq: batch.lastSeq,
          error: drops[0]?.error ?? "",
          ...(drops[0]?.record === undefined ? {} : { first: drops[0].record }),
        },
      );
      o.record(drops);
    }
    return done;
  };

  /** The batch with its body encoded ahead when the sink can (an encoder that throws: send encodes). */
  const prepare = (batch: SinkBatch): SinkBatch => {
    if (o.sink.encode === undefined) return batch;
    try {
      return { ...batch, encoded: o.sink.encode(batch) };
    } catch {
      return batch;
    }
  };

  return {
    name: consumer,
    async handle(events: readonly LoggedEvent[], signal: AbortSignal): Promise<number> {
      const first = events[0];
      if (first === undefined) return 0;
      // Everything up to `done` is delivered or dropped; `records` (events firstSeq..upTo) wait.
      let done = first.seq - 1;
      let records: SinkRecord[] = [];
      let firstSeq = 0;
      let upTo = done;
      // The one send in flight: the next batch is mapped and encoded while it waits for the backend,
      // and sent only once it is acknowledged (order kept, at most one batch in flight).
      let inflight: { delivered: Promise<boolean>; upTo: number } | undefined;
      const settle = async (): Promise<boolean> => {
        const f = inflight;
        if (f === undefined) return true;
        inflight = undefined;
        if (!(await f.delivered)) return false;
        done = f.upTo;
        o.state?.put(consumer, [], done);
        await o.stored?.(done);
        return true;
      };
      const flush = async (): Promise<boolean> => {
        const batch = prepare({ records, firstSeq, lastSeq: upTo });
        records = [];
        if (!(await settle())) return false;
        inflight = { delivered: deliver(batch, signal).catch(() => false), upTo: batch.lastSeq };
        return true;
      };
      const scratch: SinkRecord[] = [];
      for (const e of events) {
        scratch.length = 0;
        const n = o.mapper.map(e, scratch);
        if (n === 0) {
          if (records.length === 0 && inflight === undefined) done = e.seq;
          else upTo = e.seq;
          continue;
        }
        if (records.length > 0 && records.length + n > o.batchSize) {
          if (!(await flush())) return done;
        }
        if (records.length === 0) firstSeq = e.seq;
        for (const r of scratch) records.push(r);
        upTo = e.seq;
      }
      if (records.length > 0 && !(await flush())) return done;
      if (!(await settle())) return done;
      return Math.max(done, upTo);
    },
  };
}
