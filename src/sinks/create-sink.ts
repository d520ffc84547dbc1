import { join } from "node:path";
import type { Clock } from "../model/clock.js";
import type { SinkConfig } from "../model/config.js";
import { createArchiveSink } from "./archive/archive-sink.js";
import { createClickhouseSink } from "./clickhouse/clickhouse-sink.js";
import { createExecSink } from "./exec/exec-sink.js";
import { createFileSink } from "./file/file-sink.js";
import { createHttpSink } from "./http/http-sink.js";
import { createOtlpSink } from "./otlp/otlp-sink.js";
import { createRemoteWriteSink } from "./remote_write/remote-write-sink.js";
import type { Sink } from "./sink.js";

/** What the transports may need besides their configuration. */
export interface SinkDeps {
  readonly clock: Clock;
  /** Where sinks keep local files of their own (the archive's segment being built). */
  readonly dataDir: string;
}

/** Creates the transport of a configured sink. */
export function createSink(c: SinkConfig, deps: SinkDeps): Sink {
  switch (c.type) {
    case "http":
      return createHttpSink({ url: c.url, headers: c.headers });
    case "exec":
      return createExecSink({ command: c.command });
    case "file":
      return createFileSink({ path: c.path, rotateBytes: c.rotateBytes, clock: deps.clock });
    case "remote_write":
      return createRemoteWriteSink({ url: c.url });
    case "clickhouse":
      return createClickhouseSink({ url: c.url, table: c.table, input: c.input });
    case "archive":
      return createArchiveSink({
        url: c.url,
        segmentBytes: c.segmentBytes,
        stagingPath: join(deps.dataDir, "sinks", c.name, "segment.ndjson"),
        clock: deps.clock,
      });
    case "otlp":
      return createOtlpSink({ url: c.url, headers: c.headers, input: c.input });
    default: {
      const never: never = c;
      throw new Error(`unknown sink type ${JSON.stringify(never)}`);
    }
  }
}
