/**
 * ListStatus `at` (docs/storage.md, "Status as of a moment"): `services` passive services, one
 * result each per minute for `hours` of the log's time, written through Core (the store's writer
 * thread) on an injected clock, with a snapshot every `cadence` minutes of that time (at one result
 * per service per minute, `services × cadence` events). Then prints:
 *
 * - the disk the log (events, commands) and the kept snapshots take, and their ratio;
 * - ListStatus at random moments in the window (a rebuild each, then a page of 100): p50/p99/max;
 * - the rate of ingestion (results applied per second) with no historical query, and with 10
 *   running without pause, by turns three times, and the live ListStatus page's p99 in both.
 *
 *   node dist/bench/status-at.js [services=2000] [hours=24] [cadence=5] [queries=50] [seconds=10]
 *
 * The target is 100,000 services over 24 h; on a small shared machine generating that
 * takes hours, so the size is a parameter: rebuild time grows with the events between two
 * snapshots (services × cadence) and the snapshot's size (services), disk with services × hours.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { Core } from "../src/core/core.js";
import { fleetConfig, fleetHost, fleetService } from "../src/core/fleet-config.js";
import type { CommandInput } from "../src/core/validate.js";
import type { ExitStatus } from "../src/model/state.js";
import { openAsOfLog } from "../src/store/as-of-log.js";
import { packBody, unpackBody } from "../src/store/event-log.js";
import { createProjection } from "../src/store/projection.js";
import { listStatus } from "../src/store/read-model.js";
import { Database } from "../src/store/sqlite.js";
import { FakeClock } from "../src/testing/fake-clock.js";

const services = Number(process.argv[2] ?? 2000);
const hours = Number(process.argv[3] ?? 24);
const cadence = Number(process.argv[4] ?? 5);
const queries = Number(process.argv[5] ?? 50);
const seconds = Number(process.argv[6] ?? 10);
const PER_HOST = 100;
const hosts = Math.max(1, Math.ceil(services / PER_HOST));
const perHost = Math.min(PER_HOST, services);
const total = hosts * perHost;
const BATCH = 1000;
const MINUTE = 60_000;

const dir = mkdtempSync(join(process.env.BENCH_DIR ?? tmpdir(), "lookout-status-at-"));
const clock = new FakeClock(Date.UTC(2026, 10, 1));
const start = clock.now();
const core = await Core.open({
  dataDir: dir,
  config: fleetConfig({ hosts, servicesPerHost: perHost, maxAttempts: 3 }),
  clock,
  writer: {
    snapshotEveryEvents: total * cadence,
    snapshotEveryMs: 1e12,
    snapshotKeepEveryMs: (cadence * MINUTE) / 2,
  },
});

/** One minute's results: every service once; about 1 % change state each minute. */
function minuteOf(m: number): CommandInput[][] {
  const batches: CommandInput[][] = [];
  let batch: CommandInput[] = [];
  const now = clock.now();
  for (let i = 0; i < total; i++) {
    const bad = (i * 7919 + Math.floor(m / 5) * 104_729) % 100 === 0;
    const status: ExitStatus = bad ? 2 : 0;
    batch.push({
      type: "ProcessCheckResult",
      result: {
        host: fleetHost(Math.floor(i / perHost)),
        service: fleetService(i % perHost),
        exitStatus: status,
        output: bad ? "CRITICAL - broken" : "OK - all good",
        longOutput: "",
        perfdata: [{ label: "time", value: (i % 1000) / 1000, uom: "s", warn: "1", crit: "2" }],
        checkedAt: now,
        durationMs: 0,
        source: "passive",
      },
    });
    if (batch.length === BATCH) {
      batches.push(batch);
      batch = [];
    }
  }
  if (batch.length > 0) batches.push(batch);
  return batches;
}

let minute = 0;
/** Writes the next minute of the log's time. */
async function writeMinute(): Promise<number> {
  clock.advance(MINUTE);
  const batches = minuteOf(minute++);
  await Promise.all(batches.map((b) => core.submit(b)));
  return total;
}

console.log(
  `${total} services, ${hours} h of one result per service per minute (${total * hours * 60} results), a snapshot every ${cadence} min; load average ${loadavg()[0]?.toFixed(1)}`,
);
const g0 = performance.now();
for (let m = 0; m < hours * 60; m++) {
  await writeMinute();
  if (m % 30 === 29) await core.flush();
}
await core.flush();
const end = clock.now();
console.log(`generated in ${((performance.now() - g0) / 1000).toFixed(1)} s`);

// Disk: what the log's tables hold (bodies compressed as stored), beside the snapshots kept.
const mib = (b: number): string => (b / 1048576).toFixed(1);
const db = new Database(join(dir, "lookout.db"), { readonly: true });
const bytes = (sql: string): number => (db.prepare(sql).get() as { b: number | null }).b ?? 0;
const logBytes =
  bytes("SELECT sum(length(body)) + 40 * count(*) AS b FROM events") +
  bytes("SELECT sum(length(body)) + 16 * count(*) AS b FROM commands");
const wholeBytes = bytes("SELECT sum(length(body)) + 40 * count(*) AS b FROM snapshots");
const imageBytes = bytes("SELECT sum(length(body)) + 16 * count(*) AS b FROM status_images");
const whole = (db.prepare("SELECT count(*) AS n FROM snapshots").get() as { n: number }).n;
const images = (db.prepare("SELECT count(*) AS n FROM status_images").get() as { n: number }).n;
// What one snapshot is made of, each part compressed as the log compresses.
const newest = db.prepare("SELECT body FROM snapshots ORDER BY cmd_seq DESC LIMIT 1").get() as
  | { body: Buffer }
  | undefined;
db.close();
if (newest !== undefined) {
  const whole = JSON.parse(unpackBody(newest.body)) as Record<string, unknown> & {
    projection: Record<string, unknown>;
  };
  const size = (v: unknown): string => mib(packBody(JSON.stringify(v)).length);
  const { history, ...records } = whole.projection;
  console.log(
    `one snapshot, compressed: ${mib(newest.body.length)} MiB = engine ${size(whole.engine)} + records ${size(records)} + history ${size(history)} + fold ${size(whole.fold)} MiB`,
  );
}
// Without ListStatus `at` a data directory holds the log and the newest two snapshots; the status
// images (of the kept snapshots and of the newest two) are the extra.
const today = logBytes + wholeBytes;
console.log(
  `disk: log ${mib(logBytes)} MiB, the newest ${whole} snapshots ${mib(wholeBytes)} MiB, ${images} status images ${mib(imageBytes)} MiB (${(imageBytes / Math.max(1, images) / 1024).toFixed(0)} KiB each): ${((imageBytes / today) * 100).toFixed(1)} % more than the log and two snapshots`,
);

const pct = (xs: number[], p: number): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? Number.NaN;
};
const within = (): number => start + 60_000 + Math.random() * (end - start - 60_000);
const page = async (at: number): Promise<void> => {
  const projection = await core.projectionAt(at);
  const p = listStatus(core.view.index, projection, { pageSize: 100 });
  if (p.items.length === 0) throw new Error("empty page");
};

// The rebuild's own cost, on this thread (normal priority, no queue): plan, rebuild, take in.
// (CPU time too: on a shared machine the wall time is mostly the wait for a CPU.)
const direct: number[] = [];
const directCpu: number[] = [];
const log = openAsOfLog(dir);
for (let i = 0; i < Math.min(queries, 10); i++) {
  const t0 = performance.now();
  const c0 = process.cpuUsage();
  const p = createProjection(undefined, { historyCapacity: 1 });
  p.applyDelta(log.rebuild(log.plan(within())));
  const c = process.cpuUsage(c0);
  directCpu.push((c.user + c.system) / 1000);
  direct.push(performance.now() - t0);
}
log.close();
console.log(
  `rebuild alone on this thread (${direct.length}): wall p50 ${pct(direct, 50).toFixed(0)} ms, max ${Math.max(...direct).toFixed(0)} ms; CPU p50 ${pct(directCpu, 50).toFixed(0)} ms, max ${Math.max(...directCpu).toFixed(0)} ms`,
);

const lat: number[] = [];
for (let i = 0; i < queries; i++) {
  const t0 = performance.now();
  await page(within());
  lat.push(performance.now() - t0);
}
console.log(
  `ListStatus at a random moment (${queries}, one at a time): p50 ${pct(lat, 50).toFixed(0)} ms, p99 ${pct(lat, 99).toFixed(0)} ms, max ${Math.max(...lat).toFixed(0)} ms`,
);

/** Ingests for `seconds`, minute after minute of the log's time; results applied per second, and the live page's latencies. */
async function ingest(): Promise<{ rate: number; live: number[] }> {
  const live: number[] = [];
  let stop = false;
  const prober = (async () => {
    while (!stop) {
      await new Promise((r) => setTimeout(r, 10));
      const t0 = performance.now();
      const { index, projection } = core.view;
      listStatus(index, projection, { pageSize: 100 });
      live.push(performance.now() - t0);
    }
  })();
  const t0 = performance.now();
  let n = 0;
  while (performance.now() - t0 < seconds * 1000) n += await writeMinute();
  await core.flush();
  const rate = n / ((performance.now() - t0) / 1000);
  stop = true;
  await prober;
  return { rate, live };
}

// Alone and during 10 concurrent historical queries by turns, so that the machine's load, which
// drifts on a shared machine, weighs on both alike.
const quiet: { rate: number; live: number[] }[] = [];
const loaded: { rate: number; live: number[] }[] = [];
let answered = 0;
const busy: number[] = [];
for (let round = 0; round < 3; round++) {
  quiet.push(await ingest());
  let running = true;
  const historians = Array.from({ length: 10 }, async () => {
    while (running) {
      const t0 = performance.now();
      await page(within());
      busy.push(performance.now() - t0);
      answered++;
    }
  });
  loaded.push(await ingest());
  running = false;
  await Promise.all(historians);
}
const rates = (xs: { rate: number }[]): string => xs.map((x) => x.rate.toFixed(0)).join(", ");
const ratios = quiet.map((q, i) => (loaded[i] as { rate: number }).rate / q.rate);
console.log(
  `ingestion, three rounds of ${seconds} s each: ${rates(quiet)} results/s alone, ${rates(loaded)} results/s during 10 concurrent historical queries (median ratio ${pct(ratios, 50).toFixed(2)}; ${answered} answered, p50 ${pct(busy, 50).toFixed(0)} ms, p99 ${pct(busy, 99).toFixed(0)} ms)`,
);
const lives = (xs: { live: number[] }[]): number[] => xs.flatMap((x) => x.live);
console.log(
  `live ListStatus page of 100: p99 ${pct(lives(quiet), 99).toFixed(2)} ms alone, ${pct(lives(loaded), 99).toFixed(2)} ms during the historical queries`,
);
await core.close();
rmSync(dir, { recursive: true, force: true });
