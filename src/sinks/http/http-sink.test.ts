import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { eventsFromNdjson, pointsFromNdjson, runSinkContract } from "../contract.case.js";
import type { SinkBatch } from "../sink.js";
import { createHttpSink } from "./http-sink.js";
import { ndjsonReceiver } from "./ndjson-receiver.case.js";

runSinkContract({
  type: "http",
  async backend() {
    const rx = await ndjsonReceiver();
    return {
      fields: { url: rx.url, headers: { "X-Scope": "t1" } },
      readPoints: async () => pointsFromNdjson(rx.body()),
      readEvents: async () => eventsFromNdjson(rx.body()),
      fault: rx.fault,
      faults: ["down", "slow", "garbage"],
      stop: rx.stop,
    };
  },
});

const batch: SinkBatch = {
  records: [
    {
      kind: "metric",
      seq: 1,
      time: 5,
      host: "h",
      service: "",
      zone: "z",
      labels: { env: "prod" },
      name: "rta",
      value: 0.5,
      unit: "ms",
      warn: "1",
      crit: "2",
    },
  ],
  firstSeq: 1,
  lastSeq: 1,
};

describe("http sink", () => {
  it("sends headers, turns URL credentials into Basic auth, and keeps them out of errors", async () => {
    const rx = await ndjsonReceiver();
    try {
      const url = rx.url.replace("http://", "http://alice:s3cret@");
      const s = createHttpSink({ url, headers: { "X-Scope": "t1" } });
      assert.equal((await s.send(batch, new AbortController().signal)).kind, "delivered");
      const req = rx.requests[0];
      assert.equal(req?.headers["x-scope"], "t1");
      assert.equal(req?.headers["content-type"], "application/x-ndjson");
      assert.equal(req?.headers.authorization, `Basic ${Buffer.from("alice:s3cret").toString("base64")}`);
      assert.deepEqual(JSON.parse(rx.body()), {
        seq: 1,
        time: 5,
        host: "h",
        service: "",
        zone: "z",
        labels: { env: "prod" },
        name: "rta",
        value: 0.5,
        unit: "ms",
        warn: "1",
        crit: "2",
      });
      rx.fault("reject");
      const r = await s.send(batch, new AbortController().signal);
      assert.equal(r.kind, "rejected", "a 400 is refused for good, not retried");
      assert.equal(r.data, true, "a 400 refuses the records: the runner splits the batch");
      await rx.stop();
      const down = await s.send(batch, new AbortController().signal);
      assert.equal(down.kind, "retry");
      assert.ok(!JSON.stringify(down).includes("s3cret"), JSON.stringify(down));
    } finally {
      await rx.stop().catch(() => {});
    }
  });
});
