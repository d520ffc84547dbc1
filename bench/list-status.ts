/**
 * ListStatus latency at the Core façade: a page of 1,000 objects out of 100,000, first idle, then
 * while ingestion runs at full speed in the same process (batches of 1,000, `concurrency` in flight).
 * A read is issued every `interval` ms and timed from when it was due, so time spent waiting for the
 * event loop counts: that is what "reads never wait on writes" has to survive.
 *
 *   node dist/bench/list-status.js [seconds=10] [concurrency=4]
 *
 * With LIST_STATUS_CHECKED_BY=<worker id>, every result is an active one that worker ran, so every
 * record carries checked_by and every row of a page moves it after the configured fields.
 */

import { mkdtempSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { statusPageBytes } from "../src/api/status-page.js";
import { Core } from "../src/core/core.js";
import { fleetConfig, fleetHost } from "../src/core/fleet-config.js";
import { listPositions } from "../src/store/read-model.js";
import { createBatchMaker } from "./fleet-load.js";

const seconds = Number(process.argv[2] ?? 10);
const concurrency = Number(process.argv[3] ?? 4);
const HOSTS = 1000;
const SERVICES = 100;
const BATCH = 1000;
const INTERVAL = 25;

const dir = mkdtempSync(join(process.env.BENCH_DIR ?? tmpdir(), "lookout-list-"));
const core = await Core.open({
  dataDir: dir,
  config: fleetConfig({ hosts: HOSTS, servicesPerHost: SERVICES }),
});

const makeBatch = createBatchMaker({
  hosts: HOSTS,
  servicesPerHost: SERVICES,
  batch: BATCH,
  problemEvery: 89,
  problemStatus: 1,
  problemOutput: "WARNING - slow",
  ...(process.env.LIST_STATUS_CHECKED_BY ? { executor: process.env.LIST_STATUS_CHECKED_BY } : {}),
});

// Every service gets a result first, so pages carry real records.
for (let b = 0; b < (HOSTS * SERVICES) / BATCH; b++) await core.submit(makeBatch());
await core.flush();

/**
 * One read: a page of 1,000 from a random place, as the ListStatus fast path answers a gRPC client
 * — the page spliced from the projection's encoded records into the buffer that goes on the wire,
 * after room for the envelope's header.
 */
function read(): number {
  const { index, projection } = core.view;
  const start = Math.floor(Math.random() * (index.size - 1000));
  const token = start === 0 ? "" : Buffer.from(`k:${index.keyAt(start - 1)}`).toString("base64url");
  const page = listPositions(index, { pageSize: 1000, pageToken: token });
  return statusPageBytes(index, projection, page.positions, page.nextPageToken, page.totalSize, 5).length;
}

async function measure(label: string, until: () => boolean): Promise<void> {
  const lat: number[] = [];
  let due = performance.now();
  while (until()) {
    due += INTERVAL;
    const wait = due - performance.now();
    if (wait > 0) await sleep(wait);
    // Yield once more so a read queues behind whatever the event loop has pending, as a request would.
    await new Promise<void>((r) => setImmediate(r));
    read();
    lat.push(performance.now() - due);
  }
  lat.sort((a, b) => a - b);
  const q = (p: number): string =>
    (lat[Math.min(lat.length - 1, Math.floor(p * lat.length))] ?? 0).toFixed(2);
  console.log(`${label}: ${lat.length} reads, p50 ${q(0.5)} ms, p99 ${q(0.99)} ms, max ${q(1)} ms`);
}

// The splice alone: pages back to back, no waiting in between (CPU per page, on a quiet machine).
{
  const n = 200;
  const t = performance.now();
  for (let i = 0; i < n; i++) read();
  console.log(
    `ListStatus 1000/100000, back to back: ${((performance.now() - t) / n).toFixed(3)} ms per page`,
  );
}

let end = performance.now() + seconds * 1000;
await measure("ListStatus 1000/100000, idle", () => performance.now() < end);

let ingesting = true;
let enqueued = 0;
const clients = Array.from({ length: concurrency }, async () => {
  while (ingesting) {
    // A new macrotask per batch, as a server gets one per request.
    await new Promise<void>((r) => setImmediate(r));
    await core.submit(makeBatch());
    enqueued += BATCH;
  }
});
const t0 = performance.now();
end = performance.now() + seconds * 1000;
// Meanwhile: how long until an acknowledged result is visible to reads (enqueue → projection).
const lags: number[] = [];
const staleness = (async () => {
  for (let n = 0; performance.now() < end; n++) {
    const output = `marker ${n}`;
    const t = performance.now();
    const visible = new Promise<void>((resolve) => {
      void core.submit(
        [
          {
            type: "ProcessCheckResult",
            // A host: the ingestion load only sends service results, so nothing overtakes the marker.
            result: {
              host: fleetHost(7),
              exitStatus: 0,
              output,
              longOutput: "",
              perfdata: [],
              checkedAt: Date.now(),
              durationMs: 0,
              source: "passive",
            },
          },
        ],
        { onVisible: resolve },
      );
    });
    await visible;
    if (core.view.projection.status(fleetHost(7))?.output !== output) throw new Error("not visible");
    lags.push(performance.now() - t);
    await sleep(100);
  }
})();
await measure("ListStatus 1000/100000, under ingestion", () => performance.now() < end);
await staleness;
lags.sort((a, b) => a - b);
console.log(
  `submit → visible to reads, under ingestion: p50 ${(lags[Math.floor(lags.length / 2)] ?? 0).toFixed(1)} ms, p99 ${(lags[Math.floor(lags.length * 0.99)] ?? 0).toFixed(1)} ms (${lags.length} samples)`,
);
ingesting = false;
await Promise.all(clients);
console.log(
  `ingestion meanwhile: ${((enqueued / (performance.now() - t0)) * 1000).toFixed(0)} results/s; load average ${loadavg()[0]?.toFixed(1)}`,
);
await core.close();
rmSync(dir, { recursive: true, force: true });
