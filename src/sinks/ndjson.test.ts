import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { metricJsonSlow, recordJson } from "./ndjson.js";
import type { MetricPoint } from "./sink.js";

const labels = { env: "prod", "app.tier": 'we"b' };
const base: MetricPoint = {
  kind: "metric",
  seq: 12,
  time: 1_764_201_600_123,
  host: "web1",
  service: "http",
  zone: "eu",
  labels,
  name: "rta",
  value: 0.25,
  unit: "ms",
  warn: "~:10",
  crit: "@5:20",
};

describe("ndjson", () => {
  it("a point's line is the documented JSON, built from cached series parts", () => {
    const cases: Partial<MetricPoint>[] = [
      {},
      { min: 0, max: 100 },
      { value: -3e-9, service: "", unit: "" },
      { name: 'quo"te\\ and \u2028 line', host: "h\u0000" },
      { labels: {} },
    ];
    for (const c of cases) {
      const p = { ...base, ...c };
      // Twice: the second line comes from the cache.
      assert.equal(recordJson(p), metricJsonSlow(p), JSON.stringify(c));
      assert.equal(recordJson(p), metricJsonSlow(p), JSON.stringify(c));
      assert.deepEqual(Object.keys(JSON.parse(recordJson(p))).slice(0, 3), ["seq", "time", "host"]);
    }
  });

  it("an event's line is its seq, then the event as the log holds it", () => {
    const line = recordJson({ kind: "event", seq: 5, event: { type: "ConfigApplied", at: 7 } as never });
    assert.deepEqual(JSON.parse(line), { seq: 5, type: "ConfigApplied", at: 7 });
  });
});
