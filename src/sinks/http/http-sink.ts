import { endpoint, postBytes } from "../http-post.js";
import { ndjson } from "../ndjson.js";
import { httpOutcome, refusedAsData, type Sink } from "../sink.js";

/**
 * The `http` sink: each batch is one POST of NDJSON (`Content-Type: application/x-ndjson`, one
 * record per line, docs/sinks.md) with the configured headers. A 2xx acknowledges the batch; 5xx,
 * 408, 429 and network errors are retried; any other status refuses it for good, 400, 413 and 422
 * as data (the runner splits the batch to drop only the records refused).
 */
export function createHttpSink(o: { url: string; headers: Readonly<Record<string, string>> }): Sink {
  const ep = endpoint(o.url, o.headers);
  return {
    encode: (batch) => ndjson(batch.records),
    send: (batch, signal) =>
      postBytes(
        ep,
        batch.encoded ?? ndjson(batch.records),
        { "Content-Type": "application/x-ndjson" },
        signal,
        { outcome: (status, body, ra) => refusedAsData(httpOutcome(status, body, ra), status) },
      ),
    close: async () => {},
  };
}
