import assert from "node:assert/strict";
import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import { describe, it } from "node:test";
import { eventsFromNdjson, type FaultMode, pointsFromNdjson, runSinkContract } from "../contract.case.js";
import type { SinkBatch } from "../sink.js";
import { createHttpSink } from "./http-sink.js";

/** A loopback NDJSON receiver with faults. */
export async function ndjsonReceiver(): Promise<{
  url: string;
  body: () => string;
  requests: IncomingMessage[];
  fault: (m: FaultMode | "reject") => void;
  stop: () => Promise<void>;
}> {
  let mode: FaultMode | "reject" = "ok";
  let body = "";
  const requests: IncomingMessage[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      requests.push(req);
      switch (mode) {
        case "down":
          res.writeHead(503).end("down");
          return;
        case "reject":
          res.writeHead(400).end("bad batch");
          return;
        case "garbage":
          req.socket.end("garbage\r\n\r\n\u0000\u0001");
          return;
        case "slow":
          setTimeout(() => {
            body += Buffer.concat(chunks).toString();
            res.writeHead(200).end();
          }, 300);
          return;
        case "ok":
          body += Buffer.concat(chunks).toString();
          res.writeHead(204).end();
          return;
      }
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/ingest`,
    body: () => body,
    requests,
    fault: (m) => {
      mode = m;
    },
    stop: () =>
      new Promise((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

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
      await rx.stop();
      const down = await s.send(batch, new AbortController().signal);
      assert.equal(down.kind, "retry");
      assert.ok(!JSON.stringify(down).includes("s3cret"), JSON.stringify(down));
    } finally {
      await rx.stop().catch(() => {});
    }
  });
});
