import { join } from "node:path";
import { type JsMsg, jetstream, jetstreamManager } from "@nats-io/jetstream";
import type { NatsConnection } from "@nats-io/transport-node";
import type { SubmittedCommand } from "../core/index.js";
import type { Logger } from "../model/logger.js";
import { objectKey } from "../model/object-ref.js";
import { RejectedError } from "../store/errors.js";
import { unpackBody } from "../store/event-log.js";
import { Database } from "../store/sqlite.js";
import { checkResultOf, decodeResult } from "./job.js";
import type { ZoneMetrics } from "./metrics.js";
import { RESULTS_CONSUMER, RESULTS_STREAM } from "./names.js";
import { ensureResultsConsumer } from "./streams.js";

/**
 * The property of a logged ProcessCheckResult command that records the results stream sequence of
 * its result: the last command of each batch carries it, so the log itself says how far ingestion
 * got, in the same transaction as the results.
 */
export const RESULT_SEQ_FIELD = "zoneResultSeq";

/** How many of the log's newest command rows a start-up scans for the last ingested sequence. */
const SCAN_ROWS = 5_000;
/** The most results one batch submits. */
const BATCH = 2_000;

/** Where the ingestion position is also kept between starts (consumers.db), besides the log. */
export interface PositionStore {
  load(): number | undefined;
  save(seq: number): void;
}

/**
 * The highest results stream sequence recorded in the newest command rows of the event log in
 * `dataDir`; undefined when none is there (no log yet, or none recent).
 */
export function loggedResultSeq(dataDir: string): number | undefined {
  let db: Database;
  try {
    db = new Database(join(dataDir, "lookout.db"), { readonly: true, fileMustExist: true });
  } catch {
    return undefined;
  }
  try {
    // Newest first, and the first row that carries a sequence has the highest (sequences only grow
    // in log order), so the scan inflates no more rows than it must.
    const rows = db
      .prepare("SELECT body FROM commands ORDER BY seq DESC LIMIT ?")
      .iterate(SCAN_ROWS) as Iterable<{
      body: Uint8Array | string;
    }>;
    const re = new RegExp(`"${RESULT_SEQ_FIELD}":(\\d+)`, "g");
    let best: number | undefined;
    for (const r of rows) {
      // Bodies are stored compressed (event-log.ts); a body that does not inflate is skipped.
      let text: string;
      try {
        text = typeof r.body === "string" ? r.body : unpackBody(r.body);
      } catch {
        continue;
      }
      if (!text.includes(RESULT_SEQ_FIELD)) continue;
      for (const m of text.matchAll(re)) {
        const n = Number(m[1]);
        if (best === undefined || n > best) best = n;
      }
      break;
    }
    return best;
  } catch {
    return undefined;
  } finally {
    db.close();
  }
}

export interface ResultsIngestOptions {
  readonly nc: NatsConnection;
  /** Core.submit: resolves once the batch is durably logged. */
  readonly submit: (commands: readonly SubmittedCommand[], onVisible: () => void) => Promise<void>;
  /** Whether the object is in the config in force (a result for another is dropped). */
  readonly known: (host: string, service: string | undefined) => boolean;
  /** Called once a result is applied and visible (the scheduler picks a retry interval then). */
  readonly applied: (key: string) => void;
  /** The position recovered at start: the greater of the log's and the store's. */
  readonly position: number;
  readonly store: PositionStore;
  readonly logger: Logger;
  readonly metrics: ZoneMetrics;
  readonly now: () => number;
}

export interface ResultsIngest {
  /** The results stream sequence up to which every result is in the log. */
  readonly position: number;
  stop(): Promise<void>;
}

/**
 * Reads the results stream through the leader's durable consumer and submits the results as
 * ProcessCheckResult commands, one batch at a time: a batch is logged (its last command carrying
 * its highest stream sequence), then the position is stored, then the messages are acknowledged.
 * A message at or below the position is already in the log (a redelivery after a crash between
 * logging and acknowledging): it is acknowledged and skipped. So a restart neither skips nor
 * repeats a result.
 */
export async function startResultsIngest(o: ResultsIngestOptions): Promise<ResultsIngest> {
  const jsm = await jetstreamManager(o.nc);
  await ensureResultsConsumer(jsm);
  const consumer = await jetstream(o.nc).consumers.get(RESULTS_STREAM, RESULTS_CONSUMER);
  let position = o.position;
  let stopping = false;

  const ingest = async (msgs: JsMsg[]): Promise<void> => {
    const commands: SubmittedCommand[] = [];
    const keys: string[] = [];
    let high = position;
    const zones: { zone: string; lag: number }[] = [];
    for (const m of msgs) {
      const seq = m.seq;
      if (seq <= position) {
        o.metrics.duplicate();
        continue;
      }
      high = Math.max(high, seq);
      const r = decodeResult(m.data);
      if (r === undefined) {
        o.logger.warn("dropping a message that is not a result", { seq });
        continue;
      }
      if (!o.known(r.host, r.service)) {
        o.logger.debug("dropping a result for an object not in the config", { host: r.host, seq });
        continue;
      }
      const result = checkResultOf(r);
      commands.push({ type: "ProcessCheckResult", result });
      keys.push(objectKey(result));
      zones.push({ zone: r.zone, lag: o.now() - r.due });
    }
    if (high > position) {
      await submitAll(commands, keys, high);
      o.store.save(high);
      for (const z of zones) o.metrics.ingested(z.zone, z.lag);
      position = high;
    }
    for (const m of msgs) m.ack();
  };

  /**
   * Logs the batch, whatever it takes: a result refused by validation (its object left the config
   * meanwhile) is dropped and the rest submitted again; any other failure is retried after a pause.
   * The batch must be logged before a later one, or the position would pass results never logged.
   */
  const submitAll = async (commands: SubmittedCommand[], keys: string[], high: number): Promise<void> => {
    for (;;) {
      if (commands.length === 0) return;
      const marked = commands.slice();
      const last = marked[marked.length - 1] as SubmittedCommand;
      marked[marked.length - 1] = { ...last, [RESULT_SEQ_FIELD]: high } as unknown as SubmittedCommand;
      const applied = keys.slice();
      try {
        await o.submit(marked, () => {
          for (const k of applied) o.applied(k);
        });
        return;
      } catch (e) {
        if (e instanceof RejectedError && e.index !== undefined) {
          o.logger.warn("dropping a refused result", { object: keys[e.index], error: e.message });
          commands.splice(e.index, 1);
          keys.splice(e.index, 1);
          continue;
        }
        if (stopping) throw e;
        o.logger.warn("cannot log results; retrying", { error: String(e) });
        await new Promise((r) => setTimeout(r, 1_000));
      }
    }
  };

  // Messages arrive continuously; they are logged one batch at a time, whatever came meanwhile.
  const messages = await consumer.consume({ max_messages: BATCH });
  const queue: JsMsg[] = [];
  let draining: Promise<void> | undefined;
  const drain = async () => {
    while (queue.length > 0 && !stopping) {
      const batch = queue.splice(0, BATCH);
      try {
        await ingest(batch);
      } catch (e) {
        // Not acknowledged: redelivered after the ack wait; the position did not move past them.
        o.logger.warn("results not ingested", { error: String(e) });
      }
    }
    draining = undefined;
  };
  const loop = async () => {
    for await (const m of messages) {
      queue.push(m);
      draining ??= new Promise<void>((r) => setImmediate(r)).then(drain);
    }
  };
  const looping = loop();
  return {
    get position() {
      return position;
    },
    async stop() {
      stopping = true;
      await messages.close();
      await looping;
      await draining;
    },
  };
}
