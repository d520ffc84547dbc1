/**
 * Plugin checks against the machine's own exec ceiling, in one run. Starts the real Lookout binary
 * on a fleet of `services` services that each run Debian's check_dummy every `interval` seconds
 * (hosts are passive), and alternates, round by round, between:
 *
 *   - the ceiling: `parallel` bash loops running check_dummy back to back for `seconds` (Lookout is
 *     stopped with SIGSTOP meanwhile, so it does not compete), and
 *   - Lookout: checks finished per second over `seconds`, from lookout_checks_total on /metrics,
 *     with Lookout's CPU (all its threads plus the spawn helper) per check.
 *
 * A serial ceiling (one loop) is measured once at the start. Each round prints Lookout's rate as a
 * share of the ceiling measured just before it, so a machine whose speed drifts (other tenants)
 * still gives comparable pairs; the summary quotes medians.
 *
 *   npm run build && node dist/bench/plugins-ceiling.js [--services 50000] [--interval 10]
 *     [--seconds 10] [--rounds 3] [--parallel 8] [--warmup 20]
 *
 * LOOKOUT_SPAWN_HELPER=0 in the environment measures Lookout spawning from its own process.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { availableParallelism, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const PLUGIN = "/usr/lib/nagios/plugins/check_dummy";
const TICK_MS = 10; // USER_HZ

function arg(name: string, dflt: number): number {
  const i = process.argv.indexOf(`--${name}`);
  return i < 0 ? dflt : Number(process.argv[i + 1]);
}
const services = arg("services", 50_000);
const interval = arg("interval", 10);
const seconds = arg("seconds", 10);
const rounds = arg("rounds", 3);
const parallel = arg("parallel", availableParallelism() * 4);
const warmup = arg("warmup", 20);
const perHost = 100;
const hosts = Math.ceil(services / perHost);

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length === 0 ? Number.NaN : ((s[(s.length - 1) >> 1] ?? 0) + (s[s.length >> 1] ?? 0)) / 2;
};

/** Runs `loops` bash loops of check_dummy for `secs` seconds; returns runs per second. */
async function ceiling(loops: number, secs: number): Promise<number> {
  const script = `end=$(( \${EPOCHREALTIME/./} + ${Math.round(secs * 1e6)} )); n=0
while (( \${EPOCHREALTIME/./} < end )); do ${PLUGIN} 0 ok >/dev/null; n=$((n+1)); done; echo $n`;
  const t0 = performance.now();
  const counts = await Promise.all(
    Array.from(
      { length: loops },
      () =>
        new Promise<number>((resolve, reject) => {
          const c = spawn("bash", ["-c", script], { stdio: ["ignore", "pipe", "inherit"] });
          let out = "";
          c.stdout.on("data", (d: Buffer) => {
            out += d.toString();
          });
          c.once("error", reject);
          c.once("exit", () => resolve(Number(out.trim())));
        }),
    ),
  );
  const took = (performance.now() - t0) / 1000;
  return counts.reduce((a, b) => a + b, 0) / took;
}

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer();
    s.listen(0, "127.0.0.1", () => {
      const a = s.address();
      const port = typeof a === "object" && a !== null ? a.port : 0;
      s.close(() => resolve(port));
    });
  });
}

/** CPU ms of a process: its own (all threads) and its reaped children's. */
function procCpu(pid: number): { self: number; children: number } {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    const n = (i: number): number => Number(f[i]) * TICK_MS;
    return { self: n(11) + n(12), children: n(13) + n(14) };
  } catch {
    return { self: 0, children: 0 };
  }
}

function childPids(pid: number): number[] {
  const out: number[] = [];
  for (const t of readdirSync(`/proc/${pid}/task`)) {
    try {
      const c = readFileSync(`/proc/${pid}/task/${t}/children`, "utf8").trim();
      if (c !== "") out.push(...c.split(" ").map(Number));
    } catch {
      // the thread ended
    }
  }
  return out;
}

function helperPid(pid: number): number | undefined {
  return childPids(pid).find((c) => {
    try {
      return readFileSync(`/proc/${c}/comm`, "utf8").startsWith("lookout-spawn");
    } catch {
      return false;
    }
  });
}

async function checksTotal(port: number): Promise<number> {
  const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
  let sum = 0;
  for (const line of text.split("\n")) {
    if (line.startsWith("lookout_checks_total{")) sum += Number(line.slice(line.lastIndexOf(" ") + 1));
  }
  return sum;
}

function gauge(text: string, name: string): number {
  const line = text.split("\n").find((l) => l.startsWith(`${name} `));
  return line === undefined ? Number.NaN : Number(line.slice(name.length + 1));
}

const dir = mkdtempSync(join(process.env.BENCH_DIR ?? tmpdir(), "lookout-ceiling-"));
const hostsDoc: Record<string, unknown> = {};
for (let h = 0, left = services; h < hosts; h++) {
  const svc: Record<string, unknown> = {};
  for (let s = 0; s < perHost && left > 0; s++, left--) {
    svc[`s${s}`] = {
      check: { type: "legacy", path: PLUGIN, args: ["0", "ok"], check_interval: `${interval}s` },
    };
  }
  hostsDoc[`h${h}`] = {
    address: "127.0.0.1",
    check: { type: "passive", freshness_threshold: "24h" },
    services: svc,
  };
}
// JSON is CUE: the fleet is written as one JSON document.
writeFileSync(join(dir, "fleet.cue"), JSON.stringify({ hosts: hostsDoc }));

const serial = await ceiling(1, seconds);
console.log(
  `machine: ${availableParallelism()} cpus, load ${loadavg()
    .map((x) => x.toFixed(1))
    .join(" ")}; serial ceiling (one bash loop): ${serial.toFixed(0)} check_dummy/s`,
);

const port = await freePort();
const bin = fileURLToPath(new URL("../../bin/lookout.js", import.meta.url));
const lookout: ChildProcess = spawn(
  process.execPath,
  [
    bin,
    "-listen",
    `127.0.0.1:${port}`,
    "-config",
    join(dir, "fleet.cue"),
    "-data-dir",
    join(dir, "data"),
    "-log-level",
    "warn",
  ],
  { stdio: ["ignore", "inherit", "inherit"] },
);
const pid = lookout.pid as number;
const t0 = performance.now();
for (;;) {
  try {
    const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
    if (gauge(text, "lookout_checks_scheduled") >= services) break;
  } catch {
    // not listening yet
  }
  if (lookout.exitCode !== null) throw new Error(`lookout exited ${lookout.exitCode}`);
  await sleep(500);
}
console.log(
  `lookout: ${services} services of check_dummy every ${interval}s scheduled after ${((performance.now() - t0) / 1000).toFixed(0)}s; warming up ${warmup}s (spawn: ${process.env.LOOKOUT_SPAWN_HELPER === "0" ? "in-process" : "helper if built"})`,
);
await sleep(warmup * 1000);
const helper = helperPid(pid);
console.log(`spawn helper: ${helper === undefined ? "none (in-process spawn)" : `pid ${helper}`}`);

const shares: number[] = [];
const rates: number[] = [];
const ceilings: number[] = [];
const cpuPerCheck: number[] = [];
for (let r = 1; r <= rounds; r++) {
  // The ceiling, with Lookout (and its helper) stopped so that they do not compete.
  process.kill(pid, "SIGSTOP");
  if (helper !== undefined) process.kill(helper, "SIGSTOP");
  const top = await ceiling(parallel, seconds);
  process.kill(pid, "SIGCONT");
  if (helper !== undefined) process.kill(helper, "SIGCONT");
  await sleep(5000); // let the runs stopped with Lookout finish
  const n0 = await checksTotal(port);
  const c0 = procCpu(pid);
  const h0 = helper === undefined ? { self: 0, children: 0 } : procCpu(helper);
  const w0 = performance.now();
  await sleep(seconds * 1000);
  const n1 = await checksTotal(port);
  const took = (performance.now() - w0) / 1000;
  const c1 = procCpu(pid);
  const h1 = helper === undefined ? { self: 0, children: 0 } : procCpu(helper);
  const checks = n1 - n0;
  const rate = checks / took;
  const lookoutCpuMs = c1.self - c0.self + (h1.self - h0.self);
  const pluginCpuMs = c1.children - c0.children + (h1.children - h0.children);
  const metrics = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
  shares.push(rate / top);
  rates.push(rate);
  ceilings.push(top);
  cpuPerCheck.push(lookoutCpuMs / Math.max(1, checks));
  console.log(
    [
      `round ${r}: ceiling (${parallel} loops) ${top.toFixed(0)}/s`,
      `lookout ${rate.toFixed(0)} checks/s = ${((rate / top) * 100).toFixed(0)} % of it`,
      `lookout cpu ${((lookoutCpuMs / (took * 1000)) * 100).toFixed(0)} % = ${(lookoutCpuMs / Math.max(1, checks)).toFixed(3)} ms/check`,
      `plugins ${(pluginCpuMs / Math.max(1, checks)).toFixed(3)} ms/check`,
      `in flight ${gauge(metrics, "lookout_checks_in_flight")}`,
    ].join("; "),
  );
}
console.log(
  `median: ceiling ${median(ceilings).toFixed(0)}/s, lookout ${median(rates).toFixed(0)} checks/s, share ${(median(shares) * 100).toFixed(0)} %, lookout cpu ${median(cpuPerCheck).toFixed(3)} ms/check; demand ${(services / interval).toFixed(0)} checks/s`,
);
lookout.kill("SIGTERM");
await new Promise((r) => lookout.once("exit", r));
rmSync(dir, { recursive: true, force: true });
