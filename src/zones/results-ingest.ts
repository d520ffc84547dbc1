import { join } from "node:path";
import { type JsMsg, jetstream, jetstreamManager } from "@nats-io/jetstream";
import type { NatsConnection } from "@nats-io/transport-node";
import type { AuditEntry } from "../audit/index.js";
import type { SubmittedCommand } from "../core/index.js";
import type { Logger } from "../model/logger.js";
import { objectKey } from "../model/object-ref.js";
import { RejectedError } from "../store/errors.js";
import { unpackBody } from "../store/event-log.js";
import { Database } from "../store/sqlite.js";
import { checkResultOf, decodeResult } from "./job.js";
import type { ZoneMetrics } from "./metrics.js";
import { RESULTS_CONSUMER, RESULTS_STREAM, RESULTS_SUBJECTS } from "./names.js";
import { createRefusalReporter, type ObjectPlacement, refusalOf } from "./result-refusal.js";
import { type LoggedSeqs, SeqSet } from "./seq-set.js";
import { ensureResultsConsumer } from "./streams.js";

/**
 * The properties of a logged ProcessCheckResult command that record which results stream sequences
 * are in the log: the last command of each batch carries the set as it stands after the batch
 * (`zoneResultSeq`: every sequence at or below it; `zoneResultAbove`: ranges logged above it, only
 * when there are any), so the log itself says what ingestion logged, in the same transaction as
 * the results. A log written before ranges existed carries the floor alone, read the same way.
 */
export const RESULT_SEQ_FIELD = "zoneResultSeq";
export const RESULT_ABOVE_FIELD = "zoneResultAbove";

/** How many of the log's newest command rows a start-up scans for the last ingested sequence. */
const SCAN_ROWS = 5_000;
/** The most results one batch submits. */
const BATCH = 2_000;
/** `lookout.result.`: what precedes the zone token in a results subject. */
const SUBJECT_PREFIX = RESULTS_SUBJECTS.slice(0, -1);

/** Where the logged set is also kept between starts (consumers.db), besides the log. */
export interface PositionStore {
  load(): LoggedSeqs | undefined;
  save(seqs: LoggedSeqs): void;
}

/** The stored form of a set: JSON, or (as written before ranges existed) a bare number, the floor. */
export function parseLoggedSeqs(text: string | undefined): LoggedSeqs | undefined {
  if (text === undefined || text === "") return undefined;
  try {
    const v = JSON.parse(text) as unknown;
    if (typeof v === "number" && Number.isFinite(v)) return { floor: v, above: [] };
    return seqsOf(v);
  } catch {
    return undefined;
  }
}

/** The set a logged command records, or undefined when it records none. */
function seqsOf(v: unknown): LoggedSeqs | undefined {
  if (typeof v !== "object" || v === null) return undefined;
  const o = v as Record<string, unknown>;
  const floor = o[RESULT_SEQ_FIELD] ?? o.floor;
  if (typeof floor !== "number" || !Number.isFinite(floor)) return undefined;
  const raw = o[RESULT_ABOVE_FIELD] ?? o.above;
  const above: [number, number][] = [];
  if (Array.isArray(raw)) {
    for (const r of raw) {
      if (Array.isArray(r) && typeof r[0] === "number" && typeof r[1] === "number") above.push([r[0], r[1]]);
    }
  }
  return { floor, above };
}

/**
 * The set of results stream sequences recorded by the newest command row of the event log in
 * `dataDir` that records one (among its newest rows); undefined when none is there (no log yet, or
 * none recent).
 */
export function loggedResultSeqs(dataDir: string): LoggedSeqs | undefined {
  let db: Database;
  try {
    db = new Database(join(dataDir, "lookout.db"), { readonly: true, fileMustExist: true });
  } catch {
    return undefined;
  }
  try {
    // Newest first: each record is the whole set after its batch, so the first one found is it.
    const rows = db
      .prepare("SELECT body FROM commands ORDER BY seq DESC LIMIT ?")
      .iterate(SCAN_ROWS) as Iterable<{
      body: Uint8Array | string;
    }>;
    for (const r of rows) {
      // Bodies are stored compressed (event-log.ts); a body that does not inflate is skipped.
      let text: string;
      try {
        text = typeof r.body === "string" ? r.body : unpackBody(r.body);
      } catch {
        continue;
      }
      if (!text.includes(RESULT_SEQ_FIELD)) continue;
      let commands: unknown;
      try {
        commands = JSON.parse(text);
      } catch {
        continue;
      }
      if (!Array.isArray(commands)) continue;
      for (let i = commands.length - 1; i >= 0; i--) {
        const found = seqsOf(commands[i]);
        if (found !== undefined) return found;
      }
    }
    return undefined;
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
  /**
   * Where the config in force puts an object (undefined when it is not there). A result is applied
   * only to an object of the zone of the subject it arrived on whose check is active, in a zone
   * that does not run here; anything else is refused (result-refusal.ts).
   */
  readonly placement: (host: string, service: string | undefined) => ObjectPlacement | undefined;
  /** Whether a zone runs on this server (no worker's result is taken for it). */
  readonly isLocal: (zone: string) => boolean;
  /**
   * The configured zone whose results subject token is `token`, if any: the `zone` label of a
   * refusal (a subject no zone has is counted as `other`, so labels stay bounded).
   */
  readonly zoneOfToken: (token: string) => string | undefined;
  /** Where refused results are recorded (absent: only counted and logged). */
  readonly audit?: { record(entry: AuditEntry): void };
  /** Called once a result is applied and visible (the scheduler picks a retry interval then). */
  readonly applied: (key: string) => void;
  /** What is logged, recovered at start: the union of the log's record and the store's. */
  readonly logged: LoggedSeqs;
  readonly store: PositionStore;
  readonly logger: Logger;
  readonly metrics: ZoneMetrics;
  readonly now: () => number;
}

export interface ResultsIngest {
  /** The results stream sequences in the log. */
  readonly logged: LoggedSeqs;
  stop(): Promise<void>;
}

/**
 * Reads the results stream through the leader's durable consumer and submits the results as
 * ProcessCheckResult commands, one batch at a time: a batch is logged (its last command carrying
 * the set of stream sequences logged so far), then the set is stored, then the messages are
 * acknowledged. A message whose sequence is in the set is already in the log (a redelivery after a
 * crash between logging and acknowledging): it is acknowledged and skipped. A message redelivered
 * behind newer ones is not in the set and is logged. So a restart neither skips nor repeats a result.
 */
export async function startResultsIngest(o: ResultsIngestOptions): Promise<ResultsIngest> {
  const jsm = await jetstreamManager(o.nc);
  await ensureResultsConsumer(jsm);
  const consumer = await jetstream(o.nc).consumers.get(RESULTS_STREAM, RESULTS_CONSUMER);
  let logged = new SeqSet(o.logged);
  let stopping = false;
  const refusals = createRefusalReporter({
    metrics: o.metrics,
    logger: o.logger,
    ...(o.audit === undefined ? {} : { audit: o.audit }),
    now: o.now,
  });

  const ingest = async (msgs: JsMsg[]): Promise<void> => {
    const commands: SubmittedCommand[] = [];
    const keys: string[] = [];
    const next = logged.clone();
    let added = 0;
    let givenUp = 0;
    const zones: { zone: string; lag: number }[] = [];
    for (const m of msgs) {
      const seq = m.seq;
      if (next.has(seq)) {
        o.metrics.duplicate();
        continue;
      }
      givenUp += next.add(seq);
      added++;
      // Refused results are in the set too: acknowledged with the batch, never retried.
      const r = decodeResult(m.data);
      const object = r === undefined ? undefined : o.placement(r.host, r.service);
      const reason = r === undefined ? "malformed" : refusalOf(m.subject, r, object, o.isLocal);
      if (reason !== undefined) {
        refusals.refuse({
          subject: m.subject,
          zone: o.zoneOfToken(m.subject.slice(SUBJECT_PREFIX.length)) ?? "other",
          reason,
          seq,
          ...(r === undefined ? {} : { result: r }),
          ...(object === undefined ? {} : { object }),
        });
        continue;
      }
      if (r === undefined) continue;
      const result = checkResultOf(r);
      commands.push({ type: "ProcessCheckResult", result });
      keys.push(objectKey(result));
      zones.push({ zone: r.zone, lag: o.now() - r.due });
    }
    if (givenUp > 0) {
      o.logger.warn("results never delivered are given up to bound the logged set", {
        sequences: givenUp,
        floor: next.floor,
      });
    }
    // Any sequence added changes the set, even one filling a gap between ranges (floor and high
    // unchanged): the batch is logged with the new record.
    if (added > 0) {
      const record = next.toJSON();
      await submitAll(commands, keys, record);
      o.store.save(record);
      for (const z of zones) o.metrics.ingested(z.zone, z.lag);
      logged = next;
    }
    for (const m of msgs) m.ack();
  };

  /**
   * Logs the batch, whatever it takes: a result refused by validation (its object left the config
   * meanwhile) is dropped and the rest submitted again; any other failure is retried after a pause.
   * The batch must be logged before a later one, or the position would pass results never logged.
   */
  const submitAll = async (
    commands: SubmittedCommand[],
    keys: string[],
    record: LoggedSeqs,
  ): Promise<void> => {
    for (;;) {
      if (commands.length === 0) return;
      const marked = commands.slice();
      const last = marked[marked.length - 1] as SubmittedCommand;
      const fields: Record<string, unknown> = { [RESULT_SEQ_FIELD]: record.floor };
      if (record.above.length > 0) fields[RESULT_ABOVE_FIELD] = record.above;
      marked[marked.length - 1] = { ...last, ...fields } as unknown as SubmittedCommand;
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
    get logged() {
      return logged.toJSON();
    },
    async stop() {
      stopping = true;
      await messages.close();
      await looping;
      await draining;
    },
  };
}
