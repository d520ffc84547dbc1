/**
 * Micro-benchmark of the state engine: applies 1,000,000 ProcessCheckResult commands over 100,000
 * services (10,000 hosts x 10) and reports results/s and memory. About 5% of results are
 * problems, so soft/hard transitions, flap updates and StateChange events are part of the mix.
 *
 *   npx tsc -p . && node --expose-gc dist/bench/engine-apply.js [results] [hosts] [servicesPerHost]
 */
import { createEngine } from "../src/engine/index.js";
import type { ProcessCheckResultCommand } from "../src/model/commands.js";
import {
  type Config,
  DEFAULT_SCHEDULE,
  EMPTY_CONFIG,
  type HostConfig,
  type ServiceConfig,
} from "../src/model/config.js";
import type { ExitStatus } from "../src/model/state.js";

const RESULTS = Number(process.argv[2] ?? 1_000_000);
const HOSTS = Number(process.argv[3] ?? 10_000);
const PER_HOST = Number(process.argv[4] ?? 10);

const gc = (globalThis as { gc?: () => void }).gc;
const mib = (n: number): string => `${(n / 1024 / 1024).toFixed(1)} MiB`;
function settle(): NodeJS.MemoryUsage {
  for (let i = 0; i < 3; i++) gc?.();
  return process.memoryUsage();
}

function buildConfig(): Config {
  const hosts = new Map<string, HostConfig>();
  for (let h = 0; h < HOSTS; h++) {
    const name = `host-${h}`;
    const services = new Map<string, ServiceConfig>();
    for (let s = 0; s < PER_HOST; s++) {
      services.set(`svc-${s}`, {
        host: name,
        name: `svc-${s}`,
        vars: {},
        check: { type: "http", url: `http://${name}/${s}`, ...DEFAULT_SCHEDULE },
        notification: "",
        zone: "default",
        labels: { team: `t${s}` },
      });
    }
    hosts.set(name, {
      name,
      address: `10.0.${h >> 8}.${h & 255}`,
      parents: [],
      vars: {},
      check: { type: "icmp", host: name, ...DEFAULT_SCHEDULE },
      services,
      notification: "",
      zone: "default",
      labels: {},
    });
  }
  return { ...EMPTY_CONFIG, hosts };
}

const base = settle();
const config = buildConfig();
const afterConfig = settle();
const engine = createEngine();
const t0 = Date.UTC(2026, 0, 1);
engine.applyConfig(config, t0);
const afterEngine = settle();
const services = HOSTS * PER_HOST;

// A cheap deterministic PRNG so runs are comparable.
let seed = 12345;
const rand = (): number => {
  seed = (seed * 1103515245 + 12345) & 0x7fffffff;
  return seed / 0x7fffffff;
};

let events = 0;
const start = process.hrtime.bigint();
const cpuStart = process.cpuUsage();
for (let i = 0; i < RESULTS; i++) {
  const svc = i % services;
  const r = rand();
  const exitStatus: ExitStatus = r < 0.95 ? 0 : r < 0.97 ? 1 : r < 0.99 ? 2 : 3;
  const at = t0 + 1000 + i;
  const cmd: ProcessCheckResultCommand = {
    type: "ProcessCheckResult",
    at,
    result: {
      host: `host-${Math.floor(svc / PER_HOST)}`,
      service: `svc-${svc % PER_HOST}`,
      checkedAt: at,
      durationMs: 12,
      source: "active",
      exitStatus,
      output: exitStatus === 0 ? "HTTP OK: 200" : "HTTP CRITICAL: 503",
      longOutput: "",
      perfdata: [{ label: "time", value: 0.012, uom: "s", warn: "", crit: "" }],
    },
  };
  events += engine.apply(cmd).length;
}
const ns = Number(process.hrtime.bigint() - start);
// CPU time (user + system) of this thread's process: steadier than wall time on a shared machine.
const cpu = process.cpuUsage(cpuStart);
const cpuSec = (cpu.user + cpu.system) / 1e6;
const end = settle();

const perSec = RESULTS / (ns / 1e9);
const objects = services + HOSTS;
const configHeap = afterConfig.heapUsed - base.heapUsed;
const engineHeap = end.heapUsed - afterConfig.heapUsed;
// Reading the engine and the config here keeps them alive through the measurement above: V8 frees
// locals that are dead, module-level ones included.
const sample = `${engine.status("host-0!svc-0")?.state ?? "?"}/${config.hosts.size} hosts`;
const lines = [
  `engine-apply: ${RESULTS.toLocaleString("en")} results over ${services.toLocaleString("en")} services (${sample})`,
  `  ${Math.round(perSec).toLocaleString("en")} results/s wall, ${Math.round(RESULTS / cpuSec).toLocaleString("en")} results per CPU second (${((cpuSec * 1e6) / RESULTS).toFixed(2)} us/result), ${events.toLocaleString("en")} events`,
  `  rss ${mib(end.rss)} (at start ${mib(base.rss)}); heap: typed config ${mib(configHeap)}, engine ${mib(engineHeap)} after the run (${mib(afterEngine.heapUsed - afterConfig.heapUsed)} before)`,
  `  engine state: ${(engineHeap / objects).toFixed(0)} bytes per object${gc === undefined ? " (run with --expose-gc for settled figures)" : ""}`,
];
console.log(lines.join("\n"));
