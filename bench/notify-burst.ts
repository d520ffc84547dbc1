/**
 * A burst: every service goes HARD CRITICAL at once under a policy with two webhook contacts.
 *
 *   node dist/bench/notify-burst.js [hosts=1000] [servicesPerHost=100]
 *
 * On the real binary (bin/lookout.js): one OK result per service, then one CRITICAL result per
 * service submitted as fast as the API takes them (batches of 5,000). Two loopback receivers count
 * every id. Prints the time to drain (first CRITICAL submitted → last notification received),
 * whether every notification arrived exactly once, and the server's peak RSS (VmHWM).
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { startWebhookReceiver } from "../src/testing/peers/webhook-receiver.js";
import { notifyFleet, rssOf, startBenchServer, submit } from "./notify-common.js";

const HOSTS = Number(process.argv[2] ?? 1000);
const SERVICES = Number(process.argv[3] ?? 100);
const N = HOSTS * SERVICES;
const BATCH = 5000;

const dir = mkdtempSync(join(tmpdir(), "lookout-bench-burst-"));
const a = await startWebhookReceiver({ keepBodies: false });
const b = await startWebhookReceiver({ keepBodies: false });
const config = join(dir, "fleet.cue");
writeFileSync(config, notifyFleet(HOSTS, SERVICES, { a: a.url, b: b.url }));
const t00 = performance.now();
const srv = await startBenchServer(["-config", config, "-data-dir", join(dir, "data")]);
console.log(
  `notify burst: ${N} services (${HOSTS} hosts × ${SERVICES}), 2 webhook contacts; started in ${((performance.now() - t00) / 1000).toFixed(1)} s, RSS ${rssOf(srv.pid).rss.toFixed(0)} MiB`,
);
const all = (status: number) => {
  const out: { host: string; service: string; exitStatus: number; output: string }[] = [];
  for (let h = 0; h < HOSTS; h++)
    for (let s = 0; s < SERVICES; s++)
      out.push({
        host: `h${h}`,
        service: `s${s}`,
        exitStatus: status,
        output: status === 0 ? "OK" : "CRITICAL",
      });
  return out;
};
let peakDuring = 0;
const sampler = setInterval(() => {
  peakDuring = Math.max(peakDuring, rssOf(srv.pid).rss);
}, 250);
try {
  const ok = all(0);
  for (let i = 0; i < ok.length; i += BATCH) await submit(srv.url, ok.slice(i, i + BATCH));
  const before = rssOf(srv.pid);
  const crit = all(2);
  const t0 = performance.now();
  const inflight: Promise<void>[] = [];
  for (let i = 0; i < crit.length; i += BATCH) {
    inflight.push(submit(srv.url, crit.slice(i, i + BATCH)));
    if (inflight.length >= 4) await Promise.all(inflight.splice(0));
  }
  await Promise.all(inflight);
  const submitted = (performance.now() - t0) / 1000;
  await Promise.all([a.waitFor(N, 1_800_000), b.waitFor(N, 1_800_000)]);
  const drained = (performance.now() - t0) / 1000;
  await new Promise((r) => setTimeout(r, 2000));
  const repeats = a.got.length - a.counts.size + (b.got.length - b.counts.size);
  const after = rssOf(srv.pid);
  console.log(
    `  submitted ${N} CRITICAL results in ${submitted.toFixed(1)} s; all ${2 * N} notifications received in ${drained.toFixed(1)} s (${((2 * N) / drained).toFixed(0)}/s)`,
  );
  console.log(`  distinct ids: a ${a.counts.size}, b ${b.counts.size} (want ${N} each); repeats ${repeats}`);
  console.log(
    `  server RSS: before the burst ${before.rss.toFixed(0)} MiB, highest sampled ${peakDuring.toFixed(0)} MiB, peak (VmHWM) ${after.peak.toFixed(0)} MiB, after ${after.rss.toFixed(0)} MiB`,
  );
  console.log(
    `  load average ${loadavg()
      .map((x) => x.toFixed(1))
      .join(" ")} on ${cpus().length} cores`,
  );
} finally {
  clearInterval(sampler);
  await srv.stop();
  await a.close();
  await b.close();
  rmSync(dir, { recursive: true, force: true });
}
