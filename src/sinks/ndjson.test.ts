import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { LoggedEvent } from "../store/index.js";
import { metricJsonSlow, recordJson } from "./ndjson.js";
import { createRecordMapper, type ObjectInfo } from "./records.js";
import { encodeWriteRequest } from "./remote_write/write-request.js";
import type { MetricPoint, SinkRecord } from "./sink.js";

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

  it("points the mapper makes (series objects) encode as points without them, even for a service the configuration lost", () => {
    const web: ObjectInfo = { zone: "eu", labels: { env: "prod" } };
    const http: ObjectInfo = { zone: "eu", labels: { env: "prod", tier: "web" } };
    // Like configLookup: a service it does not know gets its host's info.
    const lookup = (host: string, service: string | undefined) =>
      host !== "web1" ? undefined : service === "http" ? http : web;
    const mapper = createRecordMapper("s", "metrics", "", () => lookup);
    const result = (seq: number, host: string, service: string | undefined): LoggedEvent =>
      ({
        seq,
        cmdSeq: seq,
        event: {
          type: "CheckResultProcessed",
          at: 1,
          host,
          ...(service === undefined ? {} : { service }),
          key: `${host}!${service ?? ""}`,
          result: {
            checkedAt: 1_764_201_600_000 + seq,
            perfdata: [
              { label: "rta", value: seq, uom: "ms", warn: "", crit: "" },
              { label: "rta", value: seq, uom: "s", warn: "", crit: "", min: 0 },
            ],
          },
        },
      }) as never;
    const points: SinkRecord[] = [];
    // Twice each: the second time from the caches.
    for (const [host, service] of [
      ["web1", undefined],
      ["web1", "http"],
      ["web1", "gone"],
      ["db9", "sql"],
      ["web1", undefined],
      ["web1", "http"],
      ["web1", "gone"],
    ] as const)
      mapper.map(result(points.length + 1, host, service), points);
    assert.equal(points.length, 14);
    assert.ok(points.some((p) => p.kind === "metric" && p.series !== undefined));
    assert.ok(
      points.some((p) => p.kind === "metric" && p.series === undefined),
      "an unknown host",
    );
    for (const p of points) {
      assert.ok(p.kind === "metric");
      const { series: _, ...plain } = p;
      assert.equal(recordJson(p), metricJsonSlow(plain), `${p.host} ${p.service} ${p.unit}`);
      assert.deepEqual(
        encodeWriteRequest([p]),
        encodeWriteRequest([plain]),
        `${p.host} ${p.service} ${p.unit}`,
      );
    }
  });
});
