import { Counter, Gauge, Histogram, type Registry } from "prom-client";
import type { ResultRefusal } from "./result-refusal.js";

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
  /** A result refused for its zone or object (result-refusal.ts); `zone` is the subject's. */
  refused(zone: string, reason: ResultRefusal): void;
  duplicate(): void;
  snapshot(s: ZoneSnapshot): void;
}

export const noZoneMetrics: ZoneMetrics = {
  published() {},
  dropped() {},
  ingested() {},
  refused() {},
  duplicate() {},
  snapshot() {},
};

const LAG_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300];

/** A metric's name and help text (docs/zones.md, Metrics, lists the same). */
interface Spec {
  readonly name: string;
  readonly help: string;
}

/** The counters, by what increments them. */
const COUNTERS = {
  published: {
    name: "lookout_zone_jobs_published_total",
    help: "Due checks of remote zones published as jobs, by zone.",
  },
  dropped: {
    name: "lookout_zone_jobs_dropped_total",
    help: "Due checks of remote zones not published, by zone and reason (nats_unreachable, backlog, no_worker, publish_failed).",
  },
  ingested: {
    name: "lookout_zone_results_ingested_total",
    help: "Results from workers enqueued into the event log, by zone.",
  },
  refused: {
    name: "lookout_zone_results_refused_total",
    help: "Results refused, by the zone of the subject they arrived on and reason (malformed, zone_mismatch, unknown_object, wrong_zone, local_zone, not_active).",
  },
  duplicates: {
    name: "lookout_zone_results_duplicate_total",
    help: "Results redelivered after they were already logged, skipped by their stream sequence.",
  },
} as const satisfies Record<string, Spec>;

/** The per-zone gauges, each set at every poll from the ZoneSnapshot field of the same name. */
const ZONE_GAUGES: readonly (readonly [Exclude<keyof ZoneSnapshot, "resultsPending">, Spec])[] = [
  [
    "workers",
    { name: "lookout_zone_workers", help: "Live workers per zone (entries in the workers bucket)." },
  ],
  [
    "taken",
    {
      name: "lookout_zone_jobs_taken",
      help: "Jobs the zone's consumer has delivered to workers since it was created.",
    },
  ],
  [
    "waiting",
    { name: "lookout_zone_jobs_waiting", help: "Jobs published and not yet taken by a worker, by zone." },
  ],
  [
    "expired",
    {
      name: "lookout_zone_jobs_expired",
      help: "Jobs the zone's live workers dropped unrun because they had expired (sum of their counters).",
    },
  ],
];

const LAG: Spec = {
  name: "lookout_zone_result_lag_seconds",
  help: "From a remote check's due time to its result entering the event log.",
};
const PENDING: Spec = {
  name: "lookout_zone_results_pending",
  help: "Results published by workers and not yet ingested (the leader's lag in messages).",
};

/** Registers the zone metrics (docs/zones.md, Metrics). Call once per registry. */
export function createZoneMetrics(registry: Registry): ZoneMetrics {
  const registers = [registry];
  const zone = ["zone"] as const;
  const published = new Counter({ ...COUNTERS.published, labelNames: zone, registers });
  const dropped = new Counter({ ...COUNTERS.dropped, labelNames: ["zone", "reason"] as const, registers });
  const ingested = new Counter({ ...COUNTERS.ingested, labelNames: zone, registers });
  const refused = new Counter({ ...COUNTERS.refused, labelNames: ["zone", "reason"] as const, registers });
  const duplicates = new Counter({ ...COUNTERS.duplicates, registers });
  const lag = new Histogram({ ...LAG, buckets: LAG_BUCKETS, registers });
  const gauges = ZONE_GAUGES.map(([field, spec]) => {
    const g = new Gauge({ ...spec, labelNames: zone, registers });
    return (s: ZoneSnapshot) => {
      g.reset();
      for (const [z, n] of s[field]) g.set({ zone: z }, n);
    };
  });
  // Registered last, as before the table: /metrics lists the zone metrics in the same order.
  const pending = new Gauge({ ...PENDING, registers });
  return {
    published: (z) => published.inc({ zone: z }),
    dropped: (z, reason) => dropped.inc({ zone: z, reason }),
    ingested(z, lagMs) {
      ingested.inc({ zone: z });
      lag.observe(Math.max(0, lagMs) / 1000);
    },
    refused: (z, reason) => refused.inc({ zone: z, reason }),
    duplicate: () => duplicates.inc(),
    snapshot(s) {
      for (const set of gauges) set(s);
      pending.set(s.resultsPending);
    },
  };
}
