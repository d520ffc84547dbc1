import type { LookoutEvent } from "../model/events.js";

/** One perfdata point of a check result, as the `metrics` input gives it to a sink. */
export interface MetricPoint {
  readonly kind: "metric";
  /** The event log sequence number of the CheckResultProcessed event it came from. */
  readonly seq: number;
  /** The result's check time, ms since the epoch. */
  readonly time: number;
  readonly host: string;
  /** "" for a host check. */
  readonly service: string;
  readonly zone: string;
  /** The object's effective labels (a service's over its host's). */
  readonly labels: Readonly<Record<string, string>>;
  /** The perfdata label. */
  readonly name: string;
  readonly value: number;
  readonly unit: string;
  /** Threshold ranges as printed; "" when absent. */
  readonly warn: string;
  readonly crit: string;
  readonly min?: number;
  readonly max?: number;
  /**
   * The same object for every point of one series (object, name, unit) under one configuration,
   * when the mapper knows the object: encoders keep what they derive from a series by it instead of
   * by a key string built per point. Absent: key by the fields.
   */
  readonly series?: object;
}

/** One event of the log, as the `events` input gives it to a sink. */
export interface EventRecord {
  readonly kind: "event";
  readonly seq: number;
  readonly event: LookoutEvent;
}

export type SinkRecord = MetricPoint | EventRecord;

/** What a sink is asked to deliver: records of one input, in log order. */
export interface SinkBatch {
  readonly records: readonly SinkRecord[];
  /** The first and last event log sequence numbers the batch covers (the archive names segments by them). */
  readonly firstSeq: number;
  readonly lastSeq: number;
  /**
   * The body the sink's `encode` made of these records, when it has one: the runner encodes a
   * batch while the one before it is still in flight, and `send` uses this instead of encoding.
   */
  readonly encoded?: Uint8Array;
}

/**
 * How a send ended: the backend acknowledged the whole batch; or it did not and a retry can help
 * (down, slow, overloaded, an answer that could not be read), optionally not before `retryAfterMs`;
 * or it refused the batch for good (a 4xx other than 429, a schema error): retrying the same bytes
 * would fail the same way. `data: true` says the refusal is about the records (a sample out of
 * order, a row that does not parse, a body too large), so some of them may be good: the runner
 * splits the batch in halves until it has delivered every record the backend takes and dropped
 * only those it refuses alone. Without it (the request as such is refused: 401, 404) the runner
 * drops the whole batch. Either way the drop is counted and recorded.
 */
export type SendOutcome =
  | { readonly kind: "delivered"; readonly refused?: PartlyRefused }
  | { readonly kind: "retry"; readonly error: string; readonly retryAfterMs?: number }
  | { readonly kind: "rejected"; readonly error: string; readonly data?: boolean };

/**
 * A backend that took a batch but said that it refused `count` of its records without saying which
 * (OTLP's `partial_success`): the runner counts them as dropped and records the drop for the batch.
 */
export interface PartlyRefused {
  readonly count: number;
  readonly error: string;
}

/**
 * The HTTP statuses with which a backend refuses what the body holds rather than the request:
 * 400 (Prometheus: out of order, out of bounds, duplicate sample; OTLP: invalid data), 413 (too
 * large: halves may pass) and 422. A sink whose backend answers so marks the refusal `data`.
 */
export const DATA_REFUSED = new Set([400, 413, 422]);

/** `o`, marked as a refusal of the records when the status is one of DATA_REFUSED. */
export function refusedAsData(o: SendOutcome, status: number): SendOutcome {
  return o.kind === "rejected" && DATA_REFUSED.has(status) ? { ...o, data: true } : o;
}

/**
 * The sink seam: a transport for one backend. `send` is never called concurrently, and never again
 * before the previous call settled; a batch is all or nothing, so a retry sends the same records
 * again (backends should tolerate a repeat: a restart may send the batch in flight twice), and a
 * batch refused as data is sent again in parts (its records in log order, each part a SinkBatch
 * without `encoded`). `send` should not throw: a rejection is treated as a retryable failure.
 * `signal` aborts a send in flight (the sink is stopping). `close` releases what the sink holds
 * (files, sockets) and is called once.
 */
export interface Sink {
  send(batch: SinkBatch, signal: AbortSignal): Promise<SendOutcome>;
  /**
   * Optional: the bytes `send` would build from a batch (CPU only: no I/O). The runner calls it
   * once per batch, in log order, for the next batch while the previous send waits for its backend, and hands the
   * result to `send` as `batch.encoded`; `send` must still encode a batch that has none.
   */
  encode?(batch: SinkBatch): Uint8Array;
  close(): Promise<void>;
}

/** Whether a backend's HTTP status means "try again" (5xx, 429, 408) or "refused for good" (other 4xx). */
export function httpOutcome(status: number, body: string, retryAfterMs?: number): SendOutcome {
  if (status >= 200 && status < 300) return { kind: "delivered" };
  const error = `HTTP ${status}${body === "" ? "" : `: ${body.slice(0, 200)}`}`;
  if (status >= 500 || status === 429 || status === 408)
    return retryAfterMs === undefined ? { kind: "retry", error } : { kind: "retry", error, retryAfterMs };
  return { kind: "rejected", error };
}

/** Retry-After in ms (seconds or an HTTP date), or undefined when absent or unreadable. */
export function retryAfterMs(header: string | null, now: number): number | undefined {
  if (header === null || header === "") return undefined;
  if (/^\d+$/.test(header.trim())) return Number(header.trim()) * 1000;
  const at = Date.parse(header);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}
