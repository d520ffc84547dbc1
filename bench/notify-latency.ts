/**
 * HARD state change → webhook received, on the real binary:
 *
 *   node dist/bench/notify-latency.js [rate=200] [seconds=20] [services=200]
 *
 * Every `1/rate` seconds one passive result flips a service between CRITICAL and OK (max_attempts
 * 1: each is a HARD state change, PROBLEM or RECOVERY) over Connect JSON; a loopback receiver
 * records when each notification arrives. Latency is from sending the result to the POST arriving
 * (the result's output carries a tag the webhook body echoes). Target: p99 < 100 ms at 200/s.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { startWebhookReceiver } from "../src/testing/peers/webhook-receiver.js";
import { notifyFleet, percentile, rssOf, startBenchServer, submit } from "./notify-common.js";
import { treeUsage } from "./peers/procs.js";

const RATE = Number(process.argv[2] ?? 200);
const SECONDS = Number(process.argv[3] ?? 20);
const SERVICES = Number(process.argv[4] ?? 200);
const now = () => performance.timeOrigin + performance.now();

const dir = mkdtempSync(join(tmpdir(), "lookout-bench-notify-"));
const hook = await startWebhookReceiver();
const config = join(dir, "fleet.cue");
writeFileSync(config, notifyFleet(1, SERVICES, { hook: hook.url }));
// BENCH_SERVER_ARGS (e.g. "-writer-priority nice"): more flags for the server, to compare settings.
const extraArgs = (process.env.BENCH_SERVER_ARGS ?? "").split(" ").filter((a) => a !== "");
const srv = await startBenchServer(["-config", config, "-data-dir", join(dir, "data"), ...extraArgs]);
try {
  // Every service OK first (not a notification: PENDING → OK), then the measured flips.
  await submit(
    srv.url,
    Array.from({ length: SERVICES }, (_, j) => ({
      host: "h0",
      service: `s${j}`,
      exitStatus: 0,
      output: "init",
    })),
  );
  const sentAt = new Map<string, number>();
  // When the API answered: the result is durable in the log (the notifier's part starts there).
  const durableAt = new Map<string, number>();
  const state = new Array<number>(SERVICES).fill(0);
  const total = RATE * SECONDS;
  // The server's CPU time over the measured part: what a state change costs, whatever the load.
  const cpu0 = treeUsage(srv.pid).cpuS;
  const t0 = now();
  const inflight: Promise<void>[] = [];
  for (let k = 0; k < total; k++) {
    const due = t0 + (k * 1000) / RATE;
    const wait = due - now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    const j = k % SERVICES;
    state[j] = state[j] === 0 ? 2 : 0;
    const tag = `r${k}`;
    sentAt.set(tag, now());
    inflight.push(
      submit(srv.url, [{ host: "h0", service: `s${j}`, exitStatus: state[j] as number, output: tag }]).then(
        () => {
          durableAt.set(tag, now());
        },
      ),
    );
    if (inflight.length > 64) await Promise.all(inflight.splice(0));
  }
  await Promise.all(inflight);
  const sendSeconds = (now() - t0) / 1000;
  await hook.waitFor(total, 120_000);
  const cpuS = treeUsage(srv.pid).cpuS - cpu0;
  const lat = hook.got
    .map((g) => g.at - (sentAt.get(String(g.body.output)) ?? Number.NaN))
    .filter((x) => Number.isFinite(x))
    .sort((a, b) => a - b);
  const fromDurable = hook.got
    .map((g) => g.at - (durableAt.get(String(g.body.output)) ?? Number.NaN))
    .filter((x) => Number.isFinite(x))
    .sort((a, b) => a - b);
  const submitLat = [...sentAt].map(([t, at]) => (durableAt.get(t) ?? Number.NaN) - at).sort((a, b) => a - b);
  const dup = hook.got.length - hook.counts.size;
  console.log(
    `notify latency: ${total} HARD state changes at ${(total / sendSeconds).toFixed(0)}/s (target ${RATE}/s) over ${sendSeconds.toFixed(1)} s`,
  );
  console.log(
    `  result sent → webhook received: p50 ${percentile(lat, 50).toFixed(1)} ms, p90 ${percentile(lat, 90).toFixed(1)} ms, p99 ${percentile(lat, 99).toFixed(1)} ms, max ${percentile(lat, 100).toFixed(1)} ms`,
  );
  console.log(
    `  of which the API answering (durable): p50 ${percentile(submitLat, 50).toFixed(1)} ms, p99 ${percentile(submitLat, 99).toFixed(1)} ms; API answer → webhook received: p50 ${percentile(fromDurable, 50).toFixed(1)} ms, p99 ${percentile(fromDurable, 99).toFixed(1)} ms (negative: the POST arrived before the API's answer)`,
  );
  console.log(`  server CPU ${((cpuS * 1e6) / total).toFixed(0)} µs per state change (${cpuS.toFixed(1)} s)`);
  console.log(
    `  load average ${loadavg()
      .map((x) => x.toFixed(1))
      .join(" ")} on ${cpus().length} cores`,
  );
  console.log(
    `  received ${hook.counts.size} distinct ids, ${dup} repeats; server RSS ${rssOf(srv.pid).rss.toFixed(0)} MiB (peak ${rssOf(srv.pid).peak.toFixed(0)} MiB)`,
  );
} finally {
  await srv.stop();
  await hook.close();
  rmSync(dir, { recursive: true, force: true });
}
