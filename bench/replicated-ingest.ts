/**
 * Issue 29's figures: Lookout replicated through its command log on JetStream, on this machine —
 * three nats-servers in a cluster (src/testing/peers/nats.ts) and three `lookout` servers with
 * `-nats … -leader-election` (src/testing/replicas.ts), started with the launcher's settings
 * (bin/lookout.js, bench/launcher-settings.ts), over a passive fleet of `hosts` × `services`.
 *
 *   1. Ingestion: ProcessCheckResults batches of 1,000 over gRPC (bench/ingest-client, `clients`
 *      processes with `concurrency` calls in flight each) against the leader for `seconds`, at
 *      `-nats-replicas` 1 and 3, beside the single-node figure (one server, no -nats): results/s
 *      acknowledged and the servers' CPU per result (every lookout process, and the nats-servers).
 *   2. Replica lag under full ingestion (during the replicas-3 run): every 200 ms a probe result
 *      for the host `probe` goes to the leader; the time from its acknowledgement until a replica
 *      answers it in ListStatus (and, for comparison, until the leader does): p50/p99/max. Then the
 *      time from the end of the writes until every replica answers what the leader answers
 *      (ListStatus, ListHistory, ListDowntimes, ListComments, compared field by field).
 *   3. Failover, `trials` times: a light write load (results, comments, downtimes,
 *      acknowledgements) on the leader; kill -9 of the leader; the time until a survivor says it
 *      leads and accepts a write (tried every 100 ms), and the acknowledged writes the new leader
 *      lacks once the survivors agree (want 0); the killed server is restarted for the next trial.
 *
 *   npm run bench:replicated -- [--seconds 20] [--clients 2] [--concurrency 4] [--hosts 100]
 *     [--services 100] [--trials 20] [--lease 3s] [--phases ilf]
 *
 * `--lease` is the servers' `-leader-lease` (the flag's default, 10 s, alone outlasts the issue's
 * failover target). `--phases` picks the parts: i (ingestion at 1 and 3 and single-node), l (lag,
 * with the replicas-3 ingestion), f (failover). Read the CPU columns on a shared machine, not wall
 * time.
 */

import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { timestampFromMs } from "@bufbuild/protobuf/wkt";
import { fleetDocument, fleetHost, fleetService } from "../src/core/fleet-config.js";
import {
  acknowledgedCount,
  describeMissing,
  type ObjectName,
  settledWrites,
  startWriteLoad,
} from "../src/testing/replica-writes.js";
import {
  apiOf,
  converge,
  type Replica,
  type ReplicaSet,
  sleep,
  startReplicaSet,
} from "../src/testing/replicas.js";
import { startServer } from "../src/testing/server-process.js";
import { describeSettings, launcherSettings } from "./launcher-settings.js";
import { runIngestClient } from "./run-ingest-client.js";

const arg = (name: string, dflt: string): string => {
  const i = process.argv.indexOf(`--${name}`);
  return i < 0 ? dflt : String(process.argv[i + 1]);
};
const SECONDS = Number(arg("seconds", "20"));
const CLIENTS = Number(arg("clients", "2"));
const CONCURRENCY = Number(arg("concurrency", "4"));
const HOSTS = Number(arg("hosts", "100"));
const SERVICES = Number(arg("services", "100"));
const TRIALS = Number(arg("trials", "20"));
/**
 * Lookout servers in the ingestion phases (default 3). Each applies every result: on a 2-core
 * machine three of them share the cores, so `--servers 1` measures what the log itself costs.
 */
const SERVERS = Number(arg("servers", "3"));
const LEASE = arg("lease", "3s");
const PHASES = arg("phases", "ilf");

const launcher = launcherSettings();
const env: NodeJS.ProcessEnv = { PATH: process.env.PATH ?? "/usr/bin:/bin", ...launcher.env };
const config = fleetDocument({
  hosts: HOSTS,
  servicesPerHost: SERVICES,
  extra: `hosts: probe: {address: "127.0.0.1", check: {type: "passive", freshness_threshold: "24h"}}`,
});

/** CPU seconds (user + system, every thread) of a process so far; 0 once it is gone. */
function cpuSeconds(pid: number | undefined): number {
  if (pid === undefined) return 0;
  try {
    const f = readFileSync(`/proc/${pid}/stat`, "utf8");
    const rest = f.slice(f.lastIndexOf(")") + 2).split(" ");
    return (Number(rest[11]) + Number(rest[12])) / 100;
  } catch {
    return 0;
  }
}

const pct = (xs: readonly number[], q: number): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))] ?? Number.NaN;
};
const ms = (x: number): string => (Number.isNaN(x) ? "-" : `${Math.round(x)} ms`);

interface IngestRun {
  readonly results: number;
  readonly seconds: number;
  readonly rate: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
}

/** `CLIENTS` ingest-client processes against `url` for `SECONDS`; their totals. */
async function ingest(url: string): Promise<IngestRun> {
  const one = (): Promise<IngestRun> =>
    runIngestClient({
      url,
      protocol: "grpc",
      seconds: SECONDS,
      concurrency: CONCURRENCY,
      hosts: HOSTS,
      servicesPerHost: SERVICES,
      rate: 0,
      batch: 1000,
    });
  const runs = await Promise.all(Array.from({ length: CLIENTS }, one));
  const results = runs.reduce((n, r) => n + r.results, 0);
  const seconds = Math.max(...runs.map((r) => r.seconds));
  return {
    results,
    seconds,
    rate: Math.round(results / seconds),
    p50Ms: Math.max(...runs.map((r) => r.p50Ms)),
    p99Ms: Math.max(...runs.map((r) => r.p99Ms)),
  };
}

const line = (label: string, r: IngestRun, cpu: string): string =>
  `${label}: ${r.rate} results/s acknowledged (${r.results} in ${r.seconds.toFixed(1)} s; ${CLIENTS} clients × ${CONCURRENCY} batches of 1,000 in flight, gRPC; call p50 ${ms(r.p50Ms)} p99 ${ms(r.p99Ms)}); ${cpu}; load average ${loadavg()[0]?.toFixed(1)}`;

/** Probes the replica lag while `running()`: a result to the leader, then polls until each shows it. */
async function probeLag(leader: Replica, replica: Replica, running: () => boolean) {
  const lagReplica: number[] = [];
  const lagLeader: number[] = [];
  let never = 0;
  const L = apiOf(leader.url);
  const R = apiOf(replica.url);
  const shows = async (api: typeof L, output: string): Promise<boolean> => {
    const s = await api.query.listStatus({ host: "probe" }, { timeoutMs: 5_000 }).catch(() => undefined);
    return s?.statuses.some((x) => x.service === undefined && x.output === output) ?? false;
  };
  for (let n = 0; running(); n++) {
    const output = `OK - probe ${n}`;
    try {
      await L.command.processCheckResult(
        { host: "probe", exitStatus: 0, output, checkedAt: timestampFromMs(Date.now()) },
        { timeoutMs: 10_000 },
      );
    } catch {
      await sleep(200);
      continue;
    }
    const acked = performance.now();
    let onLeader = Number.NaN;
    let onReplica = Number.NaN;
    while (performance.now() - acked < 5_000 && (Number.isNaN(onLeader) || Number.isNaN(onReplica))) {
      const [l, r] = await Promise.all([
        Number.isNaN(onLeader) ? shows(L, output) : Promise.resolve(false),
        Number.isNaN(onReplica) ? shows(R, output) : Promise.resolve(false),
      ]);
      const t = performance.now() - acked;
      if (l) onLeader = t;
      if (r) onReplica = t;
      await sleep(10);
    }
    if (!Number.isNaN(onLeader)) lagLeader.push(onLeader);
    if (Number.isNaN(onReplica)) never++;
    else lagReplica.push(onReplica);
    await sleep(200);
  }
  return { lagReplica, lagLeader, never };
}

/** Starts 3 servers at `replicas` on a fresh nats cluster; resolves with the set and its leader. */
async function replicatedSet(replicas: number, servers = 3): Promise<{ set: ReplicaSet; leader: Replica }> {
  const set = await startReplicaSet({
    config,
    natsReplicas: replicas,
    leaderLease: LEASE,
    env,
    nodeArgs: launcher.nodeArgs,
    startTimeoutMs: 180_000,
    ...(process.env.BENCH_DIR === undefined ? {} : { baseDir: process.env.BENCH_DIR }),
  });
  try {
    await set.addMany(servers);
    return { set, leader: await set.leader(60_000) };
  } catch (e) {
    set.failed(e);
    await set.stop();
    throw e;
  }
}

const cpuOf = (set: ReplicaSet) => ({
  lookout: set.replicas.reduce((n, r) => n + cpuSeconds(r.running ? r.pid : undefined), 0),
  nats: set.nats.nodes.reduce((n, x) => n + cpuSeconds(x.pid), 0),
});

console.log(
  `replicated ingestion: ${HOSTS} hosts × ${SERVICES} services (+1 probe host), passive; the launcher's settings: ${describeSettings(launcher)}; lease ${LEASE}`,
);

// 1. The single-node figure (no -nats).
if (PHASES.includes("i")) {
  const dir = mkdtempSync(join(process.env.BENCH_DIR ?? tmpdir(), "lookout-replicated-bench-"));
  writeFileSync(join(dir, "lookout.cue"), config);
  const srv = await startServer(["-config", join(dir, "lookout.cue"), "-data-dir", join(dir, "data")], {
    env,
    nodeArgs: launcher.nodeArgs,
    timeoutMs: 180_000,
  });
  try {
    const cpu0 = cpuSeconds(srv.child.pid);
    const r = await ingest(srv.url);
    const cpu = cpuSeconds(srv.child.pid) - cpu0;
    console.log(
      line("single node (no -nats)", r, `server CPU ${((cpu * 1e6) / r.results).toFixed(1)} µs/result`),
    );
  } finally {
    await srv.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

for (const replicas of PHASES.includes("i") || PHASES.includes("l") || PHASES.includes("f") ? [1, 3] : []) {
  if (replicas === 1 && !PHASES.includes("i")) continue;
  // The lag probe and the failover trials need replicas: three servers for them.
  const { set, leader } = await replicatedSet(
    replicas,
    replicas === 3 && !PHASES.includes("i") ? 3 : SERVERS,
  );
  try {
    const replica = set.running().find((r) => r !== leader);
    // 1 and 2. Ingestion against the leader; at replicas 3, the lag probe beside it.
    if (PHASES.includes("i") || (replicas === 3 && PHASES.includes("l"))) {
      const c0 = cpuOf(set);
      const leaderCpu0 = cpuSeconds(leader.pid);
      let ingesting = true;
      const probing =
        replicas === 3 && PHASES.includes("l") && replica !== undefined
          ? probeLag(leader, replica, () => ingesting)
          : undefined;
      const r = await ingest(leader.url);
      ingesting = false;
      const stopped = performance.now();
      const c1 = cpuOf(set);
      const leaderCpu = cpuSeconds(leader.pid) - leaderCpu0;
      const per = (s: number) => ((s * 1e6) / r.results).toFixed(1);
      console.log(
        line(
          `-nats-replicas ${replicas}, ${set.running().length} servers, writes to the leader`,
          r,
          `CPU µs/result: leader ${per(leaderCpu)}, all lookout ${per(c1.lookout - c0.lookout)}, nats-servers ${per(c1.nats - c0.nats)}`,
        ),
      );
      if (probing !== undefined) {
        const p = await probing;
        const c = await converge(
          leader,
          set.running().filter((x) => x !== leader),
          { timeoutMs: 30_000, everyMs: 100 },
        );
        const since = performance.now() - stopped;
        console.log(
          `replica lag under full ingestion (${p.lagReplica.length + p.never} probes, ack on the leader → visible on ${replica?.name}): ` +
            `p50 ${ms(pct(p.lagReplica, 0.5))} p99 ${ms(pct(p.lagReplica, 0.99))} max ${ms(Math.max(...p.lagReplica, Number.NaN))}; ` +
            `${p.never} never seen within 5 s; on the leader itself p50 ${ms(pct(p.lagLeader, 0.5))} p99 ${ms(pct(p.lagLeader, 0.99))}`,
        );
        console.log(
          c.equal
            ? `every replica equal to the leader ${ms(since)} after writes stopped (the comparison reads every list of all three: ${ms(c.ms)} of that polling)`
            : `replicas still differ from the leader ${ms(since)} after writes stopped: ${c.difference}`,
        );
      }
    }

    // 3. Failover trials.
    if (replicas === 3 && PHASES.includes("f")) {
      const objects: ObjectName[] = [];
      for (let s = 0; s < Math.min(SERVICES, 50); s++)
        objects.push({ host: fleetHost(0), service: fleetService(s) });
      const ackObjects: ObjectName[] = [];
      for (let s = 0; s < Math.min(SERVICES, 10); s++)
        ackObjects.push({ host: fleetHost(1), service: fleetService(s) });
      const times: number[] = [];
      const lost: number[] = [];
      let current = leader;
      for (let trial = 1; trial <= TRIALS; trial++) {
        const L = apiOf(current.url);
        await L.command
          .processCheckResults({
            results: ackObjects.map((o) => ({
              host: o.host,
              ...(o.service === undefined ? {} : { service: o.service }),
              exitStatus: 2,
              output: `CRITICAL - trial ${trial}`,
            })),
          })
          .catch(() => {});
        // The load's objects start OK: its first result (CRITICAL) is then a state change, which
        // the ledger looks for in the history (an object a trial left CRITICAL would have none).
        await L.command
          .processCheckResults({
            results: objects.map((o) => ({
              host: o.host,
              ...(o.service === undefined ? {} : { service: o.service }),
              exitStatus: 0,
              output: `OK - before trial ${trial}`,
            })),
          })
          .catch(() => {});
        const others = set.running().filter((r) => r !== current);
        const dead = current;
        const load = startWriteLoad({
          targets: () => [dead, ...others],
          objects,
          ackObjects,
          sideObject: { host: fleetHost(1) },
          writers: 2,
          batch: 25,
          pauseMs: 20,
          tag: `trial${trial}`,
        });
        await sleep(1_000);
        await set.kill(dead);
        const t0 = performance.now();
        let next: Replica | undefined;
        while (next === undefined && performance.now() - t0 < 120_000) {
          for (const [r, leading] of await set.leading()) {
            if (leading !== true) continue;
            const ok = await apiOf(r.url)
              .command.processCheckResult(
                { host: "probe", exitStatus: 0, output: `OK - trial ${trial} new leader` },
                { timeoutMs: 2_000 },
              )
              .then(
                () => true,
                () => false,
              );
            if (ok) next = r;
          }
          if (next === undefined) await sleep(100);
        }
        const took = performance.now() - t0;
        const ledger = await load.stop();
        if (next === undefined) {
          console.log(`failover trial ${trial}: no new leader accepted a write within 120 s`);
          break;
        }
        times.push(took);
        const survivors = set.running();
        const c = await converge(
          next,
          survivors.filter((r) => r !== next),
          { timeoutMs: 15_000 },
        );
        const m = await settledWrites(next, ledger, 15_000);
        lost.push(m.lost.length);
        const why = describeMissing(next.name, m, ledger);
        console.log(
          `failover trial ${trial}: ${dead.name} killed → ${next.name} leads and accepts a write after ${ms(took)}; ` +
            `${m.lost.length} of ${acknowledgedCount(ledger)} acknowledged writes lost on the new leader` +
            `${c.equal ? "" : `; survivors differ: ${c.difference}`}${why === undefined ? "" : ` (${why})`}`,
        );
        await set.restart(dead);
        current = next;
        await sleep(1_000);
      }
      console.log(
        `failover over ${times.length} trials: p50 ${ms(pct(times, 0.5))} p99 ${ms(pct(times, 0.99))} max ${ms(Math.max(...times))}; ` +
          `lost acknowledged writes per trial: ${lost.join(" ")} (total ${lost.reduce((a, b) => a + b, 0)})`,
      );
    }
  } catch (e) {
    set.failed(e);
    throw e;
  } finally {
    await set.stop();
  }
}
