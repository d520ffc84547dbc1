/**
 * `npm run bench:peers` (QUICK=1 for a ~10 minute run): Lookout side by side with Icinga 2 and
 * Nagios 4 from Debian, on the same machine, the same workloads, runs alternating between the
 * systems so drift hits all of them. Installs what it needs with apt-get; every daemon runs in the
 * foreground from a private temporary directory (nothing under /etc or /var is changed), talks only
 * to loopback, and is stopped by PID, also on Ctrl-C. Prints one `RESULT {json}` line per figure and
 * writes the table as docs/benchmarks.md's first section, keeping the sections after it
 * (PEERS_WRITE=0 leaves the file alone).
 *
 * PEERS_SCALE (default 1) scales every fleet size, for a smoke run: PEERS_SCALE=0.01. PEERS_SYSTEMS
 * and PEERS_WORKLOADS (comma lists) narrow a run: PEERS_WORKLOADS=validate,memory.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { cpus, loadavg, tmpdir, totalmem } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { measureCommandFile } from "../command-file.js";
import type { FleetSpec } from "./fleet.js";
import { probeGaps } from "./probe-gaps.js";
import { sleep, timed, treeUsage } from "./procs.js";
import { type Figure, renderTable } from "./report.js";
import { sendIcinga, sendLookout, sendNagios, writeCommandLines } from "./senders.js";
import { icinga2, icingaPort } from "./systems/icinga2.js";
import { lookout, lookoutUrl } from "./systems/lookout.js";
import { nagios4, nagiosCommandFile } from "./systems/nagios4.js";
import type { Peer } from "./systems/peer.js";

const QUICK = process.env.QUICK === "1";
const SCALE = Number(process.env.PEERS_SCALE ?? "1");
const ROUNDS = QUICK ? 1 : 3;
const WINDOW_MS = 60_000;
const only = (name: string): string[] | undefined => process.env[name]?.split(",").filter((x) => x !== "");
const peers: readonly Peer[] = [lookout, icinga2, nagios4].filter(
  (p) => only("PEERS_SYSTEMS")?.includes(p.name) ?? true,
);
const workloads = only("PEERS_WORKLOADS") ?? [
  "validate",
  "memory",
  "passive",
  "command-file",
  "active",
  "reload",
];
const figures: Figure[] = [];

function size(n: number): number {
  return Math.max(10, Math.round(n * SCALE));
}

/** The 1-minute load average when the current run started (set by `withDir`). */
let runLoad = 0;
/** The start loads of the runs since the last `aggregateLoad()` (for figures that take a median of runs). */
let runLoads: number[] = [];

/** Records a figure with the load average its run started at, unless the figure brings its own. */
function record(f: Omit<Figure, "load"> & { load?: number }): void {
  const withLoad: Figure = { ...f, load: f.load ?? runLoad };
  figures.push(withLoad);
  console.log(`RESULT ${JSON.stringify(withLoad)}`);
}

/** The median start load of the runs since the last call. */
function aggregateLoad(): number {
  const m = runLoads.length === 0 ? runLoad : median(runLoads);
  runLoads = [];
  return m;
}

function install(): void {
  const running = (name: string) => peers.some((p) => p.name === name);
  const need: [string, string][] = [
    ...(running("icinga2") ? ([["/usr/sbin/icinga2", "icinga2-bin"]] as [string, string][]) : []),
    ...(running("nagios4") ? ([["/usr/sbin/nagios4", "nagios4-core"]] as [string, string][]) : []),
    ["/usr/lib/nagios/plugins/check_dummy", "monitoring-plugins-basic"],
    ["/usr/bin/time", "time"],
    ["/usr/bin/openssl", "openssl"],
  ];
  const missing = need.filter(([p]) => spawnSync("test", ["-e", p]).status !== 0).map(([, pkg]) => pkg);
  if (missing.length === 0) return;
  console.log(`installing ${missing.join(" ")}`);
  execFileSync("apt-get", ["update", "-qq"], { stdio: "inherit" });
  execFileSync("apt-get", ["install", "-y", "-qq", "--no-install-recommends", ...missing], {
    stdio: "inherit",
    env: { ...process.env, DEBIAN_FRONTEND: "noninteractive" },
  });
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] as number;
}

async function withDir<T>(fn: (dir: string) => Promise<T>): Promise<T> {
  const dir = mkdtempSync(join(tmpdir(), "lookout-peers-"));
  runLoad = loadavg()[0] ?? 0;
  runLoads.push(runLoad);
  try {
    return await fn(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Configuration validation: wall time and peak RSS of the whole process. */
async function validation(services: number): Promise<void> {
  const fleet: FleetSpec = { services, servicesPerHost: 10, mode: "active", intervalS: 10 };
  const runs = new Map<string, { wall: number[]; rss: number[] }>();
  aggregateLoad();
  for (let round = 0; round < ROUNDS; round++) {
    for (const p of peers) {
      await withDir(async (dir) => {
        const { cmd, args } = p.validate(dir, fleet);
        const t = timed(cmd, args);
        if (t.code !== 0) throw new Error(`${p.name} validation failed: ${t.output}`);
        const r = runs.get(p.name) ?? { wall: [], rss: [] };
        r.wall.push(t.wallS);
        r.rss.push(t.peakRssMiB);
        runs.set(p.name, r);
      });
    }
  }
  const load = aggregateLoad();
  for (const [system, r] of runs) {
    record({
      load,
      workload: `validate ${services}`,
      system,
      metric: "wall",
      value: median(r.wall),
      unit: "s",
      better: "lower",
    });
    record({
      workload: `validate ${services}`,
      system,
      load,
      metric: "peak RSS",
      value: median(r.rss),
      unit: "MiB",
      better: "lower",
    });
  }
}

/** Memory per service: RSS of the daemon's process tree with every service passive, settled. */
async function memory(services: number): Promise<void> {
  const fleet: FleetSpec = { services, servicesPerHost: 10, mode: "passive", intervalS: 60 };
  for (const p of peers) {
    const per: number[] = [];
    aggregateLoad();
    for (let round = 0; round < ROUNDS; round++) {
      await withDir(async (dir) => {
        const r = await p.start(dir, fleet);
        try {
          await sleep(QUICK ? 15_000 : 60_000);
          per.push(treeUsage(r.daemon.pid).rssBytes / services);
        } finally {
          await r.daemon.stop();
        }
      });
    }
    record({
      load: aggregateLoad(),
      workload: `memory ${services}`,
      system: p.name,
      metric: "RSS per service",
      value: median(per),
      unit: "B",
      better: "lower",
    });
  }
}

/** Active check_dummy checks every 10 s: achieved checks/s over a minute, CPU, lateness. */
async function active(services: number): Promise<void> {
  const fleet: FleetSpec = { services, servicesPerHost: 10, mode: "active", intervalS: 10 };
  for (let round = 0; round < ROUNDS; round++) {
    for (const p of peers) {
      await withDir(async (dir) => {
        const r = await p.start(dir, fleet);
        try {
          await sleep(QUICK ? 20_000 : 40_000);
          await r.mark();
          const before = treeUsage(r.daemon.pid);
          await sleep(WINDOW_MS);
          const checks = await r.checksSince();
          const after = treeUsage(r.daemon.pid);
          const lat = await r.latency();
          const skipped = await r.skippedSince?.();
          const overdue = await r.overdue(2 * fleet.intervalS);
          const w = `active ${services} every 10s`;
          record({
            workload: w,
            system: p.name,
            metric: "checks/s",
            value: checks / 60,
            unit: "/s",
            better: "higher",
            round,
          });
          record({
            workload: w,
            system: p.name,
            metric: "CPU per check",
            value: checks === 0 ? 0 : ((after.cpuS - before.cpuS) / checks) * 1e6,
            unit: "µs",
            better: "lower",
            round,
          });
          record({
            workload: w,
            system: p.name,
            metric: "RSS",
            value: after.rssBytes / 2 ** 20,
            unit: "MiB",
            better: "lower",
            round,
          });
          const latency = lat.p99 ?? lat.max;
          if (latency !== undefined) {
            record({
              workload: w,
              system: p.name,
              metric: lat.p99 !== undefined ? "lateness p99" : "latency max",
              value: latency,
              unit: "s",
              better: "lower",
              round,
            });
          }
          record({
            workload: w,
            system: p.name,
            metric: `overdue > ${2 * fleet.intervalS} s at the end`,
            value: overdue,
            unit: `of ${services}`,
            better: "lower",
            round,
          });
          record({
            workload: w,
            system: p.name,
            metric: "slots skipped in the window",
            // Icinga 2 and Nagios 4 never skip a slot: an overdue check waits in their queue.
            value: skipped ?? 0,
            unit: `of ${Math.round((services * WINDOW_MS) / 1000 / fleet.intervalS)}`,
            better: "lower",
            round,
          });
        } finally {
          await r.daemon.stop();
        }
      });
    }
  }
}

/** Records what a sender achieved: results accepted per second and, when measured, request p99. */
function recordSent(
  workload: string,
  system: string,
  s: { ok: number; seconds: number; p99Ms?: number },
  round: number,
): void {
  record({
    workload,
    system,
    metric: "results/s",
    value: s.ok / s.seconds,
    unit: "/s",
    better: "higher",
    round,
  });
  if (s.p99Ms !== undefined)
    record({ workload, system, metric: "request p99", value: s.p99Ms, unit: "ms", better: "lower", round });
}

/** Passive results accepted per second at full speed, and p99 request latency. */
async function passive(services: number): Promise<void> {
  const fleet: FleetSpec = { services, servicesPerHost: 10, mode: "passive", intervalS: 60 };
  const w = `passive ${services}`;
  for (let round = 0; round < ROUNDS; round++) {
    for (const p of peers) {
      await withDir(async (dir) => {
        const r = await p.start(dir, fleet);
        try {
          await r.mark();
          if (p.name === "lookout") {
            for (const [form, batch, inFlight] of [
              ["one per request", 1, 50],
              ["batches of 1,000", 1000, 8],
            ] as const) {
              const s = await sendLookout(lookoutUrl(r), fleet, WINDOW_MS / (QUICK ? 3 : 1), inFlight, batch);
              recordSent(w, `lookout (${form})`, s, round);
            }
          } else if (p.name === "icinga2") {
            const s = await sendIcinga(icingaPort(dir), fleet, WINDOW_MS, 50);
            recordSent(w, "icinga2 (REST, one per request)", s, round);
          } else {
            await sendNagios(nagiosCommandFile(dir), fleet, WINDOW_MS);
            // What Nagios processed in the last minute, by its own count (status.dat every 5 s).
            await sleep(6_000);
            const processed = (await r.passiveSince?.()) ?? 0;
            record({
              workload: w,
              system: "nagios4 (command file)",
              metric: "results/s",
              value: processed / 60,
              unit: "/s",
              better: "higher",
              round,
            });
          }
        } finally {
          await r.daemon.stop();
        }
      });
    }
  }
}

/**
 * The same `lines` PROCESS_SERVICE_CHECK_RESULT lines into each system's external command file, as
 * fast as the pipe takes them: lines/s from the first write to the last applied (Lookout: the
 * projection shows the last line; Nagios: its perfdata file counts them all), and CPU per line.
 */
async function commandFile(services: number, lines: number): Promise<void> {
  const fleet: FleetSpec = { services, servicesPerHost: 10, mode: "passive", intervalS: 60 };
  const w = `command file ${lines} lines`;
  for (let round = 0; round < ROUNDS; round++) {
    for (const p of peers) {
      if (p.name === "icinga2") continue; // its command file is deprecated; the REST API is its form
      await withDir(async (dir) => {
        const r = await p.start(dir, fleet);
        try {
          let seconds: number;
          let cpuS: number;
          if (p.name === "lookout") {
            const m = await measureCommandFile(r, dir, fleet, lines);
            seconds = m.appliedS;
            cpuS = m.cpuS;
          } else {
            const cf = r.commandFile;
            if (cf === undefined) throw new Error(`${p.name} has no command file`);
            const before = cf.processed();
            const cpu0 = treeUsage(r.daemon.pid).cpuS;
            const start = performance.now();
            const writing = writeCommandLines(cf.path, fleet, lines, "bench end");
            // Nagios writes the file through stdio: up to one buffer (4 KiB, ~215 lines) may
            // wait in it, so the last 256 lines are not waited for (0.05 % of the figure).
            while (cf.processed() - before < lines - 256) {
              if (performance.now() - start > 600_000) throw new Error(`${p.name}: lines not processed`);
              await sleep(20);
            }
            seconds = (performance.now() - start) / 1000;
            await writing;
            cpuS = treeUsage(r.daemon.pid).cpuS - cpu0;
          }
          const base = { workload: w, system: p.name, round };
          record({
            ...base,
            metric: "lines/s applied",
            value: lines / seconds,
            unit: "/s",
            better: "higher",
          });
          record({
            ...base,
            metric: "CPU per line",
            value: (cpuS / lines) * 1e6,
            unit: "µs",
            better: "lower",
          });
        } finally {
          await r.daemon.stop();
        }
      });
    }
  }
}

/** How many services run the probe plugin in the reload workload, and how often. */
const PROBES = 200;
const PROBE_INTERVAL_S = 10;

/**
 * Reload: the fleet is running (every service passive but PROBES probes, which run a plugin that
 * logs each run every 10 s); the configuration gains one service whose plugin records when it
 * first runs; the daemon gets SIGHUP. Figures: the time from the signal to that first run (the
 * reload itself plus the wait for the new check's first slot: all three spread a new check's first
 * run within its 10 s interval), and how many probes were late or ran twice across the reload.
 */
async function reload(services: number): Promise<void> {
  for (let round = 0; round < ROUNDS; round++) {
    for (const p of peers) {
      await withDir(async (dir) => {
        const probeLog = join(dir, "probe-runs.log");
        const probePlugin = join(dir, "probe.sh");
        writeFileSync(
          probePlugin,
          `#!/bin/sh\nprintf '%s %s\\n' "$(/bin/date +%s.%N)" "$1" >> '${probeLog}'\necho OK\n`,
          {
            mode: 0o755,
          },
        );
        const fleet: FleetSpec = {
          services,
          servicesPerHost: 10,
          mode: "passive",
          intervalS: 60,
          probe: { services: Math.min(PROBES, services), plugin: probePlugin, intervalS: PROBE_INTERVAL_S },
        };
        const r = await p.start(dir, fleet);
        try {
          // Every probe has run at least once before the reload.
          await sleep((PROBE_INTERVAL_S + (QUICK ? 5 : 15)) * 1000);
          const mark = join(dir, "first-run");
          const plugin = join(dir, "new-check.sh");
          // Written whole and renamed, so that the mark is never seen half written.
          writeFileSync(
            plugin,
            `#!/bin/sh\n[ -e '${mark}' ] || { /bin/date +%s.%N > '${mark}.tmp' && mv '${mark}.tmp' '${mark}'; }\necho OK\n`,
            { mode: 0o755 },
          );
          p.addService(dir, fleet, plugin);
          const t0 = Date.now() / 1000;
          r.reload();
          let seconds: number | undefined;
          for (const end = Date.now() + 300_000; Date.now() < end; ) {
            if (existsSync(mark)) {
              seconds = Number(readFileSync(mark, "utf8").trim()) - t0;
              break;
            }
            await sleep(50);
          }
          const workload = `reload ${services}`;
          record({
            workload,
            system: p.name,
            metric: "change to new check run",
            value: seconds ?? Number.NaN,
            unit: "s",
            better: "lower",
            round,
          });
          // Two more intervals, so that every probe has run after the reload (or is counted late).
          await sleep(2 * PROBE_INTERVAL_S * 1000 + 3_000);
          const g = probeGaps(
            existsSync(probeLog) ? readFileSync(probeLog, "utf8") : "",
            t0,
            PROBE_INTERVAL_S,
          );
          const base = { workload, system: p.name, better: "lower" as const, round };
          console.log(`reload ${p.name}: ${g.probes} probes ran before and after the reload`);
          record({
            ...base,
            metric: "probes late across the reload",
            value: g.late,
            unit: `of ${g.probes}`,
          });
          record({
            ...base,
            metric: "probes run twice across the reload",
            value: g.twice,
            unit: `of ${g.probes}`,
          });
          record({ ...base, metric: "longest probe gap across the reload", value: g.maxGapS, unit: "s" });
        } finally {
          await r.daemon.stop();
        }
      });
    }
  }
}

async function main(): Promise<void> {
  install();
  const started = new Date();
  const versions = Object.fromEntries(peers.map((p) => [p.name, p.version()]));
  console.log(`peers: ${JSON.stringify(versions)} quick=${QUICK} scale=${SCALE}`);
  if (workloads.includes("validate")) for (const n of [size(10_000), size(100_000)]) await validation(n);
  if (workloads.includes("memory")) await memory(size(100_000));
  if (workloads.includes("passive")) await passive(size(50_000));
  if (workloads.includes("command-file")) await commandFile(size(50_000), size(500_000));
  if (workloads.includes("active")) await active(size(50_000));
  if (workloads.includes("reload")) await reload(size(100_000));
  const machine = `${cpus().length} × ${cpus()[0]?.model ?? "?"}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB, Node ${process.version}`;
  const md = renderTable(figures, { started, machine, versions, quick: QUICK, scale: SCALE });
  console.log(md);
  if (process.env.PEERS_WRITE !== "0") {
    const out = fileURLToPath(new URL("../../../docs/benchmarks.md", import.meta.url));
    // The table replaces the file's first section; the sections after it (`## …`) stay.
    const old = existsSync(out) ? readFileSync(out, "utf8") : "";
    const rest = old.indexOf("\n## ");
    writeFileSync(out, rest < 0 ? md : `${md.trimEnd()}\n${old.slice(rest)}`);
    console.log(`wrote ${out}`);
  }
}

main().then(
  () => process.exit(0),
  (e: unknown) => {
    console.error(e);
    process.exit(1);
  },
);
