import { compress } from "snappyjs";
import { endpoint, postBytes } from "../http-post.js";
import { type MetricPoint, refusedAsData, type Sink, type SinkBatch } from "../sink.js";
import { createSampleTimes } from "./sample-times.js";
import { encodeWriteRequest } from "./write-request.js";

const HEADERS = {
  "Content-Type": "application/x-protobuf",
  "Content-Encoding": "snappy",
  "X-Prometheus-Remote-Write-Version": "0.1.0",
  "User-Agent": "lookout",
};

/**
 * The `remote_write` sink: Prometheus remote_write 1.0, a snappy-compressed (block format)
 * protobuf WriteRequest per batch. 2xx acknowledges; 5xx and 429 are retried with backoff; any
 * other 4xx refuses the batch for good, as the protocol says; 400, 413 and 422 (out-of-order or
 * out-of-bounds samples, too large) as data, so that only the samples refused are dropped. Only the `metrics` input (events are refused by the config checks). Each series'
 * samples go with strictly increasing timestamps (sample-times.ts), so that Prometheus takes two
 * results of one object checked in the same millisecond as two points.
 */
export function createRemoteWriteSink(o: { url: string }): Sink {
  const ep = endpoint(o.url);
  const times = createSampleTimes();
  const encode = (batch: SinkBatch): Uint8Array => {
    const points = batch.records.filter((r): r is MetricPoint => r.kind === "metric");
    return compress(encodeWriteRequest(points, times.stamp(points)));
  };
  return {
    encode,
    async send(batch, signal) {
      if (!batch.records.some((r) => r.kind === "metric")) return { kind: "delivered" };
      const body = batch.encoded ?? encode(batch);
      return postBytes(ep, body, HEADERS, signal, {
        outcome: (status, text, retryAfter) => {
          if (status >= 200 && status < 300) return { kind: "delivered" };
          const error = `HTTP ${status}${text === "" ? "" : `: ${text.slice(0, 200)}`}`;
          if (status >= 500 || status === 429)
            return retryAfter === undefined
              ? { kind: "retry", error }
              : { kind: "retry", error, retryAfterMs: retryAfter };
          // 400: a sample out of order, out of bounds or a duplicate; Prometheus refuses the whole
          // request for it, so the runner splits the batch to find it.
          return refusedAsData({ kind: "rejected", error }, status);
        },
      });
    },
    close: async () => {},
  };
}
