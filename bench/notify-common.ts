/**
 * Shared parts of the notification benchmarks: a passive fleet with a notification policy as a
 * CUE document, the real binary started as users start it (bin/lookout.js), results submitted over
 * Connect JSON, and the server's RSS from /proc.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

export const LAUNCHER = fileURLToPath(new URL("../../bin/lookout.js", import.meta.url));

/** hosts × services passive services, max_attempts 1, no flap detection, policy `p` to `contacts`. */
export function notifyFleet(hosts: number, services: number, contacts: Record<string, string>): string {
  const check = `{type: "passive", freshness_threshold: "24h", max_attempts: 1, flap: enabled: false}`;
  const out = ["contacts: {"];
  for (const [name, url] of Object.entries(contacts)) out.push(`\t${name}: {type: "webhook", url: "${url}"}`);
  out.push(
    "}",
    `notifications: p: levels: [{contacts: ${JSON.stringify(Object.keys(contacts))}}]`,
    "hosts: {",
  );
  for (let i = 0; i < hosts; i++) {
    out.push(
      `\t"h${i}": {`,
      `\t\taddress: "127.0.0.1"`,
      `\t\tcheck: {type: "passive", freshness_threshold: "24h"}`,
      "\t\tservices: {",
    );
    for (let j = 0; j < services; j++) out.push(`\t\t\t"s${j}": {check: ${check}, notification: "p"}`);
    out.push("\t\t}", "\t}");
  }
  out.push("}", "");
  return out.join("\n");
}

export interface BenchServer {
  readonly url: string;
  readonly pid: number;
  readonly child: ChildProcess;
  log(): string;
  stop(): Promise<void>;
}

/** Starts bin/lookout.js on a free loopback port and waits for "listening". */
export async function startBenchServer(args: readonly string[], timeoutMs = 600_000): Promise<BenchServer> {
  // BENCH_NODE_ARGS (e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof"): node itself is started with
  // them and with the launcher's own settings (its `env -S` line), to profile the server.
  const extra = (process.env.BENCH_NODE_ARGS ?? "").split(" ").filter((a) => a !== "");
  const child =
    extra.length === 0
      ? spawn(LAUNCHER, ["-listen", "127.0.0.1:0", ...args], {
          stdio: ["ignore", "ignore", "pipe"],
          env: process.env,
        })
      : spawn(
          process.execPath,
          [
            "--max-semi-space-size=1",
            "--single-threaded-gc",
            ...extra,
            LAUNCHER,
            "-listen",
            "127.0.0.1:0",
            ...args,
          ],
          { stdio: ["ignore", "ignore", "pipe"], env: { ...process.env, MALLOC_ARENA_MAX: "2" } },
        );
  let log = "";
  child.stderr?.setEncoding("utf8");
  const exited = new Promise<void>((r) => child.once("exit", () => r()));
  const port = await new Promise<number>((resolve, reject) => {
    const t = setTimeout(() => reject(new Error(`server did not start:\n${log}`)), timeoutMs);
    child.stderr?.on("data", (c: string) => {
      log += c;
      if (log.length > 1_000_000) log = log.slice(-100_000);
      const m = /"msg":"listening","address":"[^"]*:(\d+)"/.exec(log);
      if (m) {
        clearTimeout(t);
        resolve(Number(m[1]));
      }
    });
    void exited.then(() => reject(new Error(`server exited:\n${log}`)));
  });
  return {
    url: `http://127.0.0.1:${port}`,
    pid: child.pid as number,
    child,
    log: () => log,
    async stop() {
      child.kill("SIGTERM");
      const t = setTimeout(() => child.kill("SIGKILL"), 20_000);
      await exited;
      clearTimeout(t);
    },
  };
}

/** VmRSS and VmHWM (peak) of a process, in MiB. */
export function rssOf(pid: number): { rss: number; peak: number } {
  const s = readFileSync(`/proc/${pid}/status`, "utf8");
  const kb = (k: string) => Number(new RegExp(`^${k}:\\s+(\\d+)`, "m").exec(s)?.[1] ?? 0);
  return { rss: kb("VmRSS") / 1024, peak: kb("VmHWM") / 1024 };
}

/** Submits results over Connect JSON; throws on a non-200 answer. */
export async function submit(
  url: string,
  results: { host: string; service: string; exitStatus: number; output: string }[],
): Promise<void> {
  const res = await fetch(`${url}/svc.v1.CommandService/ProcessCheckResults`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ results }),
  });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`ProcessCheckResults: ${res.status} ${text}`);
}

export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] as number;
}
