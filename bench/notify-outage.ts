/**
 * The receiver down while problems occur, then back:
 *
 *   node dist/bench/notify-outage.js [problems=10000] [outageSeconds=300]
 *
 * On the real binary: the webhook receiver stops listening (connections refused), `problems`
 * services go HARD CRITICAL during the first seconds of the outage, the receiver comes back after
 * `outageSeconds`. Prints lost notifications (want 0), repeats (each only with its own id), and the
 * server's RSS before, during (highest sample) and after the drain.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { startWebhookReceiver } from "../src/testing/peers/webhook-receiver.js";
import { notifyFleet, rssOf, startBenchServer, submit } from "./notify-common.js";

const PROBLEMS = Number(process.argv[2] ?? 10_000);
const OUTAGE_S = Number(process.argv[3] ?? 300);
const HOSTS = Math.ceil(PROBLEMS / 100);

const dir = mkdtempSync(join(tmpdir(), "lookout-bench-outage-"));
const hook = await startWebhookReceiver({ keepBodies: false });
const config = join(dir, "fleet.cue");
writeFileSync(config, notifyFleet(HOSTS, 100, { hook: hook.url }));
const srv = await startBenchServer(["-config", config, "-data-dir", join(dir, "data")]);
const results = (status: number) => {
  const out: { host: string; service: string; exitStatus: number; output: string }[] = [];
  for (let i = 0; i < PROBLEMS; i++)
    out.push({
      host: `h${Math.floor(i / 100)}`,
      service: `s${i % 100}`,
      exitStatus: status,
      output: `r${i}`,
    });
  return out;
};
let during = 0;
let sampling = false;
const sampler = setInterval(() => {
  if (sampling) during = Math.max(during, rssOf(srv.pid).rss);
}, 500);
try {
  const ok = results(0);
  for (let i = 0; i < ok.length; i += 2000) await submit(srv.url, ok.slice(i, i + 2000));
  const before = rssOf(srv.pid).rss;
  await hook.down();
  sampling = true;
  const t0 = performance.now();
  const crit = results(2);
  // Spread over the first tenth of the outage, as problems occurring during it.
  const steps = 10;
  for (let k = 0; k < steps; k++) {
    await submit(srv.url, crit.slice((k * PROBLEMS) / steps, ((k + 1) * PROBLEMS) / steps));
    await new Promise((r) => setTimeout(r, (OUTAGE_S * 100) / steps));
  }
  const left = OUTAGE_S * 1000 - (performance.now() - t0);
  if (left > 0) await new Promise((r) => setTimeout(r, left));
  const duringOutage = during;
  await hook.up();
  const tUp = performance.now();
  await hook.waitFor(PROBLEMS, 600_000);
  const drain = (performance.now() - tUp) / 1000;
  sampling = false;
  await new Promise((r) => setTimeout(r, 3000));
  const after = rssOf(srv.pid);
  const repeats = hook.got.length - hook.counts.size;
  console.log(`notify outage: ${PROBLEMS} problems while the receiver was down ${OUTAGE_S} s`);
  console.log(
    `  lost ${PROBLEMS - hook.counts.size}; repeats ${repeats} (each with its own id); drained ${drain.toFixed(1)} s after the receiver came back`,
  );
  console.log(
    `  server RSS: before ${before.toFixed(0)} MiB, during the outage (highest sample) ${duringOutage.toFixed(0)} MiB, after the drain ${after.rss.toFixed(0)} MiB (peak ${after.peak.toFixed(0)} MiB)`,
  );
  console.log(
    `  load average ${loadavg()
      .map((x) => x.toFixed(1))
      .join(" ")} on ${cpus().length} cores`,
  );
} finally {
  clearInterval(sampler);
  await srv.stop();
  await hook.close();
  rmSync(dir, { recursive: true, force: true });
}
