/**
 * A reload's change to the new check's first run, on the real binary, without the peers:
 *
 *   node dist/bench/reload-first-run.js [services=100000] [rounds=1]
 *
 * The `reload` workload of bench/peers (docs/benchmarks.md) for Lookout alone, to iterate on: a
 * fleet of passive services (10 per host) of which 200 probes run a plugin every 10 s that logs
 * each run; once every probe has run, the configuration gains one service whose plugin records its
 * first run, and the daemon gets SIGHUP. Prints the time from the signal to that first run, the
 * reload's own figures from the server's log (how long reading and evaluating took, its longest
 * event-loop turn), and how many probes ran late or twice across the reload.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { type FleetSpec, hostName, lookoutFleet } from "./peers/fleet.js";
import { probeGaps } from "./peers/probe-gaps.js";
import { sleep, startDaemon } from "./peers/procs.js";

const SERVICES = Number(process.argv[2] ?? 100_000);
const ROUNDS = Number(process.argv[3] ?? 1);
const PROBES = 200;
const PROBE_INTERVAL_S = 10;
const LOOKOUT_BIN = fileURLToPath(new URL("../../bin/lookout.js", import.meta.url));
const load = () =>
  loadavg()
    .map((x) => x.toFixed(1))
    .join(" ");

for (let round = 0; round < ROUNDS; round++) {
  const dir = mkdtempSync(join(tmpdir(), "lookout-bench-reload-"));
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
    services: SERVICES,
    servicesPerHost: 10,
    mode: "passive",
    intervalS: 60,
    probe: { services: Math.min(PROBES, SERVICES), plugin: probePlugin, intervalS: PROBE_INTERVAL_S },
  };
  const file = join(dir, "lookout.cue");
  writeFileSync(file, lookoutFleet(fleet));
  const started = Date.now();
  const daemon = startDaemon(LOOKOUT_BIN, [
    "-listen",
    "127.0.0.1:0",
    "-config",
    file,
    "-data-dir",
    join(dir, "data"),
  ]);
  try {
    while (!/"msg":"listening"/.test(daemon.output())) {
      if (daemon.child.exitCode !== null || Date.now() - started > 600_000)
        throw new Error(`lookout did not start:\n${daemon.output()}`);
      await sleep(100);
    }
    const startS = (Date.now() - started) / 1000;
    // Every probe has run at least once before the reload.
    await sleep((PROBE_INTERVAL_S + 5) * 1000);
    const mark = join(dir, "first-run");
    const plugin = join(dir, "new-check.sh");
    writeFileSync(
      plugin,
      `#!/bin/sh\n[ -e '${mark}' ] || { /bin/date +%s.%N > '${mark}.tmp' && mv '${mark}.tmp' '${mark}'; }\necho OK\n`,
      { mode: 0o755 },
    );
    writeFileSync(
      file,
      lookoutFleet(
        fleet,
        `hosts: ${hostName(0)}: services: new: check: {type: "legacy", path: "${plugin}", check_interval: "10s"}`,
      ),
    );
    const loadBefore = load();
    const t0 = Date.now() / 1000;
    process.kill(daemon.pid, "SIGHUP");
    let seconds = Number.NaN;
    // When the server's log says the reload is applied (every part of it has the new config).
    let appliedS = Number.NaN;
    for (const end = Date.now() + 300_000; Date.now() < end; ) {
      if (Number.isNaN(appliedS) && daemon.output().includes('"msg":"config reloaded"'))
        appliedS = Date.now() / 1000 - t0;
      if (existsSync(mark)) {
        seconds = Number(readFileSync(mark, "utf8").trim()) - t0;
        break;
      }
      await sleep(20);
    }
    const reloaded = /"msg":"config reloaded"[^\n]*/.exec(daemon.output())?.[0] ?? "";
    const field = (k: string) => new RegExp(`"${k}":(\\d+)`).exec(reloaded)?.[1] ?? "?";
    // Two more intervals, so that every probe has run after the reload (or is counted late).
    await sleep(2 * PROBE_INTERVAL_S * 1000 + 3_000);
    const g = probeGaps(existsSync(probeLog) ? readFileSync(probeLog, "utf8") : "", t0, PROBE_INTERVAL_S);
    console.log(
      `reload ${SERVICES}: SIGHUP → new check's first run ${seconds.toFixed(2)} s (reload logged as applied at ${appliedS.toFixed(2)} s, or later); reading and evaluating ${field("loadMs")} ms, longest turn ${field("longestTaskMs")} ms; started in ${startS.toFixed(1)} s`,
    );
    console.log(
      `  probes across the reload: ${g.late} late, ${g.twice} twice of ${g.probes} (longest gap ${g.maxGapS.toFixed(1)} s); load average ${loadBefore} → ${load()} on ${cpus().length} cores`,
    );
    // BENCH_LOG=1: the server's log lines about configs and reloads, to see where a reload's time went.
    if (process.env.BENCH_LOG === "1")
      for (const line of daemon.output().split("\n"))
        if (/config|reload|load/i.test(line)) console.log(line.slice(0, 400));
  } finally {
    await daemon.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}
