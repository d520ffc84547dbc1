import { Counter, Gauge, type Registry } from "prom-client";
import type { SinkStatus } from "../api/index.js";
import type { ConsumerHost } from "../consumers/index.js";
import { consumerName, type SinkSet } from "../sinks/index.js";

/** ListSinks' view of a sink: its counters and the host's lag, by name. */
export function sinkStatusOf(sinks: SinkSet, host: ConsumerHost): (name: string) => SinkStatus | undefined {
  return (name) => {
    const s = sinks.list().find((x) => x.config.name === name);
    if (s === undefined) return undefined;
    const c = host.status(consumerName(name));
    let dropped = 0;
    for (const n of s.stats.dropped.values()) dropped += n;
    return {
      state: !s.running || c === undefined ? "stopped" : s.stats.retrying ? "retrying" : "ok",
      lagEvents: c?.lagEvents ?? 0,
      lagSeconds: c?.lagSeconds ?? 0,
      sent: s.stats.sent,
      dropped,
      retries: s.stats.retries,
      lastSuccessAt: s.stats.lastSuccessAt,
      lastError: s.stats.lastError,
    };
  };
}

/**
 * Registers `lookout_sink_*{sink}`: records sent, dropped by reason, retries, the last success, and
 * the lag in events and seconds (the consumer host's, under the sink's own name). Labels carry the
 * sink's name only, never its URL or headers. Read at scrape time.
 */
export function registerSinkMetrics(registry: Registry, sinks: SinkSet, host: ConsumerHost): void {
  const lag = (s: ReturnType<SinkSet["list"]>[number]) => host.status(consumerName(s.config.name));
  const gauge = (name: string, help: string, pick: (s: ReturnType<SinkSet["list"]>[number]) => number) =>
    new Gauge({
      name,
      help,
      labelNames: ["sink"],
      registers: [registry],
      collect() {
        this.reset();
        for (const s of sinks.list()) this.set({ sink: s.config.name }, pick(s));
      },
    });
  const counter = (name: string, help: string, pick: (s: ReturnType<SinkSet["list"]>[number]) => number) =>
    new Counter({
      name,
      help,
      labelNames: ["sink"],
      registers: [registry],
      collect() {
        this.reset();
        for (const s of sinks.list()) this.inc({ sink: s.config.name }, pick(s));
      },
    });
  counter("lookout_sink_sent_records_total", "Records the sink's backend acknowledged.", (s) => s.stats.sent);
  counter("lookout_sink_retries_total", "Sends that failed and were retried.", (s) => s.stats.retries);
  new Counter({
    name: "lookout_sink_dropped_records_total",
    help: "Records dropped because the backend refused them for good (reason rejected); each drop is also a SinkDropped event.",
    labelNames: ["sink", "reason"],
    registers: [registry],
    collect() {
      this.reset();
      for (const s of sinks.list())
        for (const [reason, n] of s.stats.dropped) this.inc({ sink: s.config.name, reason }, n);
    },
  });
  gauge(
    "lookout_sink_last_success_timestamp_seconds",
    "When the sink's backend last acknowledged a batch (0: not since start).",
    (s) => s.stats.lastSuccessAt / 1000,
  );
  gauge("lookout_sink_up", "1 while the sink delivers (or has nothing to), 0 while it retries.", (s) =>
    s.running && !s.stats.retrying ? 1 : 0,
  );
  gauge(
    "lookout_sink_lag_events",
    "Events committed to the log that the sink has not finished.",
    (s) => lag(s)?.lagEvents ?? 0,
  );
  gauge(
    "lookout_sink_lag_seconds",
    "Age of the oldest event the sink has not finished (0 when caught up).",
    (s) => lag(s)?.lagSeconds ?? 0,
  );
}
