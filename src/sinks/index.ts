/**
 * Sinks: perfdata and events forwarded to ClickHouse, Prometheus remote_write, OTLP, HTTP, exec,
 * files and an archive, with nothing lost. Each configured sink is a consumer of the event log with
 * a durable position (src/consumers/): it reads the committed events after its position, maps them
 * to records (`metrics`: perfdata points; `events`: the events as JSON), sends them in batches
 * through its transport (the Sink seam, sink.ts; one folder per type), and moves its position only
 * when the backend acknowledged. The log is the queue: an outage costs delay, not data or memory.
 */
export { createSink, type SinkDeps } from "./create-sink.js";
export { redactUrl } from "./http-post.js";
export { configLookup, createRecordMapper, type ObjectLookup } from "./records.js";
export { createSinkRunner, type DropReason, type SinkStats } from "./runner.js";
export type { EventRecord, MetricPoint, SendOutcome, Sink, SinkBatch, SinkRecord } from "./sink.js";
export { consumerName, type RunningSink, SinkSet, type SinkSetOptions, startOf } from "./sink-set.js";
