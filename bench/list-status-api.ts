/**
 * ListStatus latency through the API: a page of 1,000 objects out of 100,000 services, read over
 * gRPC from this process while the server (src/api/core-test-server, its own process) is idle, and then
 * while a separate client process ingests at full speed (gRPC, batches of 1,000). Prints p50/p99.
 *
 *   node dist/bench/list-status-api.js [seconds=10] [concurrency=8]
 *
 * Besides latencies it says where a read waited: per read, how long the listing client's thread
 * and the server's reader thread were runnable but not running (their run-queue waits, from
 * /proc/<tid>/schedstat) and how long the reader ran; and how busy the rest of the machine was
 * (other processes' CPU), which on a shared machine is most of the tail; and, for the slowest 1 % of
 * reads, how their time divides between those runs and waits. LIST_STATUS_WINDOW=<bytes>
 * opens the listing client's HTTP/2 receive windows (stream and connection) to that size, as
 * grpc-java (1 MiB) or grpc-go (grown by its BDP estimate) do; the default is Node's 64 KiB.
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
import { createGrpcTransport, Http2SessionManager } from "@connectrpc/connect-node";
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

/** The listing client's HTTP/2 receive window (stream and connection); 0: Node's default, 64 KiB. */
const WINDOW = Number(process.env.LIST_STATUS_WINDOW ?? 0);
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

/** CPU time (ms) the whole machine has spent busy, from /proc/stat (user, nice, system, irq, softirq, steal). */
function machineBusyMs(): number {
  const f = (readFileSync("/proc/stat", "utf8").split("\n", 1)[0] ?? "").trim().split(/\s+/).map(Number);
  return ((f[1] ?? 0) + (f[2] ?? 0) + (f[3] ?? 0) + (f[6] ?? 0) + (f[7] ?? 0) + (f[8] ?? 0)) * 10;
}

/** A thread's time on a CPU and waiting on a run queue (ms), from its schedstat; zeros where unreadable. */
function schedMs(path: string): { run: number; wait: number } {
  try {
    const [run, wait] = readFileSync(path, "utf8").trim().split(" ").map(Number);
    return { run: (run ?? 0) / 1e6, wait: (wait ?? 0) / 1e6 };
  } catch {
    return { run: 0, wait: 0 };
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
  `prefilled: every one of ${Number(HOSTS) * Number(SERVICES)} services has a result; server RSS ${rssMiB().toFixed(0)} MiB; ` +
    `server started with the launcher's settings: ${srv.settings}`,
);

// With a window: streams get it from the SETTINGS frame, the connection from a WINDOW_UPDATE sent
// as soon as a session is seen (connect-node keeps its session to itself; a stream names it).
const settings = WINDOW > 0 ? { settings: { initialWindowSize: WINDOW } } : {};
const opened = new WeakSet<http2.ClientHttp2Session>();
const openWindow = (s: http2.ClientHttp2Session): void => {
  if (WINDOW <= 0 || opened.has(s)) return;
  opened.add(s);
  s.setLocalWindowSize(WINDOW);
};
const sessionManager =
  WINDOW > 0
    ? new (class extends Http2SessionManager {
        override async request(
          ...args: Parameters<Http2SessionManager["request"]>
        ): Promise<http2.ClientHttp2Stream> {
          const stream = await super.request(...args);
          openWindow(stream.session as http2.ClientHttp2Session);
          return stream;
        }
      })(url, {}, settings)
    : undefined;
const client = createClient(
  QueryService,
  createGrpcTransport({ baseUrl: url, ...(sessionManager === undefined ? {} : { sessionManager }) }),
);
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
const session = http2.connect(url, settings);
if (WINDOW > 0) session.once("connect", () => openWindow(session));
/** A bare read: when the first byte of the response arrived and when the last did (ms). */
function rawRead(token: string): Promise<{ first: number; last: number }> {
  const msg = toBinary(
    ListStatusRequestSchema,
    create(ListStatusRequestSchema, { pageSize: 1000, pageToken: token }),
  );
  const frame = Buffer.alloc(5 + msg.length);
  frame.writeUInt32BE(msg.length, 1);
  frame.set(msg, 5);
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    let first = 0;
    const req = session.request({
      ":method": "POST",
      ":path": "/svc.v1.QueryService/ListStatus",
      "content-type": "application/grpc",
      "grpc-accept-encoding": "gzip, br",
      te: "trailers",
    });
    req.on("data", () => {
      if (first === 0) first = performance.now() - t0;
    });
    req.on("end", () => resolve({ first, last: performance.now() - t0 }));
    req.on("error", reject);
    req.end(frame);
  });
}

const readerSched = `/proc/${srv.server.pid}/task/${srv.server.pid}/schedstat`;
const q = (a: readonly number[], p: number): string => {
  const s = [...a].sort((x, y) => x - y);
  return (s[Math.min(s.length - 1, Math.floor(p * s.length))] ?? 0).toFixed(1);
};
const mean = (a: readonly number[]): string =>
  (a.reduce((x, y) => x + y, 0) / Math.max(1, a.length)).toFixed(2);

/**
 * Reads random pages for `ms`, alternating the Connect client (what a dashboard sees, its own
 * decoding included) and the bare stream (the server's part); returns how many reads. `others`
 * is the CPU processes other than these three used meanwhile.
 */
async function measure(label: string, ms: number, others: () => number): Promise<number> {
  const lat: number[] = [];
  const raw: number[] = [];
  const firstByte: number[] = [];
  // Per Connect read: the client's and the reader's run-queue waits, and the reader's CPU time.
  const clientWait: number[] = [];
  const readerWait: number[] = [];
  const readerRun: number[] = [];
  const clientRun: number[] = [];
  const busy0 = machineBusyMs();
  const others0 = others();
  const end = performance.now() + ms;
  const start = performance.now();
  while (performance.now() < end) {
    const token = tokens[Math.floor(Math.random() * tokens.length)] ?? "";
    if ((lat.length + raw.length) % 2 === 1) {
      const r = await rawRead(token);
      raw.push(r.last);
      firstByte.push(r.first);
    } else {
      const c0 = schedMs("/proc/thread-self/schedstat");
      const r0 = schedMs(readerSched);
      const t0 = performance.now();
      const r = await client.listStatus({ pageSize: 1000, pageToken: token });
      lat.push(performance.now() - t0);
      const c1 = schedMs("/proc/thread-self/schedstat");
      const r1 = schedMs(readerSched);
      clientWait.push(c1.wait - c0.wait);
      readerWait.push(r1.wait - r0.wait);
      readerRun.push(r1.run - r0.run);
      clientRun.push(c1.run - c0.run);
      if (r.statuses.length !== 1000 && r.nextPageToken !== "") throw new Error("short page");
    }
    await sleep(20);
  }
  const elsewhere = machineBusyMs() - busy0 - (others() - others0);
  console.log(
    `${label}: ${lat.length} reads, p50 ${q(lat, 0.5)} ms, p90 ${q(lat, 0.9)} ms, p99 ${q(lat, 0.99)} ms, max ${q(lat, 1)} ms; ` +
      `the server's part (${raw.length} bare reads): first byte p50 ${q(firstByte, 0.5)} ms, p99 ${q(firstByte, 0.99)} ms; last byte p50 ${q(raw, 0.5)} ms, p99 ${q(raw, 0.99)} ms, max ${q(raw, 1)} ms`,
  );
  console.log(
    `  per read, waiting for a CPU: this client ${mean(clientWait)} ms (p90 ${q(clientWait, 0.9)}, p99 ${q(clientWait, 0.99)}), ` +
      `the server's reader ${mean(readerWait)} ms (p90 ${q(readerWait, 0.9)}, p99 ${q(readerWait, 0.99)}); the reader running ${mean(readerRun)} ms (p99 ${q(readerRun, 0.99)}); ` +
      `other processes on the machine meanwhile: ${((100 * elsewhere) / (performance.now() - start)).toFixed(0)}% of a core`,
  );
  // The slowest 1 % of reads, taken apart: where their time went, on average.
  const slow = lat
    .map((_, i) => i)
    .sort((a, b) => (lat[b] ?? 0) - (lat[a] ?? 0))
    .slice(0, Math.max(1, Math.ceil(lat.length / 100)));
  const at = (a: readonly number[]): number[] => slow.map((i) => a[i] ?? 0);
  console.log(
    `  the slowest 1% (${slow.length} reads, ${mean(at(lat))} ms): this client running ${mean(at(clientRun))} ms and waiting ${mean(at(clientWait))} ms, ` +
      `the reader running ${mean(at(readerRun))} ms and waiting ${mean(at(readerWait))} ms`,
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
console.log(
  `listing client's HTTP/2 receive window: ${WINDOW > 0 ? `${WINDOW} bytes (LIST_STATUS_WINDOW)` : "Node's default, 64 KiB"}`,
);
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
const reads = await measure(
  "ListStatus 1000 of 100,000 over gRPC, idle server",
  Number(seconds) * 1000,
  () => processCpuMs(srv.server.pid) + processCpuMs(process.pid),
);
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
  () => processCpuMs(srv.server.pid) + processCpuMs(process.pid) + processCpuMs(load.pid),
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
