import { Counter, Gauge, Histogram, type Registry } from "prom-client";

/** Why the server did not publish a due job of a remote zone (the `reason` label). */
export type DropReason = "nats_unreachable" | "backlog" | "no_worker" | "publish_failed";

/** What the zone machinery observes, read by the liveness poll and written at each job/result. */
export interface ZoneSnapshot {
  /** Live workers per zone (entries in the workers bucket). */
  readonly workers: ReadonlyMap<string, number>;
  /** Per zone: jobs handed to workers so far (the zone consumer's delivered count) and still waiting. */
  readonly taken: ReadonlyMap<string, number>;
  readonly waiting: ReadonlyMap<string, number>;
  /** Per zone: jobs live workers dropped unrun because they had expired. */
  readonly expired: ReadonlyMap<string, number>;
  /** Results published by workers and not yet ingested. */
  readonly resultsPending: number;
}

/** The zone instruments; every method is cheap enough to call per job. */
export interface ZoneMetrics {
  published(zone: string): void;
  dropped(zone: string, reason: DropReason): void;
  ingested(zone: string, lagMs: number): void;
  duplicate(): void;
  snapshot(s: ZoneSnapshot): void;
}

export const noZoneMetrics: ZoneMetrics = {
  published() {},
  dropped() {},
  ingested() {},
  duplicate() {},
  snapshot() {},
};

const LAG_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300];

/** Registers the zone metrics (docs/zones.md, Metrics). Call once per registry. */
export function createZoneMetrics(registry: Registry): ZoneMetrics {
  const registers = [registry];
  const published = new Counter({
    name: "lookout_zone_jobs_published_total",
    help: "Due checks of remote zones published as jobs, by zone.",
    labelNames: ["zone"] as const,
    registers,
  });
  const dropped = new Counter({
    name: "lookout_zone_jobs_dropped_total",
    help: "Due checks of remote zones not published, by zone and reason (nats_unreachable, backlog, no_worker, publish_failed).",
    labelNames: ["zone", "reason"] as const,
    registers,
  });
  const ingested = new Counter({
    name: "lookout_zone_results_ingested_total",
    help: "Results from workers enqueued into the event log, by zone.",
    labelNames: ["zone"] as const,
    registers,
  });
  const duplicates = new Counter({
    name: "lookout_zone_results_duplicate_total",
    help: "Results redelivered after they were already logged, skipped by their stream sequence.",
    registers,
  });
  const lag = new Histogram({
    name: "lookout_zone_result_lag_seconds",
    help: "From a remote check's due time to its result entering the event log.",
    buckets: LAG_BUCKETS,
    registers,
  });
  const workers = new Gauge({
    name: "lookout_zone_workers",
    help: "Live workers per zone (entries in the workers bucket).",
    labelNames: ["zone"] as const,
    registers,
  });
  const taken = new Gauge({
    name: "lookout_zone_jobs_taken",
    help: "Jobs the zone's consumer has delivered to workers since it was created.",
    labelNames: ["zone"] as const,
    registers,
  });
  const waiting = new Gauge({
    name: "lookout_zone_jobs_waiting",
    help: "Jobs published and not yet taken by a worker, by zone.",
    labelNames: ["zone"] as const,
    registers,
  });
  const expired = new Gauge({
    name: "lookout_zone_jobs_expired",
    help: "Jobs the zone's live workers dropped unrun because they had expired (sum of their counters).",
    labelNames: ["zone"] as const,
    registers,
  });
  const pending = new Gauge({
    name: "lookout_zone_results_pending",
    help: "Results published by workers and not yet ingested (the leader's lag in messages).",
    registers,
  });
  const setAll = (g: Gauge<"zone">, m: ReadonlyMap<string, number>) => {
    g.reset();
    for (const [zone, n] of m) g.set({ zone }, n);
  };
  return {
    published: (zone) => published.inc({ zone }),
    dropped: (zone, reason) => dropped.inc({ zone, reason }),
    ingested(zone, lagMs) {
      ingested.inc({ zone });
      lag.observe(Math.max(0, lagMs) / 1000);
    },
    duplicate: () => duplicates.inc(),
    snapshot(s) {
      setAll(workers, s.workers);
      setAll(taken, s.taken);
      setAll(waiting, s.waiting);
      setAll(expired, s.expired);
      pending.set(s.resultsPending);
    },
  };
}
