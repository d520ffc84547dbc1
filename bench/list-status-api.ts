/**
 * ListStatus latency through the API: a page of 1,000 objects out of 100,000 services, read over
 * gRPC from this process while the server (src/api/core-test-server, its own process) is idle, and then
 * while a separate client process ingests at full speed (gRPC, batches of 1,000). Prints p50/p99.
 *
 *   node dist/bench/list-status-api.js [seconds=10] [concurrency=8]
 */
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import http2 from "node:http2";
import { availableParallelism, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import { create, fromBinary, toBinary } from "@bufbuild/protobuf";
import { createClient } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import {
  ListStatusRequestSchema,
  ListStatusResponseSchema,
  QueryService,
} from "../src/api/gen/svc/v1/query_service_pb.js";
import { startHarnessServer } from "./fleet-load.js";

const seconds = process.argv[2] ?? "10";
const concurrency = process.argv[3] ?? "8";
const HOSTS = "1000";
const SERVICES = "100";
const here = (f: string): string => fileURLToPath(new URL(f, import.meta.url));

const dir = mkdtempSync(join(process.env.BENCH_DIR ?? tmpdir(), "lookout-list-api-"));
const srv = await startHarnessServer(dir, Number(HOSTS), Number(SERVICES));
const url = `http://127.0.0.1:${srv.port}`;
const rssMiB = (): number =>
  Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${srv.server.pid}/status`, "utf8"))?.[1] ?? 0) / 1024;

/** CPU time (ms) a process has used, from /proc (0 once it is gone). */
function processCpuMs(pid: number | undefined): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(f[11]) + Number(f[12])) * 10;
  } catch {
    return 0;
  }
}

function ingest(secs: string): { pid: number | undefined; done: Promise<{ rate: number }> } {
  const c = spawn(
    process.execPath,
    [here("./ingest-client.js"), url, "grpc", secs, concurrency, HOSTS, SERVICES],
    {
      stdio: ["ignore", "pipe", "inherit"],
    },
  );
  let out = "";
  c.stdout.on("data", (d: Buffer) => {
    out += d.toString();
  });
  return {
    pid: c.pid,
    done: new Promise((resolve, reject) =>
      c.once("exit", (code) =>
        code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`client exited ${code}`)),
      ),
    ),
  };
}

await ingest("0").done;
console.log(
  `prefilled: every one of ${Number(HOSTS) * Number(SERVICES)} services has a result; server RSS ${rssMiB().toFixed(0)} MiB`,
);

const client = createClient(QueryService, createGrpcTransport({ baseUrl: url }));
const first = await client.listStatus({ pageSize: 1000 });
const totalPages = Math.ceil(first.totalSize / 1000);
// Tokens of every page, so reads can land anywhere in the fleet.
const tokens: string[] = [""];
for (let t = first.nextPageToken; t !== "" && tokens.length < totalPages; ) {
  tokens.push(t);
  t = (await client.listStatus({ pageSize: 1000, pageToken: t })).nextPageToken;
}

// The server's part alone: the same call over a bare HTTP/2 stream (gzip accepted, as the Connect
// client does), timed to the last byte of the response, nothing decoded.
const session = http2.connect(url);
function rawRead(token: string): Promise<number> {
  const msg = toBinary(
    ListStatusRequestSchema,
    create(ListStatusRequestSchema, { pageSize: 1000, pageToken: token }),
  );
  const frame = Buffer.alloc(5 + msg.length);
  frame.writeUInt32BE(msg.length, 1);
  frame.set(msg, 5);
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const req = session.request({
      ":method": "POST",
      ":path": "/svc.v1.QueryService/ListStatus",
      "content-type": "application/grpc",
      "grpc-accept-encoding": "gzip, br",
      te: "trailers",
    });
    req.on("data", () => {});
    req.on("end", () => resolve(performance.now() - t0));
    req.on("error", reject);
    req.end(frame);
  });
}

/**
 * Reads random pages for `ms`, alternating the Connect client (what a dashboard sees, its own
 * decoding included) and the bare stream (the server's part); returns how many reads.
 */
async function measure(label: string, ms: number): Promise<number> {
  const lat: number[] = [];
  const raw: number[] = [];
  const end = performance.now() + ms;
  while (performance.now() < end) {
    const token = tokens[Math.floor(Math.random() * tokens.length)] ?? "";
    if ((lat.length + raw.length) % 2 === 1) {
      raw.push(await rawRead(token));
    } else {
      const t0 = performance.now();
      const r = await client.listStatus({ pageSize: 1000, pageToken: token });
      lat.push(performance.now() - t0);
      if (r.statuses.length !== 1000 && r.nextPageToken !== "") throw new Error("short page");
    }
    await sleep(20);
  }
  const q = (a: number[], p: number): string => {
    const s = [...a].sort((x, y) => x - y);
    return (s[Math.min(s.length - 1, Math.floor(p * s.length))] ?? 0).toFixed(1);
  };
  console.log(
    `${label}: ${lat.length} reads, p50 ${q(lat, 0.5)} ms, p90 ${q(lat, 0.9)} ms, p99 ${q(lat, 0.99)} ms, max ${q(lat, 1)} ms; ` +
      `the server's part (${raw.length} bare reads, to the last byte): p50 ${q(raw, 0.5)} ms, p99 ${q(raw, 0.99)} ms, max ${q(raw, 1)} ms`,
  );
  return lat.length + raw.length;
}

/** The reader's own collections in a stats period (the harness reports them beside the loop delay). */
type Stats = Awaited<ReturnType<typeof srv.stats>> & {
  readonly readerGcCount?: number;
  readonly readerGcMs?: number;
  readonly readerGcMaxMs?: number;
};
const gcLine = (s: Stats): string =>
  s.readerGcCount === undefined
    ? ""
    : `; its collections: ${s.readerGcCount}, ${(s.readerGcMs ?? 0).toFixed(0)} ms in all, the longest ${(s.readerGcMaxMs ?? 0).toFixed(1)} ms`;

// Client-side decoding is part of every figure above; on its own it costs this much here.
const sample = toBinary(ListStatusResponseSchema, await client.listStatus({ pageSize: 1000 }));
const d0 = performance.now();
for (let i = 0; i < 50; i++) fromBinary(ListStatusResponseSchema, sample);
console.log(
  `client-side decoding of one page (${sample.length} bytes): ${((performance.now() - d0) / 50).toFixed(1)} ms`,
);
// What the reader's thread spends with no request at all (timers, the harness's own sampling), so
// that the CPU per page below is the pages' alone.
const quietMs = 3000;
const quiet0 = await srv.stats();
await sleep(quietMs);
const quiet1 = await srv.stats();
const idle0 = await srv.stats();
const t0 = performance.now();
const reads = await measure("ListStatus 1000 of 100,000 over gRPC, idle server", Number(seconds) * 1000);
const idleMs = performance.now() - t0;
const idle1: Stats = await srv.stats();
if (quiet0.readerCpuMs !== undefined && idle1.readerCpuMs !== undefined && idle0.readerCpuMs !== undefined) {
  const background = (((quiet1.readerCpuMs ?? 0) - quiet0.readerCpuMs) / quietMs) * idleMs;
  console.log(
    `server reader-thread CPU per page (idle): ${((idle1.readerCpuMs - idle0.readerCpuMs - background) / reads).toFixed(2)} ms ` +
      `(less ${(background / reads).toFixed(2)} ms of background work)${gcLine(idle1)}`,
  );
}
const load = ingest(seconds);
await sleep(500);
const busy0 = await srv.stats();
const busyCpu0 = srv.cpuSeconds();
const ingestCpu0 = processCpuMs(load.pid);
const ownCpu0 = process.cpuUsage();
const b0 = performance.now();
await measure(
  "ListStatus 1000 of 100,000 over gRPC, during full-speed ingestion",
  Number(seconds) * 1000 - 1000,
);
const busyMs = performance.now() - b0;
const ingestCpu = processCpuMs(load.pid) - ingestCpu0;
const ownCpu = process.cpuUsage(ownCpu0);
// Before stats: its forced collections are not the server's work.
const serverCpuMs = 1000 * (srv.cpuSeconds() - busyCpu0);
const busy: Stats = await srv.stats();
console.log(
  `server reader-thread event-loop delay meanwhile (beyond a 5 ms timer): p50 ${busy.loopDelayP50Ms.toFixed(1)} ms, p99 ${busy.loopDelayP99Ms.toFixed(1)} ms, max ${busy.loopDelayMaxMs.toFixed(1)} ms${gcLine(busy)}`,
);
const share = (ms: number | undefined): string => `${((100 * (ms ?? 0)) / busyMs).toFixed(0)}%`;
console.log(
  `CPU meanwhile, in % of one core (${availableParallelism()} cores): server reader ${share((busy.readerCpuMs ?? 0) - (busy0.readerCpuMs ?? 0))}, ` +
    `server writer ${share((busy.writerCpuMs ?? 0) - (busy0.writerCpuMs ?? 0))}, server all threads ${share(serverCpuMs)}, ` +
    `ingestion client ${share(ingestCpu)}, this listing client ${share((ownCpu.user + ownCpu.system) / 1000)}`,
);
const r = await load.done;
console.log(
  `ingestion meanwhile: ${r.rate} results/s (gRPC, ${concurrency} batches of 1,000 in flight); server RSS ${rssMiB().toFixed(0)} MiB; load average ${loadavg()[0]?.toFixed(1)}`,
);
session.close();
await srv.stop();
rmSync(dir, { recursive: true, force: true });
