import { Counter, Gauge, Histogram, type Registry } from "prom-client";
import type { CheckType } from "../../model/config.js";
import type { OverloadSample } from "./overload.js";

/** How a run ended, as the `result` label of `lookout_checks_total` says it. */
export type RunResult = "ok" | "warning" | "critical" | "unknown" | "timeout";

/** The scheduler's instruments. Every method is cheap enough to call once per check run. */
export interface SchedulerMetrics {
  runFinished(type: CheckType, result: RunResult, durationMs: number): void;
  runStarted(latenessMs: number): void;
  inFlight(n: number): void;
  scheduled(n: number): void;
  /** Slots passed over because the object's previous run ended after its next slot. */
  skipped(type: CheckType, slots: number): void;
  /** The latest sample of the queue (src/engine/scheduler/overload.ts). */
  overload(sample: OverloadSample): void;
}

/** Metrics that go nowhere, for a scheduler created without a registry. */
export const noMetrics: SchedulerMetrics = {
  runFinished() {},
  runStarted() {},
  inFlight() {},
  scheduled() {},
  skipped() {},
  overload() {},
};

const DURATION_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];
const LATENESS_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

/** The instruments registered in each registry: a registry refuses a second metric of a name. */
const made = new WeakMap<Registry, SchedulerMetrics>();

/**
 * The scheduler's metrics in `registry`, registered on the first call; later calls (a server that
 * stops scheduling and starts again, as a leader that lost its lease and won it back does) share
 * them.
 */
export function createSchedulerMetrics(registry: Registry): SchedulerMetrics {
  let m = made.get(registry);
  if (m === undefined) {
    m = registerSchedulerMetrics(registry);
    made.set(registry, m);
  }
  return m;
}

function registerSchedulerMetrics(registry: Registry): SchedulerMetrics {
  const registers = [registry];
  const checks = new Counter({
    name: "lookout_checks_total",
    help: "Active check runs finished, by check type and result (timeout counts separately from critical).",
    labelNames: ["type", "result"] as const,
    registers,
  });
  const duration = new Histogram({
    name: "lookout_check_duration_seconds",
    help: "Wall time of active check runs, by check type; a timed-out run counts its timeout.",
    labelNames: ["type"] as const,
    buckets: DURATION_BUCKETS,
    registers,
  });
  const lateness = new Histogram({
    name: "lookout_schedule_lateness_seconds",
    help: "How long after its due time an active check started (start time minus due time).",
    buckets: LATENESS_BUCKETS,
    registers,
  });
  const inFlight = new Gauge({
    name: "lookout_checks_in_flight",
    help: "Active check runs holding a concurrency slot right now.",
    registers,
  });
  const scheduled = new Gauge({
    name: "lookout_checks_scheduled",
    help: "Objects with an active check on the schedule.",
    registers,
  });
  const skipped = new Counter({
    name: "lookout_schedule_skipped_total",
    help: "Schedule slots passed over because a run ended after its object's next slot (overload or a slow check).",
    labelNames: ["type"] as const,
    registers,
  });

  const gauge = (name: string, help: string): Gauge => new Gauge({ name, help, registers });
  const backlog = gauge("lookout_schedule_backlog", "Due active checks waiting for a concurrency slot.");
  const oldestWait = gauge(
    "lookout_schedule_oldest_wait_seconds",
    "How long the due check that has waited longest has waited for a slot (0 when none waits).",
  );
  const demand = gauge(
    "lookout_schedule_demand_per_second",
    "Active checks per second the schedule asks for: the sum of 1 / check_interval.",
  );
  const startRate = gauge(
    "lookout_schedule_started_per_second",
    "Active check runs started per second, over the last few seconds.",
  );
  const shortfall = gauge(
    "lookout_schedule_shortfall_per_second",
    "Demand the scheduler does not start, per second, while due checks wait longer than 1 s (else 0).",
  );

  // prom-client hashes label values on every call; keep one child per label set instead.
  const checkChildren = new Map<string, Counter.Internal>();
  const durationChildren = new Map<string, Histogram.Internal<"type">>();

  return {
    runFinished(type, result, durationMs) {
      const k = `${type}/${result}`;
      let c = checkChildren.get(k);
      if (c === undefined) {
        c = checks.labels(type, result);
        checkChildren.set(k, c);
      }
      c.inc();
      let d = durationChildren.get(type);
      if (d === undefined) {
        d = duration.labels(type);
        durationChildren.set(type, d);
      }
      d.observe(durationMs / 1000);
    },
    runStarted(latenessMs) {
      lateness.observe(latenessMs / 1000);
    },
    inFlight(n) {
      inFlight.set(n);
    },
    scheduled(n) {
      scheduled.set(n);
    },
    skipped(type, slots) {
      skipped.inc({ type }, slots);
    },
    overload(s) {
      backlog.set(s.backlog);
      oldestWait.set(s.oldestWaitSeconds);
      demand.set(s.demandPerSecond);
      startRate.set(s.startedPerSecond);
      shortfall.set(s.shortfallPerSecond);
    },
  };
}
