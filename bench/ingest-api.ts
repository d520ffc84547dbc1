/**
 * Passive ingestion through the API, durable, 100,000 services: starts src/api/core-test-server in its
 * own process, then runs bench/ingest-client in another process over gRPC and over Connect JSON,
 * and prints results/s (acknowledged = durably enqueued), the server's CPU per result split by
 * thread (reader = the thread that decodes requests and serves reads; writer = engine + log), its
 * RSS per service, and its live heaps. CPU per result is the figure that survives a busy machine.
 *
 *   node dist/bench/ingest-api.js [seconds=10] [concurrency=8] [batch=1000]
 *
 * With batch = 1 every call is a unary ProcessCheckResult with one result (`npm run
 * bench:ingest:single`: 50 in flight, Connect JSON over HTTP/1.1 keep-alive and gRPC on one HTTP/2
 * connection), and the latency per call is printed too. Each protocol then runs a second time from
 * bench/ingest-lean-client (the calls written on the wire by hand): connect-es' client spends more
 * CPU on a call than the server does, and client and server share the machine's cores. gRPC runs
 * from @grpc/grpc-js too (`grpc-js`, one HTTP/2 connection).
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { type HarnessStats, startHarnessServer } from "./fleet-load.js";

const seconds = process.argv[2] ?? "10";
const concurrency = process.argv[3] ?? "8";
const batch = process.argv[4] ?? "1000";
const HOSTS = "1000";
const SERVICES = "100";
const OBJECTS = Number(HOSTS) * (Number(SERVICES) + 1);
const here = (f: string): string => fileURLToPath(new URL(f, import.meta.url));
const mib = (b: number): string => (b / 1048576).toFixed(0);

const dir = mkdtempSync(join(process.env.BENCH_DIR ?? tmpdir(), "lookout-ingest-api-"));
const srv = await startHarnessServer(dir, Number(HOSTS), Number(SERVICES));
const describe = (s: HarnessStats): string =>
  `RSS ${mib(s.rss)} MiB = ${(s.rss / OBJECTS).toFixed(0)} B/object; live heaps reader ${mib(s.readerHeapUsed)} MiB, writer ${mib(s.writerHeapUsed)} MiB`;
console.log(
  `server ready on ${srv.port} with ${OBJECTS} objects (the launcher's settings: ${srv.settings}); ${describe(await srv.stats())}`,
);

function client(
  protocol: string,
  lean: boolean,
): Promise<{ results: number; seconds: number; rate: number; p50Ms: number; p99Ms: number; cpuMs: number }> {
  return new Promise((resolve, reject) => {
    const common = [`http://127.0.0.1:${srv.port}`, protocol, seconds, concurrency, HOSTS, SERVICES];
    const c = spawn(
      process.execPath,
      lean
        ? [here("./ingest-lean-client.js"), ...common]
        : [here("./ingest-client.js"), ...common, "0", batch],
      { stdio: ["ignore", "pipe", "inherit"] },
    );
    let out = "";
    c.stdout.on("data", (d: Buffer) => {
      out += d.toString();
    });
    c.once("exit", (code) =>
      code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`client exited ${code}`)),
    );
  });
}

// One result per call: each protocol from connect-es' client, then from the lean one; gRPC also
// from @grpc/grpc-js (one HTTP/2 connection), the client most gRPC users' servers meet.
const runs = ["grpc", "connect-json"].flatMap((protocol) =>
  batch === "1"
    ? [
        { protocol, lean: false },
        ...(protocol === "grpc" ? [{ protocol: "grpc-js", lean: false }] : []),
        { protocol, lean: true },
      ]
    : [{ protocol, lean: false }],
);
for (const { protocol, lean } of runs) {
  const s0 = await srv.stats();
  const cpu0 = srv.cpuSeconds();
  const r = await client(protocol, lean);
  const cpu = srv.cpuSeconds() - cpu0;
  const s1 = await srv.stats();
  const perResult = (ms0: number | undefined, ms1: number | undefined): string =>
    ms0 === undefined || ms1 === undefined ? "?" : (((ms1 - ms0) * 1000) / r.results).toFixed(1);
  console.log(
    `${protocol}${lean ? " (lean client)" : ""}, ${batch === "1" ? "one result per call" : `batches of ${batch}`}, ${concurrency} in flight: ` +
      `${r.results} results in ${r.seconds.toFixed(2)} s = ${r.rate} results/s acknowledged (durable), ` +
      `call latency p50 ${r.p50Ms.toFixed(1)} ms p99 ${r.p99Ms.toFixed(1)} ms; ` +
      `server CPU ${cpu.toFixed(1)} s = ${Math.round(r.results / cpu)} results per server CPU-second ` +
      `(µs per result: reader ${perResult(s0.readerCpuMs, s1.readerCpuMs)}, writer ${perResult(s0.writerCpuMs, s1.writerCpuMs)}, ` +
      `${s1.decoderCpuMs === undefined ? "" : `decoder ${perResult(s0.decoderCpuMs ?? 0, s1.decoderCpuMs)}, `}` +
      `all ${((cpu * 1e6) / r.results).toFixed(1)}; the client's own ${((r.cpuMs * 1000) / r.results).toFixed(1)}); ` +
      `after: ${describe(s1)}; load average ${loadavg()[0]?.toFixed(1)}`,
  );
}
await srv.stop();
rmSync(dir, { recursive: true, force: true });
