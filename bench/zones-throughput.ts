/**
 * Benchmark: zones through a real nats-server (JetStream, one node, file storage) on loopback.
 *
 * 1. Jobs scheduled: the server's dispatcher publishes one job for each of N services (the
 *    scheduler's route hook, called as fast as the publish window allows) — jobs/s acknowledged by
 *    JetStream.
 * 2. Results ingested: N result messages are published to the results stream, then the leader's
 *    ingestion reads them and logs them through Core.submit into a real event log — results/s.
 * 3. Lateness: the real scheduler over N services every `--interval` seconds, routed to 3 worker
 *    processes (bench/zones-worker-child.ts, dummy in-process checks, concurrency 1000 each), the
 *    results ingested as in 2; prints p50/p99/max of (run start − due time) of the runs that
 *    started in the measured intervals, and how many there were (N per interval if it keeps up).
 *
 *   npm run bench:zones -- [--services 100000] [--interval 60] [--rounds 1] [--phases 123]
 *
 * `--phases` picks the parts to run (default all three: "123").
 */
import { type ChildProcess, fork } from "node:child_process";
import { once } from "node:events";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { jetstream } from "@nats-io/jetstream";
import { connect } from "@nats-io/transport-node";
import { Core } from "../src/core/core.js";
import { createScheduler, planServiceCheck } from "../src/engine/scheduler/index.js";
import { systemClock } from "../src/model/clock.js";
import {
  type CheckConfig,
  type Config,
  DEFAULT_SCHEDULE,
  EMPTY_CONFIG,
  type HostConfig,
  type ServiceConfig,
} from "../src/model/config.js";
import { silentLogger } from "../src/model/logger.js";
import { startNatsCluster } from "../src/testing/peers/nats.js";
import {
  createDispatcher,
  decodeResult,
  encodeResult,
  makeJob,
  makeResult,
  names,
  natsConnectOptions,
  startResultsIngest,
  type ZoneMetrics,
} from "../src/zones/index.js";

const arg = (name: string, dflt: number): number => {
  const i = process.argv.indexOf(`--${name}`);
  return i < 0 ? dflt : Number(process.argv[i + 1]);
};
const N = arg("services", 100_000);
const INTERVAL_S = arg("interval", 60);
const ROUNDS = arg("rounds", 1);
const ZONE = "z";
const PHASES = (() => {
  const i = process.argv.indexOf("--phases");
  return i < 0 ? "123" : String(process.argv[i + 1]);
})();

function fleet(n: number, intervalMs: number): Config {
  const check: CheckConfig = {
    ...DEFAULT_SCHEDULE,
    checkIntervalMs: intervalMs,
    retryIntervalMs: intervalMs,
    type: "tcp",
    address: "127.0.0.1:9",
  };
  const passive: CheckConfig = {
    ...DEFAULT_SCHEDULE,
    type: "passive",
    freshnessThresholdMs: 86_400_000,
    staleStatus: "UNKNOWN",
  };
  const hosts = new Map<string, HostConfig>();
  const perHost = 10;
  for (let i = 0; i < n / perHost; i++) {
    const name = `h${i}`;
    const services = new Map<string, ServiceConfig>();
    for (let j = 0; j < perHost; j++) {
      services.set(`s${j}`, {
        host: name,
        name: `s${j}`,
        vars: {},
        check,
        notification: "",
        zone: ZONE,
        labels: {},
      });
    }
    hosts.set(name, {
      name,
      address: "127.0.0.1",
      parents: [],
      vars: {},
      check: passive,
      services,
      notification: "",
      zone: ZONE,
      labels: {},
    });
  }
  return { ...EMPTY_CONFIG, hosts };
}

const cpu = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};
const until = async (f: () => boolean, ms = 600_000) => {
  const end = Date.now() + ms;
  while (!f()) {
    if (Date.now() > end) throw new Error("timed out");
    await new Promise((r) => setTimeout(r, 5));
  }
};

const nats = await startNatsCluster(1);
const dir = mkdtempSync(join(tmpdir(), "lookout-zones-bench-"));
const children: ChildProcess[] = [];
try {
  const config = fleet(N, INTERVAL_S * 1000);
  const plans = [];
  for (const h of config.hosts.values())
    for (const s of h.services.values()) plans.push(planServiceCheck(config, h, s)!);
  const nc = await connect(natsConnectOptions(nats.urls, "bench-server"));
  let counts = { published: 0, dropped: 0, ingested: 0 };
  const metrics: ZoneMetrics = {
    published: () => void counts.published++,
    dropped: () => void counts.dropped++,
    ingested: () => void counts.ingested++,
    refused: () => void counts.dropped++,
    duplicate() {},
    snapshot() {},
  };
  const dispatcher = await createDispatcher({
    nc,
    localZones: new Set(),
    clock: systemClock,
    logger: silentLogger,
    metrics,
    submit: () => {},
    replicas: 1,
    token: () => 0,
    graceMs: 3_600_000,
  });
  await dispatcher.applyConfig(config);

  // 1. Jobs/s.
  if (PHASES.includes("1")) {
    // Two passes: the first run of each object also makes its job template and subject; the second
    // (the next interval's run, a newer job per subject) is the steady state.
    for (const [pass, due] of [
      ["first run of each object", Date.now()],
      ["steady state (next runs)", Date.now() + INTERVAL_S * 1000],
    ] as const) {
      counts = { published: 0, dropped: 0, ingested: 0 };
      const t0 = performance.now();
      const c0 = cpu();
      let routed = 0;
      for (const p of plans) {
        dispatcher.route(p, due);
        routed++;
        if (routed % 1_000 === 0) await until(() => routed - counts.published - counts.dropped < 5_000);
      }
      await until(() => counts.published + counts.dropped >= routed);
      const s = (performance.now() - t0) / 1000;
      const cpuMs = cpu() - c0;
      console.log(
        `jobs scheduled, ${pass}: ${counts.published} published (${counts.dropped} dropped) in ${s.toFixed(2)} s = ${Math.round(counts.published / s)} jobs/s; CPU ${(cpuMs / 1000).toFixed(1)} s = ${Math.round((cpuMs * 1000) / routed)} µs per job`,
      );
    }
  }
  const jsm = await (await import("@nats-io/jetstream")).jetstreamManager(nc);
  await jsm.streams.purge(names.JOBS_STREAM);

  // 2. Results/s ingested through Core.submit into a real log.
  const core = await Core.open({ dataDir: join(dir, "data"), config });
  if (PHASES.includes("2")) {
    const js = jetstream(nc);
    const t0 = performance.now();
    const acks = [];
    for (let i = 0; i < plans.length; i++) {
      const p = plans[i]!;
      const job = makeJob({
        key: p.key,
        zone: ZONE,
        due: 1,
        expiresAt: 2,
        timeoutMs: 1,
        leader: 0,
        target: p.target,
      });
      const r = makeResult(job, "bench", Date.now(), 1, {
        exitStatus: 0,
        output: "OK",
        longOutput: "",
        perfdata: [],
      });
      acks.push(
        js.publish(names.resultSubject(ZONE), encodeResult(r), { msgID: `bench-${i}`, timeout: 60_000 }),
      );
      if (acks.length >= 2_000) await Promise.all(acks.splice(0));
    }
    await Promise.all(acks);
    const sp = (performance.now() - t0) / 1000;
    console.log(
      `results published: ${plans.length} in ${sp.toFixed(2)} s = ${Math.round(plans.length / sp)} results/s`,
    );
    counts = { published: 0, dropped: 0, ingested: 0 };
    const t1 = performance.now();
    const c1 = cpu();
    const ingest = await startResultsIngest({
      nc,
      submit: (commands, onVisible) => core.submit(commands, { onVisible }),
      // As the server looks objects up (src/app/zones.ts): the check of refusals is measured too.
      placement: (host, service) => {
        const sv = service === undefined ? undefined : config.hosts.get(host)?.services.get(service);
        return sv === undefined ? undefined : { zone: sv.zone, active: sv.check.type !== "passive" };
      },
      isLocal: () => false,
      zoneOfToken: (t) => t,
      applied: () => {},
      logged: { floor: 0, above: [] },
      store: { load: () => undefined, save: () => {} },
      logger: silentLogger,
      metrics,
      now: () => Date.now(),
    });
    await until(() => counts.ingested >= plans.length);
    const si = (performance.now() - t1) / 1000;
    console.log(
      `results ingested: ${counts.ingested} in ${si.toFixed(2)} s = ${Math.round(counts.ingested / si)} results/s (logged, fsync'd); main-thread CPU ${((cpu() - c1) / 1000).toFixed(1)} s`,
    );
    await core.flush();

    // 3. Lateness over 3 worker processes (needs the ingest of 2).
    if (PHASES.includes("3")) {
      for (let w = 0; w < 3; w++) {
        const child = fork(
          new URL("./zones-worker-child.js", import.meta.url),
          [nats.urls, ZONE, `w${w + 1}`, "1000"],
          {
            stdio: "inherit",
          },
        );
        children.push(child);
        await once(child, "message");
      }
      const lateness: number[] = [];
      let measureFrom = Number.POSITIVE_INFINITY;
      const sub = nc.subscribe(names.resultSubject(ZONE));
      void (async () => {
        for await (const m of sub) {
          const r = decodeResult(m.data);
          if (r !== undefined && r.checkedAt >= measureFrom) lateness.push(r.checkedAt - r.due);
        }
      })();
      const scheduler = createScheduler({
        clock: systemClock,
        checkers: new Map(),
        submit: () => {},
        needsRetry: () => false,
        concurrency: 1000,
        route: (p, due) => dispatcher.route(p, due),
      });
      scheduler.applyConfig(config);
      scheduler.start();
      const t2 = Date.now();
      // The first interval fills the pipeline; measure the next ones.
      await new Promise((r) => setTimeout(r, INTERVAL_S * 1000));
      measureFrom = Date.now();
      counts = { published: 0, dropped: 0, ingested: 0 };
      const c2 = cpu();
      await new Promise((r) => setTimeout(r, ROUNDS * INTERVAL_S * 1000));
      const cpuS = (cpu() - c2) / 1000;
      await scheduler.stop();
      await new Promise((r) => setTimeout(r, 2_000));
      sub.unsubscribe();
      lateness.sort((a, b) => a - b);
      const q = (p: number) =>
        lateness[Math.min(lateness.length - 1, Math.floor(p * lateness.length))] ?? Number.NaN;
      console.log(
        `lateness, ${N} services every ${INTERVAL_S} s over 3 workers, ${ROUNDS} interval(s) after ${Math.round((measureFrom - t2) / 1000)} s of warm-up: ` +
          `${lateness.length} runs (${counts.published} published, ${counts.dropped} dropped, ${counts.ingested} ingested); ` +
          `p50 ${q(0.5)} ms, p99 ${q(0.99)} ms, max ${lateness.at(-1)} ms; server main-thread CPU ${cpuS.toFixed(1)} s`,
      );
    }
    await ingest.stop();
  }
  await dispatcher.stop();
  await core.close();
  await nc.close();
} finally {
  for (const c of children) {
    c.kill("SIGTERM");
    if (c.exitCode === null) await once(c, "exit");
  }
  await nats.stop();
  rmSync(dir, { recursive: true, force: true });
}
