import { endpoint, postBytes } from "../http-post.js";
import { recordJson } from "../ndjson.js";
import {
  type EventRecord,
  type MetricPoint,
  refusedAsData,
  type SendOutcome,
  type Sink,
  type SinkBatch,
} from "../sink.js";
import { encodeLogs, encodeMetrics } from "./otlp-encode.js";
import { partialSuccess } from "./otlp-response.js";

/** The signal path under the configured base URL (a URL already ending in it is used as it is). */
export function otlpUrl(url: string, input: "metrics" | "events"): string {
  const path = input === "metrics" ? "/v1/metrics" : "/v1/logs";
  const u = new URL(url);
  if (u.pathname.endsWith(path)) return url;
  u.pathname = `${u.pathname.replace(/\/+$/, "")}${path}`;
  return u.toString();
}

/** OTLP/HTTP: only 429, 502, 503 and 504 are retryable (honouring Retry-After); other errors are final. */
function otlpOutcome(
  status: number,
  body: string,
  retryAfter: number | undefined,
  bytes: Uint8Array,
): SendOutcome {
  if (status >= 200 && status < 300) {
    const refused = partialSuccess(bytes);
    return refused === undefined ? { kind: "delivered" } : { kind: "delivered", refused };
  }
  const error = `HTTP ${status}`;
  if (status === 429 || status === 502 || status === 503 || status === 504)
    return retryAfter === undefined
      ? { kind: "retry", error }
      : { kind: "retry", error, retryAfterMs: retryAfter };
  // A protobuf Status body is not text: keep it out of the error. 400 (invalid data), 413 and 422
  // refuse the records: the runner splits the batch to drop only those refused.
  return refusedAsData(
    {
      kind: "rejected",
      error: body === "" || /[^\x20-\x7e]/.test(body) ? error : `${error}: ${body.slice(0, 200)}`,
    },
    status,
  );
}

/**
 * The `otlp` sink: OTLP/HTTP with protobuf bodies, `<url>/v1/metrics` for the `metrics` input
 * (gauges) and `<url>/v1/logs` for `events` (one log record per event), with the configured headers.
 * Network errors and 429/502/503/504 are retried (after Retry-After when given); any other status
 * refuses the batch for good, as the OTLP specification says. A 200 with a `partial_success` that
 * rejected some records delivers the batch and reports them refused.
 */
export function createOtlpSink(o: {
  url: string;
  headers: Readonly<Record<string, string>>;
  input: "metrics" | "events";
}): Sink {
  const ep = endpoint(otlpUrl(o.url, o.input), o.headers);
  const encode = (batch: SinkBatch): Uint8Array =>
    o.input === "metrics"
      ? encodeMetrics(batch.records.filter((r): r is MetricPoint => r.kind === "metric"))
      : encodeLogs(
          batch.records.filter((r): r is EventRecord => r.kind === "event"),
          recordJson,
        );
  return {
    encode,
    async send(batch, signal) {
      const body = batch.encoded ?? encode(batch);
      return postBytes(ep, body, { "Content-Type": "application/x-protobuf" }, signal, {
        outcome: otlpOutcome,
      });
    },
    close: async () => {},
  };
}
