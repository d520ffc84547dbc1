/**
 * What the ingestion and ListStatus benchmarks share: a generator of ProcessCheckResult batches
 * that walks the synthetic fleet of src/core/fleet-config.ts round-robin, and the harness server
 * process (src/api/core-test-server.ts) that serves the API over such a fleet.
 */
import { type ChildProcessByStdio, spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import type { Readable } from "node:stream";
import { fileURLToPath } from "node:url";
import { fleetHost, fleetService } from "../src/core/fleet-config.js";
import type { CommandInput } from "../src/core/validate.js";
import type { ExitStatus } from "../src/model/state.js";
import { describeSettings, launcherSettings } from "./launcher-settings.js";

export interface BatchOptions {
  readonly hosts: number;
  readonly servicesPerHost: number;
  readonly batch: number;
  /** Every `problemEvery`-th result carries `problemStatus` with `problemOutput`; the rest are OK. */
  readonly problemEvery: number;
  readonly problemStatus: ExitStatus;
  readonly problemOutput: string;
  /** When set, results are active ones run by this zone worker (their records carry checked_by). */
  readonly executor?: string;
}

/** Returns a function that makes the next batch, continuing where the previous one stopped. */
export function createBatchMaker(o: BatchOptions): () => CommandInput[] {
  const total = o.hosts * o.servicesPerHost;
  let next = 0;
  return () => {
    const out: CommandInput[] = [];
    const now = Date.now();
    for (let k = 0; k < o.batch; k++, next++) {
      const i = next % total;
      const status = next % o.problemEvery === 0 ? o.problemStatus : 0;
      out.push({
        type: "ProcessCheckResult",
        result: {
          host: fleetHost(Math.floor(i / o.servicesPerHost)),
          service: fleetService(i % o.servicesPerHost),
          exitStatus: status,
          output: status === 0 ? "OK - all good" : o.problemOutput,
          longOutput: "",
          perfdata: [{ label: "time", value: k / 1000, uom: "s", warn: "1", crit: "2" }],
          checkedAt: now,
          durationMs: 0,
          ...(o.executor === undefined
            ? { source: "passive" as const }
            : { source: "active" as const, executor: o.executor }),
        },
      });
    }
    return out;
  };
}

/** What the harness server reports on SIGUSR2 (bytes and CPU milliseconds). */
export interface HarnessStats {
  readonly rss: number;
  readonly readerHeapUsed: number;
  readonly writerHeapUsed: number;
  readonly readerCpuMs?: number;
  readonly writerCpuMs?: number;
  /** The writer's decoding thread's CPU (WriterOptions.decodeAhead). */
  readonly decoderCpuMs?: number;
  /** The reader thread's event-loop delay since the previous stats (ms). */
  readonly loopDelayP50Ms: number;
  readonly loopDelayP99Ms: number;
  readonly loopDelayMaxMs: number;
}

/** The harness server process (src/api/core-test-server.ts) over a synthetic fleet. */
export interface HarnessServer {
  readonly server: ChildProcessByStdio<null, Readable, null>;
  readonly port: number;
  /** The launcher's settings it was started with ("none": BENCH_SERVER_LAUNCHER=0). */
  readonly settings: string;
  /** RSS, then live heaps (it runs with --expose-gc) and per-thread CPU time. */
  stats(): Promise<HarnessStats>;
  /** The process's CPU seconds (all threads) so far. */
  cpuSeconds(): number;
  stop(): Promise<void>;
}

/**
 * Starts the harness server over a fleet in `dir` and resolves once it prints its port. It runs
 * with the settings of bin/lookout.js, the launcher users run (BENCH_SERVER_LAUNCHER=0: without
 * them); node flags for the server process (e.g. `--cpu-prof`) can be added in
 * BENCH_SERVER_NODE_ARGS.
 */
export async function startHarnessServer(
  dir: string,
  hosts: number,
  servicesPerHost: number,
): Promise<HarnessServer> {
  const script = fileURLToPath(new URL("../src/api/core-test-server.js", import.meta.url));
  const launcher = process.env.BENCH_SERVER_LAUNCHER === "0" ? { env: {}, nodeArgs: [] } : launcherSettings();
  const nodeArgs = (process.env.BENCH_SERVER_NODE_ARGS ?? "").split(" ").filter((a) => a !== "");
  const server = spawn(
    process.execPath,
    [...launcher.nodeArgs, "--expose-gc", ...nodeArgs, script, dir, String(hosts), String(servicesPerHost)],
    { stdio: ["ignore", "pipe", "inherit"], env: { ...process.env, ...launcher.env } },
  );
  let out = "";
  const waiting: ((s: HarnessStats) => void)[] = [];
  const port = await new Promise<number>((resolve, reject) => {
    server.stdout.on("data", (d: Buffer) => {
      out += d.toString();
      for (let nl = out.indexOf("\n"); nl >= 0; nl = out.indexOf("\n")) {
        const line = out.slice(0, nl);
        out = out.slice(nl + 1);
        const m = /^listening (\d+)/.exec(line);
        if (m) resolve(Number(m[1]));
        if (line.startsWith("stats ")) waiting.shift()?.(JSON.parse(line.slice(6)) as HarnessStats);
      }
    });
    server.once("exit", (code) => reject(new Error(`server exited with ${code}`)));
  });
  return {
    server,
    port,
    settings: describeSettings(launcher),
    stats() {
      return new Promise((resolve) => {
        waiting.push(resolve);
        server.kill("SIGUSR2");
      });
    },
    cpuSeconds() {
      const f = readFileSync(`/proc/${server.pid}/stat`, "utf8").split(") ")[1]?.split(" ") ?? [];
      return (Number(f[11]) + Number(f[12])) / 100;
    },
    async stop() {
      server.kill("SIGTERM");
      await new Promise((r) => server.once("exit", r));
    },
  };
}
