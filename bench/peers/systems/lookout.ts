import { execFileSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { type FleetSpec, hostName, lookoutFleet } from "../fleet.js";
import { sleep, startDaemon } from "../procs.js";
import type { Peer, Running } from "./peer.js";

/** The launcher users run (its #! line sets the start-time memory settings). */
export const LOOKOUT_BIN = fileURLToPath(new URL("../../../../bin/lookout.js", import.meta.url));

async function metric(url: string, name: string): Promise<number> {
  const text = await (await fetch(`${url}/metrics`)).text();
  let sum = 0;
  for (const line of text.split("\n"))
    if (line.startsWith(name)) sum += Number(line.slice(line.lastIndexOf(" ") + 1));
  return sum;
}

/** p99 of a Prometheus histogram from its cumulative buckets (upper bound of the bucket). */
async function histogramP99(url: string, name: string): Promise<number | undefined> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const buckets: [number, number][] = [];
  for (const line of text.split("\n")) {
    const m = new RegExp(`^${name}_bucket\\{.*le="([^"]+)".*\\} (\\S+)$`).exec(line);
    if (m !== null) buckets.push([m[1] === "+Inf" ? Number.POSITIVE_INFINITY : Number(m[1]), Number(m[2])]);
  }
  const total = buckets.find((b) => b[0] === Number.POSITIVE_INFINITY)?.[1] ?? 0;
  if (total === 0) return undefined;
  return buckets.sort((a, b) => a[0] - b[0]).find((b) => b[1] >= total * 0.99)?.[0];
}

/** Active services whose last check is older than `olderThanS` s, paging through ListStatus. */
async function overdueServices(url: string, olderThanS: number): Promise<number> {
  const cutoff = Date.now() - olderThanS * 1000;
  let n = 0;
  let token = "";
  do {
    const r = await fetch(`${url}/svc.v1.QueryService/ListStatus`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ pageSize: 1000, pageToken: token }),
    });
    if (!r.ok) throw new Error(`ListStatus: ${r.status} ${await r.text()}`);
    const page = (await r.json()) as {
      statuses?: { service?: string; checkType?: string; lastCheck?: string }[];
      nextPageToken?: string;
    };
    for (const s of page.statuses ?? []) {
      if (s.service === undefined || s.checkType === "passive") continue;
      if (s.lastCheck === undefined || Date.parse(s.lastCheck) < cutoff) n++;
    }
    token = page.nextPageToken ?? "";
  } while (token !== "");
  return n;
}

let nextPort = 18_080;

export const lookout: Peer = {
  name: "lookout",
  version() {
    return execFileSync("git", ["rev-parse", "--short", "HEAD"], { encoding: "utf8" }).trim();
  },
  addService(dir, fleet, plugin) {
    const extra = `hosts: ${hostName(0)}: services: new: check: {type: "legacy", path: "${plugin}", check_interval: "10s"}`;
    writeFileSync(join(dir, "lookout.cue"), lookoutFleet(fleet, extra));
  },
  validate(dir, fleet: FleetSpec) {
    const file = join(dir, "lookout.cue");
    writeFileSync(file, lookoutFleet(fleet));
    return { cmd: process.execPath, args: [LOOKOUT_BIN, "validate", file] };
  },
  async start(dir, fleet): Promise<Running> {
    const file = join(dir, "lookout.cue");
    writeFileSync(file, lookoutFleet(fleet));
    mkdirSync(join(dir, "data"), { recursive: true });
    const port = nextPort++;
    const url = `http://127.0.0.1:${port}`;
    // LOOKOUT_NODE_ARGS (e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`): node runs the launcher with them.
    const nodeArgs = process.env.LOOKOUT_NODE_ARGS?.split(" ").filter((a) => a !== "");
    const [cmd, first] =
      nodeArgs === undefined ? [LOOKOUT_BIN, []] : [process.execPath, [...nodeArgs, LOOKOUT_BIN]];
    const daemon = startDaemon(cmd, [
      ...first,
      "-listen",
      `127.0.0.1:${port}`,
      "-config",
      file,
      "-data-dir",
      join(dir, "data"),
      "-command-file",
      lookoutCommandFile(dir),
      "-log-level",
      "warn",
    ]);
    for (let i = 0; ; i++) {
      try {
        const r = await fetch(`${url}/svc.v1.QueryService/GetServerInfo`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: "{}",
        });
        if (r.ok) break;
      } catch {
        // not yet listening
      }
      if (i > 1200 || daemon.child.exitCode !== null)
        throw new Error(`lookout did not start: ${daemon.output()}`);
      await sleep(100);
    }
    let mark = 0;
    let skippedMark = 0;
    return {
      daemon,
      reload: () => process.kill(daemon.pid, "SIGHUP"),
      async mark() {
        mark = await metric(url, "lookout_checks_total");
        skippedMark = await metric(url, "lookout_schedule_skipped_total");
      },
      async skippedSince() {
        return (await metric(url, "lookout_schedule_skipped_total")) - skippedMark;
      },
      async overdue(olderThanS) {
        return overdueServices(url, olderThanS);
      },
      async checksSince() {
        return (await metric(url, "lookout_checks_total")) - mark;
      },
      async latency() {
        const p99 = await histogramP99(url, "lookout_schedule_lateness_seconds");
        return p99 === undefined ? {} : { p99 };
      },
    };
  },
};

/** The Connect JSON endpoint of a running Lookout started by `lookout.start` (for passive senders). */
export function lookoutUrl(r: Running): string {
  const port = /-listen 127\.0\.0\.1:(\d+)/.exec(r.daemon.child.spawnargs.join(" "))?.[1];
  return `http://127.0.0.1:${port}`;
}

/** The external command file of a Lookout run in `dir` (a FIFO the daemon creates). */
export function lookoutCommandFile(dir: string): string {
  return join(dir, "lookout.cmd");
}

/** The sum of a metric's series (every label set) a running Lookout exposes now. */
export function lookoutMetric(r: Running, name: string): Promise<number> {
  return metric(lookoutUrl(r), name);
}
