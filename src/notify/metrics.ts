import { Counter, Gauge, Histogram, type Registry } from "prom-client";

/** What the notifier reports; labels are contact types, kinds and results, never names or URLs. */
export interface NotifierMetrics {
  /** One decision or attempt: result sent, failed (permanent), retry, suppressed (type "none"). */
  notification(type: string, kind: string, result: "sent" | "failed" | "retry" | "suppressed"): void;
  /** How long one send attempt took. */
  latency(type: string, seconds: number): void;
  /** From the decision to delivery. */
  delivered(type: string, seconds: number): void;
  setPending(n: number): void;
}

/**
 * Registers `lookout_notifications_total{type,kind,result}`,
 * `lookout_notification_send_seconds{type}`, `lookout_notification_delivery_seconds{type}` and
 * `lookout_notifications_pending`.
 */
export function createNotifierMetrics(registry: Registry): NotifierMetrics {
  const total = new Counter({
    name: "lookout_notifications_total",
    help: "Notification decisions and attempts by contact type, kind and result (sent, failed, retry, suppressed).",
    labelNames: ["type", "kind", "result"],
    registers: [registry],
  });
  const send = new Histogram({
    name: "lookout_notification_send_seconds",
    help: "Duration of one notification send attempt, by contact type.",
    labelNames: ["type"],
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
  const delivery = new Histogram({
    name: "lookout_notification_delivery_seconds",
    help: "Time from the notifier's decision to delivery, retries included, by contact type.",
    labelNames: ["type"],
    buckets: [0.01, 0.05, 0.1, 0.5, 1, 5, 30, 60, 300, 1800],
    registers: [registry],
  });
  const pending = new Gauge({
    name: "lookout_notifications_pending",
    help: "Notifications decided and not yet delivered (queued, in flight or backing off).",
    registers: [registry],
  });
  return {
    notification: (type, kind, result) => total.inc({ type, kind, result }),
    latency: (type, s) => send.observe({ type }, s),
    delivered: (type, s) => delivery.observe({ type }, s),
    setPending: (n) => pending.set(n),
  };
}
