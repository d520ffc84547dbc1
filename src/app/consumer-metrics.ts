import { Gauge, type Registry } from "prom-client";
import type { ConsumerHost } from "../consumers/index.js";

/**
 * Registers `lookout_log_consumer_*{consumer}`: each consumer of the event log's position, its lag
 * in events and in seconds, and whether it is stuck behind the retention (it then holds the log's
 * trimming back). Read from the host at scrape time.
 */
export function registerConsumerMetrics(registry: Registry, host: ConsumerHost): void {
  const gauge = (
    name: string,
    help: string,
    pick: (s: ReturnType<ConsumerHost["statuses"]>[number]) => number,
  ) =>
    new Gauge({
      name,
      help,
      labelNames: ["consumer"],
      registers: [registry],
      collect() {
        this.reset();
        for (const s of host.statuses()) this.set({ consumer: s.name }, pick(s));
      },
    });
  gauge(
    "lookout_log_consumer_position",
    "The last event log sequence number the consumer finished.",
    (s) => s.position,
  );
  gauge(
    "lookout_log_consumer_lag_events",
    "Events committed to the log that the consumer has not finished.",
    (s) => s.lagEvents,
  );
  gauge(
    "lookout_log_consumer_lag_seconds",
    "Age of the oldest event the consumer has not finished (0 when caught up).",
    (s) => s.lagSeconds,
  );
  gauge(
    "lookout_log_consumer_stuck",
    "1 when the consumer's oldest unfinished event is older than -event-retention (the log is kept for it).",
    (s) => (s.stuck ? 1 : 0),
  );
}
