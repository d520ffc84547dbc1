/**
 * The Command and Query services over a real Core, on the real HTTP handler (Connect, gRPC,
 * gRPC-Web): for the service tests, the crash test and the benchmarks, until the app wires Core in.
 * Run directly it is a server process over a synthetic passive fleet that prints
 * `listening <port>` when ready and stops on SIGTERM:
 *
 *   node dist/src/api/core-test-server.js <dataDir> <hosts> <servicesPerHost> [port=0] [snapshotEveryEvents]
 *
 * LOOKOUT_WRITER_PRIORITY=idle|nice picks the writer thread's CPU policy (WriterOptions.priority),
 * LOOKOUT_WRITER_NICE its nice value under `nice` (WriterOptions.nice), LOOKOUT_DECODE_AHEAD=0 turns
 * the writer's decoding thread off (WriterOptions.decodeAhead).
 */
// First, as in the binary (src/app/index.ts): the server's V8 heap flags.
import "../app/v8-heap.js";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { constants, monitorEventLoopDelay, PerformanceObserver } from "node:perf_hooks";
import { registerHeapMetrics } from "../app/heap-metrics.js";
import { createMetricsRegistry } from "../app/metrics.js";
import { createAuthGate } from "../auth/index.js";
import { Core } from "../core/core.js";
import { fleetConfig } from "../core/fleet-config.js";
import type { Clock } from "../model/clock.js";
import type { Config } from "../model/config.js";
import { silentLogger } from "../model/logger.js";
import { threadCpuMs } from "../store/thread-cpu.js";
import { createCommandService } from "./command-service.js";
import { createHttpHandler } from "./http-handler.js";
import { DualProtocolServer } from "./listener.js";
import { createQueryService } from "./query-service.js";

/** How often the harness samples its event loop's delay (ms). */
const LOOP_SAMPLE_MS = 5;

/** A Command+Query API over a real Core on a loopback port. */
export interface CoreTestServer {
  /** http://127.0.0.1:PORT */
  readonly url: string;
  readonly port: number;
  readonly core: Core;
  close(): Promise<void>;
}

/** Serves the Command and Query services of `core` on 127.0.0.1:port (0: any free port). */
export async function serveCore(core: Core, port = 0): Promise<CoreTestServer> {
  const metrics = createMetricsRegistry("dev");
  registerHeapMetrics(metrics, () => core.writerStats());
  const server = new DualProtocolServer(
    createHttpHandler({
      readOnly: false,
      authConfigured: false,
      gate: createAuthGate({ apiToken: "" }),
      query: createQueryService({ version: "dev", core }),
      command: createCommandService({ core }),
      admin: {},
      metrics,
      page: () => "",
      logger: silentLogger,
    }),
  );
  const address = await server.listen(port, "127.0.0.1");
  return {
    url: `http://127.0.0.1:${address.port}`,
    port: address.port,
    core,
    async close() {
      await server.close();
      await core.close();
    },
  };
}

/** Starts the API over a Core in a fresh temp dir (removed on close). */
export async function startCoreTestServer(config: Config, clock?: Clock): Promise<CoreTestServer> {
  const dataDir = mkdtempSync(join(tmpdir(), "lookout-api-"));
  const core = await Core.open({ dataDir, config, ...(clock === undefined ? {} : { clock }) });
  const srv = await serveCore(core);
  return {
    ...srv,
    async close() {
      await srv.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** A parsed JSON response body; tests inspect it field by field. */
// biome-ignore lint/suspicious/noExplicitAny: JSON bodies are checked by the assertions that read them.
export type JsonBody = any;

/** POSTs a Connect JSON request; resolves with the HTTP status and the parsed body. */
export async function connectJson(
  url: string,
  path: string,
  body: unknown,
): Promise<{ status: number; body: JsonBody }> {
  const res = await fetch(url + path, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: await res.json() };
}

async function main(argv: string[]): Promise<void> {
  const [dataDir, hosts, services, port, snapshotEvery] = argv;
  if (dataDir === undefined || hosts === undefined || services === undefined) {
    throw new Error(
      "usage: core-test-server <dataDir> <hosts> <servicesPerHost> [port] [snapshotEveryEvents]",
    );
  }
  // Benchmarks compare the writer's CPU policies with LOOKOUT_WRITER_PRIORITY=idle|nice.
  const priority = process.env.LOOKOUT_WRITER_PRIORITY;
  // ... and LOOKOUT_WRITER_NICE the nice value under `nice` (a busy shared machine: 0 measures
  // what the design gives when the writer gets its share).
  const nice = process.env.LOOKOUT_WRITER_NICE;
  const core = await Core.open({
    dataDir,
    config: fleetConfig({ hosts: Number(hosts), servicesPerHost: Number(services) }),
    configDigest: `fleet:${hosts}x${services}`,
    writer: {
      ...(snapshotEvery === undefined ? {} : { snapshotEveryEvents: Number(snapshotEvery) }),
      ...(priority === "idle" || priority === "nice" ? { priority } : {}),
      ...(nice === undefined ? {} : { nice: Number(nice) }),
      // ... and LOOKOUT_DECODE_AHEAD=0 the writer without its decoding thread (WriterOptions.decodeAhead).
      ...(process.env.LOOKOUT_DECODE_AHEAD === "0" ? { decodeAhead: false } : {}),
    },
  });
  const srv = await serveCore(core, Number(port ?? 0));
  // Figures for benchmarks: on SIGUSR2 one `stats {json}` line on stdout (heaps in bytes, CPU in ms
  // per thread); with LOOKOUT_STATS=1 also a readable line on stderr every 3 s.
  // How long the reader's thread was busy when it should have run something (a read, say): the
  // percentiles since the last stats, of how late a timer due every LOOP_SAMPLE_MS ran (Node's
  // histogram holds the whole interval; the figures are what came on top of it).
  const loop = monitorEventLoopDelay({ resolution: LOOP_SAMPLE_MS });
  loop.enable();
  const late = (ns: number): number => Math.max(0, ns / 1e6 - LOOP_SAMPLE_MS);
  // The reader's own collections since the last stats (the forced ones below left out).
  const gc = { count: 0, ms: 0, maxMs: 0 };
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) {
      const flags = (e as { detail?: { flags?: number } }).detail?.flags ?? 0;
      if ((flags & constants.NODE_PERFORMANCE_GC_FLAGS_FORCED) !== 0) continue;
      gc.count++;
      gc.ms += e.duration;
      gc.maxMs = Math.max(gc.maxMs, e.duration);
    }
  }).observe({ entryTypes: ["gc"] });
  // The CPU the forced collections below took: not the server's own work, so the reader's CPU
  // figure leaves it out (a full collection of a 100 MiB heap is ~0.5 ms per page of a 300-page run).
  let forcedGcCpuMs = 0;
  // Under --expose-gc the heaps are live heaps (RSS is read before collecting).
  const stats = async (): Promise<Record<string, number | undefined>> => {
    const rss = process.memoryUsage().rss;
    const loopDelayMs = {
      p50: late(loop.percentile(50)),
      p99: late(loop.percentile(99)),
      max: late(loop.max),
    };
    const gcs = { ...gc };
    Object.assign(gc, { count: 0, ms: 0, maxMs: 0 });
    const cpuBeforeGc = threadCpuMs();
    const readerCpuMs = cpuBeforeGc === undefined ? undefined : cpuBeforeGc - forcedGcCpuMs;
    (globalThis as { gc?: () => void }).gc?.();
    const cpuAfterGc = threadCpuMs();
    if (cpuBeforeGc !== undefined && cpuAfterGc !== undefined) forcedGcCpuMs += cpuAfterGc - cpuBeforeGc;
    const w = await core.writerStats(true);
    // Only now: the forced collection must not count as a delay of the next period.
    loop.reset();
    const m = process.memoryUsage();
    return {
      rss,
      readerHeapUsed: m.heapUsed,
      readerHeapTotal: m.heapTotal,
      writerHeapUsed: w.heapUsed,
      writerHeapTotal: w.heapTotal,
      readerCpuMs,
      writerCpuMs: w.cpuMs,
      decoderCpuMs: w.decoderCpuMs,
      loopDelayP50Ms: loopDelayMs.p50,
      loopDelayP99Ms: loopDelayMs.p99,
      loopDelayMaxMs: loopDelayMs.max,
      readerGcCount: gcs.count,
      readerGcMs: gcs.ms,
      readerGcMaxMs: gcs.maxMs,
    };
  };
  process.on("SIGUSR2", () => {
    void stats().then((s) => process.stdout.write(`stats ${JSON.stringify(s)}\n`));
  });
  if (process.env.LOOKOUT_STATS === "1") {
    const mib = (b: number | undefined): string => ((b ?? 0) / 1048576).toFixed(0);
    setInterval(() => {
      void stats().then((s) => {
        process.stderr.write(
          `rss ${mib(s.rss)} MiB; reader heap ${mib(s.readerHeapUsed)}/${mib(s.readerHeapTotal)}; writer heap ${mib(s.writerHeapUsed)}/${mib(s.writerHeapTotal)}\n`,
        );
      });
    }, 3000).unref();
  }
  process.on("SIGTERM", () => {
    void srv.close().then(() => process.exit(0));
  });
  // Only now: a parent may signal as soon as it reads this line.
  process.stdout.write(`listening ${srv.port}\n`);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  main(process.argv.slice(2)).catch((e: unknown) => {
    process.stderr.write(`${String(e)}\n`);
    process.exit(1);
  });
}
