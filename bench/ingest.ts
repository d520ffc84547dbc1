/**
 * Passive ingestion at the Core façade: 100,000 services, ProcessCheckResult batches of 1,000,
 * `concurrency` batches in flight. Prints the durable enqueue rate (what a client sees as OK) and
 * the applied rate (engine + event log + projection), and RSS.
 *
 *   node dist/bench/ingest.js [seconds=10] [concurrency=8]
 */
import { mkdtempSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { Core } from "../src/core/core.js";
import { fleetConfig } from "../src/core/fleet-config.js";
import { createBatchMaker } from "./fleet-load.js";

const seconds = Number(process.argv[2] ?? 10);
const concurrency = Number(process.argv[3] ?? 8);
const HOSTS = 1000;
const SERVICES = 100;
const BATCH = 1000;

const dir = mkdtempSync(join(process.env.BENCH_DIR ?? tmpdir(), "lookout-ingest-"));
const t0 = performance.now();
const core = await Core.open({
  dataDir: dir,
  config: fleetConfig({ hosts: HOSTS, servicesPerHost: SERVICES }),
});
console.log(`open with ${HOSTS * SERVICES} services: ${(performance.now() - t0).toFixed(0)} ms`);

const makeBatch = createBatchMaker({
  hosts: HOSTS,
  servicesPerHost: SERVICES,
  batch: BATCH,
  problemEvery: 97,
  problemStatus: 2,
  problemOutput: "CRITICAL - broken",
});

let enqueued = 0;
const cpu0 = process.cpuUsage();
const deadline = performance.now() + seconds * 1000;
const start = performance.now();
const seq0 = core.view.projection.eventSeq();
async function client(): Promise<void> {
  while (performance.now() < deadline) {
    // A new macrotask per batch, as a server gets one per request.
    await new Promise<void>((r) => setImmediate(r));
    await core.submit(makeBatch());
    enqueued += BATCH;
  }
}
await Promise.all(Array.from({ length: concurrency }, client));
const enqueueSecs = (performance.now() - start) / 1000;
await core.flush();
const appliedSecs = (performance.now() - start) / 1000;
const events = core.view.projection.eventSeq() - seq0;
const cpu = process.cpuUsage(cpu0);
const cpuSecs = (cpu.user + cpu.system) / 1e6;
const rss = process.memoryUsage().rss;
console.log(
  `enqueued ${enqueued} results in ${enqueueSecs.toFixed(2)} s: ${(enqueued / enqueueSecs).toFixed(0)} results/s durable`,
);
console.log(
  `applied (events committed, projection current) after ${appliedSecs.toFixed(2)} s: ${(enqueued / appliedSecs).toFixed(0)} results/s, ${events} events`,
);
console.log(
  `CPU (all threads, incl. this in-process client) ${cpuSecs.toFixed(2)} s: ${(enqueued / cpuSecs).toFixed(0)} results per CPU-second; load average ${loadavg()[0]?.toFixed(1)}`,
);
console.log(`RSS ${(rss / 1048576).toFixed(0)} MiB = ${(rss / (HOSTS * SERVICES)).toFixed(0)} B per service`);
// Live heaps: run with --expose-gc to collect garbage first (the writer collects its own then too).
(globalThis as { gc?: () => void }).gc?.();
const w = await core.writerStats(true);
const mib = (b: number): string => (b / 1048576).toFixed(0);
console.log(
  `heaps: reader used ${mib(process.memoryUsage().heapUsed)} MiB, writer used ${mib(w.heapUsed)} MiB, RSS now ${mib(process.memoryUsage().rss)} MiB`,
);
const c0 = performance.now();
await core.close();
console.log(`close (final snapshot): ${(performance.now() - c0).toFixed(0)} ms`);
const r0 = performance.now();
const again = await Core.open({
  dataDir: dir,
  config: fleetConfig({ hosts: HOSTS, servicesPerHost: SERVICES }),
});
console.log(`reopen from snapshot: ${(performance.now() - r0).toFixed(0)} ms`);
await again.close();
rmSync(dir, { recursive: true, force: true });
