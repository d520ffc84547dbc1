import assert from "node:assert/strict";
import { test } from "node:test";
import { Registry } from "prom-client";
import { createZoneMetrics } from "./metrics.js";

/** What docs/zones.md (Metrics) promises on /metrics, with the kind of each. */
const DOCUMENTED: readonly (readonly [string, "counter" | "gauge" | "histogram"])[] = [
  ["lookout_zone_jobs_published_total", "counter"],
  ["lookout_zone_jobs_dropped_total", "counter"],
  ["lookout_zone_jobs_taken", "gauge"],
  ["lookout_zone_jobs_waiting", "gauge"],
  ["lookout_zone_jobs_expired", "gauge"],
  ["lookout_zone_results_ingested_total", "counter"],
  ["lookout_zone_results_refused_total", "counter"],
  ["lookout_zone_results_duplicate_total", "counter"],
  ["lookout_zone_result_lag_seconds", "histogram"],
  ["lookout_zone_results_pending", "gauge"],
  ["lookout_zone_workers", "gauge"],
];

test("the zone metrics are the documented ones, each with its help text and kind", async () => {
  const registry = new Registry();
  createZoneMetrics(registry);
  const text = await registry.metrics();
  const types = [...text.matchAll(/^# TYPE (\S+) (\S+)$/gm)].map((m) => [m[1], m[2]]);
  assert.deepEqual(types.sort(), DOCUMENTED.map(([n, k]) => [n, k]).sort());
  for (const [name] of DOCUMENTED) assert.match(text, new RegExp(`^# HELP ${name} \\S.*\\.$`, "m"), name);
});

test("each call and snapshot lands in its series; a zone gone from a snapshot leaves its gauges", async () => {
  const registry = new Registry();
  const m = createZoneMetrics(registry);
  m.published("dc2");
  m.published("dc2");
  m.dropped("dc3", "no_worker");
  m.ingested("dc2", 1_500);
  m.duplicate();
  m.refused("dc2", "wrong_zone");
  const zones = (n: number) =>
    new Map([
      ["dc2", n],
      ["dc3", n + 1],
    ]);
  m.snapshot({
    workers: zones(1),
    taken: zones(10),
    waiting: zones(3),
    expired: zones(5),
    resultsPending: 7,
  });
  m.snapshot({
    workers: new Map([["dc2", 2]]),
    taken: new Map([["dc2", 11]]),
    waiting: new Map([["dc2", 0]]),
    expired: new Map([["dc2", 6]]),
    resultsPending: 4,
  });
  const text = await registry.metrics();
  const cases: [string, number | undefined][] = [
    ['lookout_zone_jobs_published_total{zone="dc2"}', 2],
    ['lookout_zone_jobs_dropped_total{zone="dc3",reason="no_worker"}', 1],
    ['lookout_zone_results_ingested_total{zone="dc2"}', 1],
    ["lookout_zone_results_duplicate_total", 1],
    ['lookout_zone_results_refused_total{zone="dc2",reason="wrong_zone"}', 1],
    ["lookout_zone_result_lag_seconds_count", 1],
    ['lookout_zone_result_lag_seconds_bucket{le="2.5"}', 1],
    ['lookout_zone_result_lag_seconds_bucket{le="1"}', 0],
    ['lookout_zone_workers{zone="dc2"}', 2],
    ['lookout_zone_jobs_taken{zone="dc2"}', 11],
    ['lookout_zone_jobs_waiting{zone="dc2"}', 0],
    ['lookout_zone_jobs_expired{zone="dc2"}', 6],
    ["lookout_zone_results_pending", 4],
    ['lookout_zone_workers{zone="dc3"}', undefined],
    ['lookout_zone_jobs_taken{zone="dc3"}', undefined],
  ];
  for (const [series, want] of cases) {
    const line = text.split("\n").find((l) => l.startsWith(`${series} `));
    assert.equal(line === undefined ? undefined : Number(line.slice(series.length + 1)), want, series);
  }
});
