/**
 * A lean load generator for one result per call: unary ProcessCheckResult calls written on the
 * wire by hand, `concurrency` in flight, for `seconds` — Connect JSON over HTTP/1.1 keep-alive
 * (one connection per call in flight, a minimal response parser) or gRPC on one HTTP/2
 * connection (node:http2, one stream per call). It measures the server where a generated client
 * would not: connect-es' Node client spends several times the server's CPU on a call of one
 * result, so on a machine whose cores the client shares with the server, the client sets the
 * rate. Prints the JSON line of bench/ingest-client.ts.
 *
 *   node dist/bench/ingest-lean-client.js <url> <grpc|connect-json> <seconds> <concurrency> <hosts> <servicesPerHost>
 */
import http2 from "node:http2";
import net from "node:net";
import { create, toBinary } from "@bufbuild/protobuf";
import { timestampFromMs } from "@bufbuild/protobuf/wkt";
import { ProcessCheckResultRequestSchema } from "../src/api/gen/svc/v1/command_service_pb.js";
import { fleetHost, fleetService } from "../src/core/fleet-config.js";

const [url, protocol, secs, conc, hostsArg, servicesArg] = process.argv.slice(2);
if (url === undefined || (protocol !== "grpc" && protocol !== "connect-json")) {
  throw new Error(
    "usage: ingest-lean-client <url> <grpc|connect-json> <seconds> <concurrency> <hosts> <services>",
  );
}
const target = new URL(url);
const seconds = Number(secs ?? 10);
const concurrency = Number(conc ?? 50);
const hosts = Number(hostsArg ?? 1000);
const services = Number(servicesArg ?? 100);
const PATH = "/svc.v1.CommandService/ProcessCheckResult";

let next = Math.floor(Math.random() * hosts * services);
/** The next result: host, service, exit status, output (as ingest-client sends them). */
function result(): { host: string; service: string; exitStatus: number; output: string } {
  const i = next++ % (hosts * services);
  const bad = next % 97 === 0;
  return {
    host: fleetHost(Math.floor(i / services)),
    service: fleetService(i % services),
    exitStatus: bad ? 2 : 0,
    output: bad ? "CRITICAL - broken | time=1.5s;1;2;0" : "OK - all good | time=0.012s;1;2;0",
  };
}

/** One HTTP/1.1 keep-alive connection that carries one call at a time. */
function h1Connection(): { call(): Promise<void>; close(): void } {
  const socket = net.connect(Number(target.port), target.hostname);
  socket.setNoDelay(true);
  let pending: Buffer | undefined;
  let waiter: { resolve(): void; reject(e: Error): void } | undefined;
  const fail = (e: Error): void => {
    const w = waiter;
    waiter = undefined;
    w?.reject(e);
  };
  socket.on("error", fail);
  socket.on("close", () => fail(new Error("the server closed the connection")));
  socket.on("data", (chunk: Buffer) => {
    const buf = pending === undefined ? chunk : Buffer.concat([pending, chunk]);
    const end = buf.indexOf("\r\n\r\n");
    if (end < 0) {
      pending = buf;
      return;
    }
    const head = buf.toString("latin1", 0, end);
    const length = /\r\ncontent-length: *(\d+)/i.exec(head);
    if (length === null) {
      fail(new Error(`no content-length in the answer: ${head}`));
      return;
    }
    const total = end + 4 + Number(length[1]);
    if (buf.length < total) {
      pending = buf;
      return;
    }
    pending = buf.length > total ? buf.subarray(total) : undefined;
    if (!head.startsWith("HTTP/1.1 200")) {
      fail(
        new Error(`answered ${head.slice(0, head.indexOf("\r\n"))}: ${buf.toString("utf8", end + 4, total)}`),
      );
      return;
    }
    const w = waiter;
    waiter = undefined;
    w?.resolve();
  });
  const prefix = `POST ${PATH} HTTP/1.1\r\nHost: ${target.host}\r\nContent-Type: application/json\r\nConnect-Protocol-Version: 1\r\nContent-Length: `;
  return {
    call() {
      const r = result();
      const body = JSON.stringify({
        host: r.host,
        service: r.service,
        exitStatus: r.exitStatus,
        output: r.output,
        checkedAt: new Date().toISOString(),
      });
      return new Promise<void>((resolve, reject) => {
        waiter = { resolve, reject };
        socket.write(`${prefix}${Buffer.byteLength(body)}\r\n\r\n${body}`);
      });
    },
    close: () => socket.destroy(),
  };
}

/** gRPC calls on one HTTP/2 connection. */
function grpcSession(): { call(): Promise<void>; close(): void } {
  const session = http2.connect(url as string);
  session.on("error", () => {});
  const headers = {
    ":method": "POST",
    ":path": PATH,
    "content-type": "application/grpc+proto",
    te: "trailers",
  };
  return {
    call() {
      const message = toBinary(
        ProcessCheckResultRequestSchema,
        create(ProcessCheckResultRequestSchema, { ...result(), checkedAt: timestampFromMs(Date.now()) }),
      );
      const frame = Buffer.allocUnsafe(5 + message.length);
      frame[0] = 0;
      frame.writeUInt32BE(message.length, 1);
      frame.set(message, 5);
      return new Promise<void>((resolve, reject) => {
        const stream = session.request(headers);
        let status: string | undefined;
        stream.on("response", (h) => {
          status = h["grpc-status"] as string | undefined;
        });
        stream.on("trailers", (t) => {
          status = t["grpc-status"] as string | undefined;
        });
        stream.on("data", () => {});
        stream.on("error", reject);
        stream.on("close", () =>
          status === "0" ? resolve() : reject(new Error(`grpc-status ${status ?? "missing"}`)),
        );
        stream.end(frame);
      });
    },
    close: () => session.close(),
  };
}

const shared = protocol === "grpc" ? grpcSession() : undefined;
const latencies: number[] = [];
const cpu0 = process.cpuUsage();
const start = performance.now();
const deadline = start + seconds * 1000;
await Promise.all(
  Array.from({ length: concurrency }, async () => {
    const conn = shared ?? h1Connection();
    try {
      while (performance.now() < deadline) {
        const t = performance.now();
        await conn.call();
        latencies.push(performance.now() - t);
      }
    } finally {
      if (shared === undefined) conn.close();
    }
  }),
);
shared?.close();
const elapsed = (performance.now() - start) / 1000;
const cpu = process.cpuUsage(cpu0);
latencies.sort((a, b) => a - b);
const pct = (q: number): number =>
  latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? 0;
const results = latencies.length;
process.stdout.write(
  `${JSON.stringify({ results, seconds: elapsed, rate: Math.round(results / elapsed), p50Ms: pct(0.5), p99Ms: pct(0.99), cpuMs: Math.round((cpu.user + cpu.system) / 1000) })}\n`,
);
