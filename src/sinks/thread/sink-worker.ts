/**
 * The sink thread's entry module: every sink's loop runs here, off the main thread. It reads the
 * event log through its own read-only connection with the decoded-row cache, maps events to
 * records, encodes them and does the I/O; the main thread keeps the positions (consumers.db),
 * retention, ListSinks and /metrics, and decides when sinks run (sink-thread.ts). Positions,
 * counters, the sinks' own events and log lines are posted back (protocol.ts).
 */
import { writeFileSync } from "node:fs";
import { parentPort, workerData } from "node:worker_threads";
import { ConsumerHost } from "../../consumers/index.js";
import { systemClock } from "../../model/clock.js";
import type { SinkConfig } from "../../model/config.js";
import type { RecordedEvent } from "../../model/events.js";
import type { LogFields, Logger } from "../../model/logger.js";
import { openEventLogReader } from "../../store/index.js";
import { applyThreadPolicy } from "../../store/thread-priority.js";
import { createSink } from "../create-sink.js";
import { configLookup, createRecordMapper, type ObjectLookup } from "../records.js";
import { createSinkRunner, newSinkStats, type SinkStats } from "../runner.js";
import type { Sink } from "../sink.js";
import { addOptionsOf, consumerName } from "../sink-set.js";
import { decodeSinkObjects } from "./objects-text.js";
import type { FromSinkThread, SinkThreadInit, ToSinkThread } from "./protocol.js";
import { createThreadState } from "./thread-state.js";

/** Decoded events the thread's reader keeps: each row of the log is decoded once for every sink. */
const READ_CACHE_EVENTS = 10_000;
/** How often changed counters are posted while nothing else is (a sink retrying). */
const STATS_EVERY_MS = 500;

const port = parentPort;
if (port === null) throw new Error("sink-worker.js runs as a worker thread");
const init = workerData as SinkThreadInit;
const post = (m: FromSinkThread): void => port.postMessage(m);

function threadLogger(fields: LogFields): Logger {
  const line =
    (level: "debug" | "info" | "warn" | "error") =>
    (msg: string, more?: LogFields): void =>
      post({ t: "log", level, msg, fields: { ...fields, ...more } });
  return {
    debug: line("debug"),
    info: line("info"),
    warn: line("warn"),
    error: line("error"),
    child: (more) => threadLogger({ ...fields, ...more }),
  };
}

const logger = threadLogger({});
try {
  // The thread's name in `top -H`, `ps -L` and /proc (Linux; 15 characters at most).
  writeFileSync("/proc/thread-self/comm", "lookout-sinks");
} catch {
  // Not Linux: the thread keeps the process's name.
}
applyThreadPolicy(init.priority, init.nice);

interface ThreadSink {
  readonly name: string;
  readonly config: SinkConfig;
  readonly sink: Sink;
  readonly runner: ReturnType<typeof createSinkRunner>;
  readonly stats: SinkStats;
  /** The counters as last posted (JSON). */
  posted: string;
}

const sinks = new Map<string, ThreadSink>();
const postStats = (s: ThreadSink): void => {
  const now = JSON.stringify([s.stats, [...s.stats.dropped]]);
  if (now === s.posted) return;
  s.posted = now;
  post({ t: "stats", name: s.name, stats: s.stats });
};
const state = createThreadState({
  put(consumer, position) {
    const s = sinks.get(consumer.slice("sink:".length));
    if (s !== undefined) postStats(s);
    post({ t: "put", name: consumer, position });
  },
});

let host: ConsumerHost;
try {
  host = ConsumerHost.open({
    dataDir: init.dataDir,
    clock: systemClock,
    logger,
    reader: openEventLogReader(init.dataDir, { cacheEvents: READ_CACHE_EVENTS }),
    state,
    // The main thread's host logs where each sink starts.
    logStarts: false,
  });
} catch (e) {
  post({ t: "fatal", message: `cannot open the event log: ${String(e)}` });
  throw e;
}

let lookup: ObjectLookup = configLookup({ hosts: new Map() });
const record = (events: RecordedEvent[]): void => {
  for (const e of events) {
    const s = "sink" in e && typeof e.sink === "string" ? sinks.get(e.sink) : undefined;
    if (s !== undefined) postStats(s);
  }
  post({ t: "record", events });
};

const statsTimer = setInterval(() => {
  for (const s of sinks.values()) postStats(s);
}, STATS_EVERY_MS);
statsTimer.unref();

async function handle(m: ToSinkThread): Promise<void> {
  switch (m.t) {
    case "objects":
      lookup = configLookup(decodeSinkObjects(m.text));
      return;
    case "start": {
      const c = m.config;
      const stats = newSinkStats();
      const sink = createSink(c, { clock: systemClock, dataDir: init.dataDir });
      const runner = createSinkRunner({
        name: c.name,
        sink,
        mapper: createRecordMapper(c.name, c.input, c.selector, () => lookup),
        batchSize: c.batchSize,
        clock: systemClock,
        logger,
        stats,
        record,
        state,
        stored: (position) => state.stored(consumerName(c.name), position),
        ...(init.minBackoffMs === undefined ? {} : { minBackoffMs: init.minBackoffMs }),
        ...(init.maxBackoffMs === undefined ? {} : { maxBackoffMs: init.maxBackoffMs }),
      });
      sinks.set(c.name, { name: c.name, config: c, sink, runner, stats, posted: "" });
      return;
    }
    case "run": {
      const s = sinks.get(m.name);
      if (s === undefined) return;
      state.run(consumerName(m.name), m.position);
      host.add(s.runner, { ...addOptionsOf(s.config), start: { kind: "seq", seq: m.position } });
      return;
    }
    case "pause":
      await host.remove(consumerName(m.name));
      post({ t: "done", id: m.id });
      return;
    case "stop": {
      const s = sinks.get(m.name);
      await host.remove(consumerName(m.name));
      sinks.delete(m.name);
      if (s !== undefined) {
        await s.sink.close().catch(() => {});
        postStats(s);
      }
      state.forget(consumerName(m.name));
      post({ t: "done", id: m.id });
      return;
    }
    case "stored":
      state.acknowledged(m.name, m.position);
      return;
    case "wake":
      host.notify();
      return;
    case "close":
      clearInterval(statsTimer);
      for (const name of [...sinks.keys()]) await handle({ t: "stop", name, id: -1 });
      await host.stop();
      post({ t: "done", id: m.id });
      return;
    default: {
      const never: never = m;
      throw new Error(`unknown message ${JSON.stringify(never)}`);
    }
  }
}

// Requests that wait (pause, stop, close) must not hold up the others: a `stored` answer that a
// stopping sink awaits comes after its `stop`.
port.on("message", (m: ToSinkThread) => {
  handle(m).catch((e: unknown) => {
    logger.error("sink thread failed a request", { request: m.t, error: String(e) });
    if ("id" in m) post({ t: "done", id: m.id });
  });
});
