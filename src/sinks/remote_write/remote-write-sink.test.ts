import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { compress, uncompress } from "snappyjs";
import { runSinkContract, type SeenPoint } from "../contract.case.js";
import { startFaultProxy } from "../fault-proxy.case.js";
import type { MetricPoint } from "../sink.js";
import { type Prometheus, startPrometheus } from "./prometheus.case.js";
import { createRemoteWriteSink } from "./remote-write-sink.js";
import { encodeWriteRequest, seriesLabels } from "./write-request.js";

let prom: Prometheus;
let promUrl = "";

before(async () => {
  prom = await startPrometheus();
  promUrl = prom.url;
});

after(() => prom.stop());

const readBack = (): Promise<SeenPoint[]> => prom.readPoints();

runSinkContract({
  type: "remote_write",
  async backend() {
    // Each test starts from an empty TSDB as PromQL sees it.
    await prom.clear();
    const proxy = await startFaultProxy(promUrl);
    return {
      fields: { url: `${proxy.url}/api/v1/write` },
      readPoints: readBack,
      readEvents: async () => [],
      events: false,
      ordered: false,
      fault: proxy.fault,
      faults: ["down", "slow", "garbage"],
      // Older than the head's lowest valid time: "out of bounds".
      refusedTime: Date.now() - 30 * 86_400_000,
      stop: proxy.stop,
    };
  },
});

const point = (o: Partial<MetricPoint>): MetricPoint => ({
  kind: "metric",
  seq: 1,
  time: Date.now(),
  host: "web1",
  service: "http",
  zone: "eu",
  labels: { env: "prod", "app.tier": "web", host: "shadowed" },
  name: "rta",
  value: 1.5,
  unit: "ms",
  warn: "",
  crit: "",
  ...o,
});

describe("remote_write sink", () => {
  it("labels are sorted, Prometheus-safe, and Lookout's own win over object labels", () => {
    assert.deepEqual(seriesLabels(point({})), [
      ["__name__", "lookout_perfdata"],
      ["app_tier", "web"],
      ["env", "prod"],
      ["host", "web1"],
      ["perfdata", "rta"],
      ["service", "http"],
      ["unit", "ms"],
      ["zone", "eu"],
    ]);
  });

  it("the body is snappy block format of a WriteRequest", () => {
    const raw = encodeWriteRequest([point({})]);
    assert.ok(raw.length > 20);
    // The label name __name__ appears verbatim in the protobuf.
    assert.ok(Buffer.from(raw).includes(Buffer.from("lookout_perfdata")));
    assert.deepEqual(uncompress(compress(raw)), raw);
  });

  it("each series goes with strictly increasing timestamps: points checked in the same ms are all kept", async () => {
    const s = createRemoteWriteSink({ url: `${promUrl}/api/v1/write` });
    const t = Date.now() - 60_000;
    const labels = { env: "prod" };
    const signal = new AbortController().signal;
    // Batches in log order (seq), as the runner sends them; [host, check time, value] per point.
    const batches: [string, number, number][][] = [
      // Results submitted together without a check time, and an unrelated active check's point.
      [
        ["same", t, 1],
        ["same", t, 2],
        ["same", t, 3],
        ["active", t + 5, 9],
      ],
      // The next batch, still in the same ms.
      [
        ["same", t, 4],
        ["active", t + 10, 10],
      ],
      // Out of order within one batch, and later than the moved ones.
      [
        ["late", t + 100, 1],
        ["late", t + 50, 2],
        ["same", t + 1, 5],
      ],
    ];
    let seq = 0;
    for (const b of batches) {
      seq++;
      // One labels object per object, as the mapper gives them.
      const records = b.map(([host, time, value]) => point({ host, time, value, seq, labels }));
      const r = await s.send({ records, firstSeq: seq, lastSeq: seq }, signal);
      assert.equal(r.kind, "delivered", JSON.stringify(r));
    }
    const got = (await readBack()).filter((p) => ["same", "active", "late"].includes(p.host));
    const series = (host: string) =>
      got
        .filter((p) => p.host === host)
        .sort((a, b) => a.time - b.time)
        .map((p) => [p.time - t, p.value]);
    assert.deepEqual(series("same"), [
      [0, 1],
      [1, 2],
      [2, 3],
      [3, 4],
      [4, 5],
    ]);
    assert.deepEqual(series("active"), [
      [5, 9],
      [10, 10],
    ]);
    assert.deepEqual(series("late"), [
      [50, 2],
      [100, 1],
    ]);
  });

  it("a 400 from Prometheus (out-of-bounds sample) is refused for good, never retried", async () => {
    const s = createRemoteWriteSink({ url: `${promUrl}/api/v1/write` });
    const old = point({ time: Date.now() - 30 * 86_400_000 });
    const r = await s.send({ records: [old], firstSeq: 1, lastSeq: 1 }, new AbortController().signal);
    assert.equal(r.kind, "rejected", JSON.stringify(r));
  });
});
