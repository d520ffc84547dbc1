import assert from "node:assert/strict";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { describe, it } from "node:test";
import { BinaryReader, BinaryWriter, WireType } from "@bufbuild/protobuf/wire";
import { type FaultMode, runSinkContract, type SeenEvent, type SeenPoint } from "../contract.case.js";
import type { SinkBatch } from "../sink.js";
import { createOtlpSink, otlpUrl } from "./otlp-sink.js";

/**
 * A decoder of the OTLP v1 messages the receiver needs, written from the field numbers of
 * opentelemetry-proto independently of the sink's encoder: each message is read into a map of field
 * number to the values it holds (length-delimited ones as sub-readers on demand).
 */
type Fields = Map<number, (Uint8Array | bigint | number)[]>;

function fields(buf: Uint8Array): Fields {
  const r = new BinaryReader(buf);
  const out: Fields = new Map();
  while (r.pos < r.len) {
    const [no, wt] = r.tag();
    let v: Uint8Array | bigint | number;
    switch (wt) {
      case WireType.LengthDelimited:
        v = r.bytes();
        break;
      case WireType.Varint:
        v = BigInt(r.int64());
        break;
      case WireType.Bit64:
        v = r.fixed64() as unknown as bigint;
        break;
      case WireType.Bit32:
        v = r.fixed32();
        break;
      default:
        r.skip(wt);
        continue;
    }
    const list = out.get(no) ?? [];
    list.push(v);
    out.set(no, list);
  }
  return out;
}
const sub = (f: Fields, no: number): Fields[] => (f.get(no) ?? []).map((b) => fields(b as Uint8Array));
const str = (f: Fields, no: number): string =>
  new TextDecoder().decode((f.get(no)?.[0] as Uint8Array) ?? new Uint8Array());
const double = (f: Fields, no: number): number => {
  const raw = BigInt.asUintN(64, BigInt(f.get(no)?.[0] as bigint));
  const b = Buffer.alloc(8);
  b.writeBigUInt64LE(raw);
  return b.readDoubleLE(0);
};
/** KeyValue list (repeated field `no`) → record; AnyValue string_value = 1, int_value = 3. */
function attrs(f: Fields, no: number): Record<string, string> {
  const out: Record<string, string> = {};
  for (const kv of sub(f, no)) {
    const v = sub(kv, 2)[0];
    if (v === undefined) continue;
    out[str(kv, 1)] = v.has(1) ? str(v, 1) : String(v.get(3)?.[0]);
  }
  return out;
}

/** ExportMetricsServiceRequest → points (resource_metrics 1 → scope_metrics 2 → metrics 2 → gauge 5 → data_points 1). */
export function decodeMetrics(body: Uint8Array): SeenPoint[] {
  const out: SeenPoint[] = [];
  for (const rm of sub(fields(body), 1))
    for (const sm of sub(rm, 2))
      for (const m of sub(sm, 2))
        for (const g of sub(m, 5))
          for (const dp of sub(g, 1)) {
            const a = attrs(dp, 7);
            out.push({
              host: a.host ?? "",
              service: a.service ?? "",
              name: str(m, 1),
              value: double(dp, 4),
              time: Number(BigInt(dp.get(3)?.[0] as bigint) / 1_000_000n),
            });
          }
  return out;
}

/** ExportLogsServiceRequest → events (resource_logs 1 → scope_logs 2 → log_records 2). */
export function decodeLogs(body: Uint8Array): (SeenEvent & { body: string })[] {
  const out: (SeenEvent & { body: string })[] = [];
  for (const rl of sub(fields(body), 1))
    for (const sl of sub(rl, 2))
      for (const lr of sub(sl, 2)) {
        const a = attrs(lr, 6);
        const b = sub(lr, 5)[0];
        out.push({
          seq: Number(a["lookout.seq"]),
          type: a["event.type"] ?? "",
          ...(a.host === undefined ? {} : { host: a.host }),
          body: b === undefined ? "" : str(b, 1),
        });
      }
  return out;
}

async function receiver(): Promise<{
  url: string;
  points: SeenPoint[];
  events: SeenEvent[];
  headers: Record<string, string | string[] | undefined>[];
  fault(m: FaultMode | number | "partial"): void;
  stop(): Promise<void>;
}> {
  let mode: FaultMode | number | "partial" = "ok";
  const points: SeenPoint[] = [];
  const events: SeenEvent[] = [];
  const headers: Record<string, string | string[] | undefined>[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      headers.push(req.headers);
      if (typeof mode === "number") return void res.writeHead(mode, { "Retry-After": "0" }).end();
      switch (mode) {
        case "down":
          return void res.writeHead(503, { "Retry-After": "0" }).end();
        case "garbage":
          return void req.socket.end("\u0000garbage\r\n\r\n");
        default:
      }
      const body = Buffer.concat(chunks);
      const reply = (): void => {
        if (req.url === "/otlp/v1/metrics") points.push(...decodeMetrics(body));
        else if (req.url === "/otlp/v1/logs") events.push(...decodeLogs(body));
        else return void res.writeHead(404).end();
        // partial: kept the batch but one point rejected (ExportMetricsServiceResponse.partial_success).
        const answer =
          mode === "partial"
            ? new BinaryWriter()
                .tag(1, WireType.LengthDelimited)
                .fork()
                .tag(1, WireType.Varint)
                .int64(1)
                .tag(2, WireType.LengthDelimited)
                .string("point 0 has no name")
                .join()
                .finish()
            : new Uint8Array();
        res.writeHead(200, { "Content-Type": "application/x-protobuf" }).end(answer);
      };
      if (mode === "slow") setTimeout(reply, 300);
      else reply();
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/otlp`,
    points,
    events,
    headers,
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
  type: "otlp",
  async backend() {
    const rx = await receiver();
    return {
      fields: { url: rx.url, headers: { "X-Tenant": "t1" } },
      readPoints: async () => [...rx.points],
      readEvents: async () => [...rx.events],
      ordered: false,
      fault: rx.fault,
      faults: ["down", "slow", "garbage"],
      stop: rx.stop,
    };
  },
});

describe("otlp sink", () => {
  const batch: SinkBatch = {
    records: [
      {
        kind: "metric",
        seq: 7,
        time: 1_764_201_600_123,
        host: "web1",
        service: "http",
        zone: "eu",
        labels: { env: "prod" },
        name: "rta",
        value: 0.25,
        unit: "s",
        warn: "1",
        crit: "2",
      },
    ],
    firstSeq: 7,
    lastSeq: 7,
  };

  it("posts to <url>/v1/metrics with the headers; retries only 429/502/503/504; 400/413 refuse the records", async () => {
    assert.equal(otlpUrl("http://c:4318", "metrics"), "http://c:4318/v1/metrics");
    assert.equal(otlpUrl("http://c:4318/v1/logs", "events"), "http://c:4318/v1/logs");
    const rx = await receiver();
    try {
      const s = createOtlpSink({ url: rx.url, headers: { "X-Tenant": "t1" }, input: "metrics" });
      const signal = new AbortController().signal;
      assert.equal((await s.send(batch, signal)).kind, "delivered");
      assert.equal(rx.headers[0]?.["x-tenant"], "t1");
      assert.equal(rx.headers[0]?.["content-type"], "application/x-protobuf");
      assert.deepEqual(rx.points, [
        { host: "web1", service: "http", name: "rta", value: 0.25, time: 1_764_201_600_123 },
      ]);
      // data: refused for the records (the runner splits the batch), or for the request as such.
      for (const [status, kind, data] of [
        [429, "retry", false],
        [502, "retry", false],
        [503, "retry", false],
        [504, "retry", false],
        [500, "rejected", false],
        [400, "rejected", true],
        [413, "rejected", true],
        [401, "rejected", false],
      ] as const) {
        rx.fault(status);
        const r = await s.send(batch, signal);
        assert.equal(r.kind, kind, `HTTP ${status}`);
        assert.equal(r.kind === "rejected" && r.data === true, data, `HTTP ${status} refuses the records`);
        if (r.kind === "retry") assert.equal(r.retryAfterMs, 0, "Retry-After honoured");
      }
      // A 200 whose partial_success rejected a point: delivered, that point reported refused.
      rx.fault("partial");
      assert.deepEqual(await s.send(batch, signal), {
        kind: "delivered",
        refused: { count: 1, error: "point 0 has no name" },
      });
    } finally {
      await rx.stop();
    }
  });
});
