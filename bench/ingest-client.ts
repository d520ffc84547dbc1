/**
 * An ingestion client process: ProcessCheckResults in batches of 1,000 (or `batch`) over gRPC
 * (HTTP/2; `grpc-js`: from @grpc/grpc-js, one client and so one HTTP/2 connection, instead of
 * connect-es) or Connect JSON (HTTP/1.1), `concurrency` calls in flight, for `seconds`, as fast as the
 * server answers or paced to `rate` results per second. Prints one JSON line:
 * {"results": n, "seconds": s, "rate": r, "p50Ms": …, "p99Ms": …, "cpuMs": …} (latency per call; the
 * client's own CPU time). With seconds = 0 it
 * sends one result for every service once. With batch = 1 each call is a unary ProcessCheckResult
 * carrying one result, as agents and NSCA-style senders send.
 *
 *   node dist/bench/ingest-client.js <url> <grpc|grpc-js|connect-json> <seconds> <concurrency> <hosts> <servicesPerHost> [rate] [batch] [points]
 *
 * `points` (default 1) is the number of perfdata points per result (the sinks bench sends 4).
 */
import { create, fromBinary, type MessageInitShape, toBinary } from "@bufbuild/protobuf";
import { timestampFromMs } from "@bufbuild/protobuf/wkt";
import { createClient } from "@connectrpc/connect";
import { createConnectTransport, createGrpcTransport } from "@connectrpc/connect-node";
import * as grpc from "@grpc/grpc-js";
import {
  CommandService,
  ProcessCheckResultRequestSchema,
  ProcessCheckResultResponseSchema,
  ProcessCheckResultsRequestSchema,
  ProcessCheckResultsResponseSchema,
} from "../src/api/gen/svc/v1/command_service_pb.js";
import { fleetHost, fleetService } from "../src/core/fleet-config.js";

const [url, protocol, secs, conc, hostsArg, servicesArg, rateArg, batchArg, pointsArg] =
  process.argv.slice(2);
if (url === undefined || (protocol !== "grpc" && protocol !== "grpc-js" && protocol !== "connect-json")) {
  throw new Error(
    "usage: ingest-client <url> <grpc|grpc-js|connect-json> <seconds> <concurrency> <hosts> <services>",
  );
}
const seconds = Number(secs ?? 10);
const concurrency = Number(conc ?? 8);
const hosts = Number(hostsArg ?? 1000);
const services = Number(servicesArg ?? 100);
const BATCH = Number(batchArg ?? 1000);
const POINTS = Number(pointsArg ?? 1);
const extra = Array.from({ length: Math.max(0, POINTS - 1) }, (_, k) => ` p${k}=${k}ms;1;2;0`).join("");
/** Results per second to pace to; 0: as fast as the server answers. */
const pace = Number(rateArg ?? 0);

const transport =
  protocol === "grpc"
    ? createGrpcTransport({ baseUrl: url })
    : createConnectTransport({ baseUrl: url, httpVersion: "1.1", useBinaryFormat: false });
const connectClient = createClient(CommandService, transport);

/** @grpc/grpc-js: one client, so every call on its one HTTP/2 connection. */
function grpcJsClient(): Pick<typeof connectClient, "processCheckResult" | "processCheckResults"> {
  const c = new grpc.Client(new URL(url as string).host, grpc.credentials.createInsecure());
  const unary = <I, O>(
    path: string,
    encode: (m: I) => Uint8Array,
    decode: (b: Buffer) => O,
    m: I,
  ): Promise<O> =>
    new Promise((resolve, reject) => {
      c.makeUnaryRequest(
        path,
        (x: I) => Buffer.from(encode(x)),
        decode,
        m,
        (err, res) => (err ? reject(err) : resolve(res as O)),
      );
    });
  return {
    processCheckResult: (m) =>
      unary(
        "/svc.v1.CommandService/ProcessCheckResult",
        (x: typeof m) =>
          toBinary(ProcessCheckResultRequestSchema, create(ProcessCheckResultRequestSchema, x)),
        (b) => fromBinary(ProcessCheckResultResponseSchema, b),
        m,
      ),
    processCheckResults: (m) =>
      unary(
        "/svc.v1.CommandService/ProcessCheckResults",
        (x: typeof m) =>
          toBinary(ProcessCheckResultsRequestSchema, create(ProcessCheckResultsRequestSchema, x)),
        (b) => fromBinary(ProcessCheckResultsResponseSchema, b),
        m,
      ),
  };
}
const client = protocol === "grpc-js" ? grpcJsClient() : connectClient;

const onePass = seconds === 0;
let next = onePass ? 0 : Math.floor(Math.random() * hosts * services);
function batch(): MessageInitShape<typeof ProcessCheckResultsRequestSchema> {
  const results = [];
  const checkedAt = timestampFromMs(Date.now());
  for (let k = 0; k < BATCH; k++, next++) {
    const i = next % (hosts * services);
    const bad = next % 97 === 0;
    results.push({
      host: fleetHost(Math.floor(i / services)),
      service: fleetService(i % services),
      exitStatus: bad ? 2 : 0,
      output: bad
        ? `CRITICAL - broken | time=1.5s;1;2;0${extra}`
        : `OK - all good | time=0.012s;1;2;0${extra}`,
      checkedAt,
    });
  }
  return { results };
}

let sent = 0;
let batches = 0;
const latencies: number[] = [];
/** One result per call: ProcessCheckResult. */
async function single(): Promise<number> {
  const i = next++ % (hosts * services);
  const bad = next % 97 === 0;
  await client.processCheckResult({
    host: fleetHost(Math.floor(i / services)),
    service: fleetService(i % services),
    exitStatus: bad ? 2 : 0,
    output: bad ? "CRITICAL - broken | time=1.5s;1;2;0" : "OK - all good | time=0.012s;1;2;0",
    checkedAt: timestampFromMs(Date.now()),
  });
  return 1;
}
const cpu0 = process.cpuUsage();
const start = performance.now();
const deadline = start + seconds * 1000;
await Promise.all(
  Array.from({ length: concurrency }, async () => {
    while (onePass ? next < hosts * services : performance.now() < deadline) {
      if (pace > 0) {
        // Batch k leaves at start + k batches' worth of time at the paced rate.
        const due = start + (batches++ * BATCH * 1000) / pace;
        const wait = due - performance.now();
        if (wait > 0) await new Promise((r) => setTimeout(r, wait));
        if (performance.now() >= deadline) break;
      }
      const t = performance.now();
      // Awaited before adding: `sent += await …` would read `sent` before the call and write back
      // over what the other calls in flight added meanwhile.
      const accepted = BATCH === 1 ? await single() : (await client.processCheckResults(batch())).accepted;
      sent += accepted;
      latencies.push(performance.now() - t);
    }
  }),
);
const elapsed = (performance.now() - start) / 1000;
/** The client's own CPU time during the run: it shares the machine's cores with the server. */
const cpu = process.cpuUsage(cpu0);
latencies.sort((a, b) => a - b);
const pct = (q: number): number =>
  latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? 0;
process.stdout.write(
  `${JSON.stringify({ results: sent, seconds: elapsed, rate: Math.round(sent / elapsed), p50Ms: pct(0.5), p99Ms: pct(0.99), cpuMs: Math.round((cpu.user + cpu.system) / 1000) })}\n`,
);
