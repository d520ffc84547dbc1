/**
 * One result per request at the Core façade, without HTTP: `concurrency` Core.submitEncoded calls
 * in flight, each one ProcessCheckResult in Connect JSON (what the ingestion fast path hands over
 * for a unary call), against the same results in batches of 1,000, in one process and one run.
 * Prints results/s, the latency of a call (to durably enqueued) and the CPU per result of the
 * reader's thread (where requests are served) and of the writer's: the figure that says whether a
 * one-result request costs the reader as little as a result in a batch.
 *
 *   node dist/bench/ingest-single-core.js [seconds=5] [concurrency=50] [batches=1,1000,1,1000]
 *
 * `batches` lists the runs' batch sizes in order (`1` alone: only one-result calls, for a profile).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { Core } from "../src/core/core.js";
import { fleetConfig, fleetHost, fleetService } from "../src/core/fleet-config.js";
import { threadCpuMs } from "../src/store/thread-cpu.js";

const seconds = Number(process.argv[2] ?? 5);
const concurrency = Number(process.argv[3] ?? 50);
const batches = (process.argv[4] ?? "1,1000,1,1000").split(",").map(Number);
const HOSTS = 1000;
const SERVICES = 100;
const enc = new TextEncoder();

const dir = mkdtempSync(join(process.env.BENCH_DIR ?? tmpdir(), "lookout-ingest-single-"));
const core = await Core.open({
  dataDir: dir,
  config: fleetConfig({ hosts: HOSTS, servicesPerHost: SERVICES }),
  // LOOKOUT_DECODE_AHEAD=0: the writer without its decoding thread (WriterOptions.decodeAhead).
  writer: { decodeAhead: process.env.LOOKOUT_DECODE_AHEAD !== "0" },
});

let next = 0;
const one = (): string => {
  const i = next++ % (HOSTS * SERVICES);
  return `{"host":"${fleetHost(Math.floor(i / SERVICES))}","service":"${fleetService(i % SERVICES)}","exitStatus":0,"output":"OK - all good | time=0.012s;1;2;0"}`;
};

async function run(batch: number): Promise<void> {
  const lat: number[] = [];
  let results = 0;
  const r0 = threadCpuMs() ?? 0;
  const s0 = await core.writerStats();
  const w0 = s0.cpuMs ?? 0;
  const t0 = performance.now();
  const end = t0 + seconds * 1000;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < end) {
        const body =
          batch === 1
            ? enc.encode(one())
            : enc.encode(`{"results":[${Array.from({ length: batch }, one).join(",")}]}`);
        const s = performance.now();
        const o = await core.submitEncoded(batch === 1 ? "result-json" : "results-json", body);
        if (o.kind !== "enqueued") throw new Error("not decoded by the writer");
        lat.push(performance.now() - s);
        results += o.accepted;
      }
    }),
  );
  const took = (performance.now() - t0) / 1000;
  await core.flush();
  const reader = (threadCpuMs() ?? 0) - r0;
  const s1 = await core.writerStats();
  const writer = (s1.cpuMs ?? 0) - w0;
  const decoder =
    s1.decoderCpuMs === undefined
      ? ""
      : `, decoder ${((((s1.decoderCpuMs ?? 0) - (s0.decoderCpuMs ?? 0)) * 1000) / results).toFixed(1)}`;
  lat.sort((a, b) => a - b);
  const pct = (q: number): number => lat[Math.min(lat.length - 1, Math.floor(q * lat.length))] ?? 0;
  console.log(
    `${batch === 1 ? "one result per call" : `batches of ${batch}`}, ${concurrency} in flight: ` +
      `${Math.round(results / took)} results/s, call p50 ${pct(0.5).toFixed(1)} ms p99 ${pct(0.99).toFixed(1)} ms; ` +
      `µs per result: reader ${((reader * 1000) / results).toFixed(1)} (encoding the bodies included), writer ${((writer * 1000) / results).toFixed(1)}${decoder}; ` +
      `load ${loadavg()[0]?.toFixed(1)}`,
  );
}

for (const batch of batches) await run(batch);
await core.close();
rmSync(dir, { recursive: true, force: true });
