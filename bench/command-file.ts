/**
 * `npm run bench:command-file`: the external command file of the real binary, fed as an NSCA relay
 * feeds it. Starts `lookout -command-file` on a passive fleet (50,000 services by default), writes
 * 500,000 PROCESS_SERVICE_CHECK_RESULT lines into its FIFO as fast as the pipe takes them (the lines
 * bench:peers writes into Nagios' command file), and prints the seconds until the last line left
 * the writer, until every line was durably enqueued (lookout_command_file_lines_total, read every
 * 25th poll), and until
 * the last was applied (the projection shows it): lines/s is from the first write to the last
 * applied. The server's CPU and RSS (from /proc) and the load average are printed beside them.
 * Then the same server takes API batches of 1,000 (Connect JSON, 8 in flight) for API_MS (15 s;
 * 0 skips it): the API's durable path measured in the same minutes, for the ratio.
 *
 *   node dist/bench/command-file.js [lines=500000] [services=50000] [rounds=1]
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { type FleetSpec, objects } from "./peers/fleet.js";
import { sleep, treeUsage } from "./peers/procs.js";
import { sendLookout, writeCommandLines } from "./peers/senders.js";
import { lookout, lookoutCommandFile, lookoutMetric, lookoutUrl } from "./peers/systems/lookout.js";
import type { Running } from "./peers/systems/peer.js";

const LINES = Number(process.argv[2] ?? "500000");
const SERVICES = Number(process.argv[3] ?? "50000");
const ROUNDS = Number(process.argv[4] ?? "1");
/** How long the API's batches run beside the command file (API_MS=0: not at all). */
const API_MS = Number(process.env.API_MS ?? "15000");

/** CPU seconds of each thread of a process, by thread name (threads of one name summed). */
export function threadCpu(pid: number): Map<string, number> {
  const out = new Map<string, number>();
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, "utf8");
      const name = tid === String(pid) ? "main" : stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")"));
      const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      out.set(name, (out.get(name) ?? 0) + (Number(f[11]) + Number(f[12])) / 100);
    } catch {
      // the thread ended
    }
  }
  return out;
}

/** The threads that took the most CPU between two threadCpu readings, in µs per `n`. */
export function threadShares(before: Map<string, number>, after: Map<string, number>, n: number): string {
  return [...after]
    .map(([name, s]) => [name, s - (before.get(name) ?? 0)] as const)
    .filter(([, s]) => s > 0)
    .sort((a, b) => b[1] - a[1])
    .slice(0, 4)
    .map(([name, s]) => `${name} ${((s / n) * 1e6).toFixed(1)}`)
    .join(", ");
}

/** What one run measured. */
export interface CommandFileRun {
  readonly lines: number;
  /** Seconds from the first write until the last line left the writer. */
  readonly writtenS: number;
  /** Until every line was durably enqueued (counted accepted). */
  readonly enqueuedS: number;
  /** Until the last line was applied. */
  readonly appliedS: number;
  /** Lines refused (they should be none). */
  readonly refused: number;
  /** The server's CPU seconds over the run, and its RSS at the end. */
  readonly cpuS: number;
  /** The CPU per line of the server's busiest threads (µs). */
  readonly threads: string;
  readonly rssMiB: number;
}

/**
 * Writes `lines` lines into a running Lookout's command file and waits (at most `timeoutMs`) until
 * the last is applied. The daemon must have been started by `lookout.start` in `dir`.
 */
export async function measureCommandFile(
  r: Running,
  dir: string,
  fleet: FleetSpec,
  lines: number,
  timeoutMs = 600_000,
): Promise<CommandFileRun> {
  const url = lookoutUrl(r);
  const counted = (result: string) =>
    lookoutMetric(r, `lookout_command_file_lines_total{result="${result}"}`);
  const accepted0 = await counted("accepted");
  const all0 = await lookoutMetric(r, "lookout_command_file_lines_total");
  const last = `bench end ${process.pid}-${Date.now()}`;
  const cpu0 = treeUsage(r.daemon.pid).cpuS;
  const threads0 = threadCpu(r.daemon.pid);
  const start = performance.now();
  // Nothing is asked of the server while the lines are written (the last cannot apply before it
  // is written, and every question costs the server CPU the figure would count).
  const writtenS = await writeCommandLines(lookoutCommandFile(dir), fleet, lines, last);
  // The last line's object: the fleet's services in turn, as commandLines writes them.
  const target = [...objects(fleet)][(lines - 1) % fleet.services] as { host: string; service: string };
  let enqueuedS: number | undefined;
  let polls = 0;
  let appliedS: number | undefined;
  const deadline = start + timeoutMs;
  while (appliedS === undefined) {
    if (performance.now() > deadline) throw new Error(`the last line was not applied in ${timeoutMs} ms`);
    const now = (performance.now() - start) / 1000;
    // A scrape costs the server milliseconds: every 25th poll only.
    if (enqueuedS === undefined && polls++ % 25 === 0 && (await counted("accepted")) - accepted0 >= lines)
      enqueuedS = now;
    const res = await fetch(`${url}/svc.v1.QueryService/ListStatus`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ host: target.host }),
    });
    const body = (await res.json()) as { statuses?: { service?: string; output?: string }[] };
    if (body.statuses?.some((s) => s.service === target.service && s.output === last)) appliedS = now;
    else await sleep(10);
  }
  const accepted = (await counted("accepted")) - accepted0;
  const usage = treeUsage(r.daemon.pid);
  return {
    lines,
    writtenS,
    enqueuedS: enqueuedS ?? appliedS,
    appliedS,
    refused: (await lookoutMetric(r, "lookout_command_file_lines_total")) - all0 - accepted,
    cpuS: usage.cpuS - cpu0,
    threads: threadShares(threads0, threadCpu(r.daemon.pid), lines),
    rssMiB: usage.rssBytes / 2 ** 20,
  };
}

async function main(): Promise<void> {
  const fleet: FleetSpec = { services: SERVICES, servicesPerHost: 10, mode: "passive", intervalS: 60 };
  for (let round = 0; round < ROUNDS; round++) {
    const dir = mkdtempSync(join(process.env.BENCH_DIR ?? tmpdir(), "lookout-command-file-"));
    const r = await lookout.start(dir, fleet);
    try {
      const load = loadavg()[0]?.toFixed(1);
      const m = await measureCommandFile(r, dir, fleet, LINES);
      const rate = Math.round(m.lines / m.appliedS);
      console.log(
        `command file: ${m.lines} lines into ${SERVICES} services: written ${m.writtenS.toFixed(2)} s, enqueued ${m.enqueuedS.toFixed(2)} s, applied ${m.appliedS.toFixed(2)} s = ${rate.toLocaleString("en")} lines/s; ` +
          `${m.refused} refused; server CPU ${m.cpuS.toFixed(1)} s (${((m.cpuS / m.lines) * 1e6).toFixed(1)} µs/line; by thread, µs/line: ${m.threads}), RSS ${m.rssMiB.toFixed(0)} MiB; load average ${load} at the start, ${loadavg()[0]?.toFixed(1)} at the end`,
      );
      console.log(`RESULT ${JSON.stringify({ ...m, linesPerS: rate, loadStart: Number(load) })}`);
      // The same durable path from the API, in the same minutes: Connect JSON batches of 1,000.
      const cpu0 = treeUsage(r.daemon.pid).cpuS;
      const t0 = threadCpu(r.daemon.pid);
      const api = await sendLookout(lookoutUrl(r), fleet, API_MS, 8, 1000);
      const cpu = treeUsage(r.daemon.pid).cpuS - cpu0;
      const shares = threadShares(t0, threadCpu(r.daemon.pid), Math.max(1, api.ok));
      console.log(
        `API batches of 1,000 (8 in flight), same server: ${Math.round(api.ok / api.seconds).toLocaleString("en")} results/s acknowledged over ${api.seconds.toFixed(1)} s; server CPU ${((cpu / Math.max(1, api.ok)) * 1e6).toFixed(1)} µs/result (by thread: ${shares}); load average ${loadavg()[0]?.toFixed(1)}`,
      );
    } finally {
      await r.daemon.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  }
}

if (process.argv[1]?.endsWith("command-file.js")) {
  main().then(
    () => process.exit(0),
    (e: unknown) => {
      console.error(e);
      process.exit(1);
    },
  );
}
