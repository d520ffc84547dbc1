/**
 * The peers benchmark's processes: every child it starts is tracked and stopped by PID (its whole
 * process group) when the run ends, fails or is interrupted (Ctrl-C); nothing is left running.
 */
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";

const live = new Set<ChildProcess>();

function killAll(): void {
  for (const c of live) {
    if (c.pid !== undefined) {
      try {
        process.kill(-c.pid, "SIGKILL");
      } catch {
        // already gone
      }
    }
  }
  live.clear();
}

process.on("exit", killAll);
for (const sig of ["SIGINT", "SIGTERM"] as const) {
  process.on(sig, () => {
    killAll();
    process.exit(130);
  });
}

/** A daemon started in its own process group. */
export interface Daemon {
  readonly pid: number;
  readonly child: ChildProcess;
  /** Everything it wrote to stdout and stderr so far (last 64 KiB). */
  output(): string;
  /** SIGTERM to the group, SIGKILL after `graceMs`; resolves when it exited. */
  stop(graceMs?: number): Promise<void>;
}

/** Starts `cmd args` in a new process group, tracked for cleanup. */
export function startDaemon(
  cmd: string,
  args: readonly string[],
  env?: NodeJS.ProcessEnv,
  cwd?: string,
): Daemon {
  const child = spawn(cmd, args, {
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
    env: env ?? process.env,
    cwd,
  });
  live.add(child);
  let out = "";
  const keep = (b: Buffer) => {
    out = (out + b.toString()).slice(-65536);
  };
  child.stdout?.on("data", keep);
  child.stderr?.on("data", keep);
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  child.once("exit", () => live.delete(child));
  if (child.pid === undefined) throw new Error(`cannot start ${cmd}`);
  const pid = child.pid;
  return {
    pid,
    child,
    output: () => out,
    async stop(graceMs = 10_000) {
      if (child.exitCode !== null || child.signalCode !== null) return;
      try {
        process.kill(-pid, "SIGTERM");
      } catch {
        return;
      }
      const t = setTimeout(() => {
        try {
          process.kill(-pid, "SIGKILL");
        } catch {
          // gone
        }
      }, graceMs);
      await exited;
      clearTimeout(t);
    },
  };
}

/** Runs a command to completion under GNU time: wall seconds, peak RSS (largest process, MiB), exit code. */
export function timed(
  cmd: string,
  args: readonly string[],
  env?: NodeJS.ProcessEnv,
): { wallS: number; peakRssMiB: number; code: number; output: string } {
  const r = spawnSync("/usr/bin/time", ["-f", "TIME %e %M", cmd, ...args], {
    encoding: "utf8",
    env: env ?? process.env,
    maxBuffer: 256 << 20,
  });
  const m = /TIME ([\d.]+) (\d+)\s*$/.exec(r.stderr);
  if (m === null) throw new Error(`no timing from ${cmd}: ${r.stderr.slice(-500)}`);
  return {
    wallS: Number(m[1]),
    peakRssMiB: Number(m[2]) / 1024,
    code: r.status ?? -1,
    output: `${r.stdout}${r.stderr}`.slice(-4000),
  };
}

/** The pids of a process and all its descendants. */
export function processTree(root: number): number[] {
  const children = new Map<number, number[]>();
  for (const e of readdirSync("/proc")) {
    if (!/^\d+$/.test(e)) continue;
    try {
      const stat = readFileSync(`/proc/${e}/stat`, "utf8");
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      const list = children.get(ppid) ?? [];
      list.push(Number(e));
      children.set(ppid, list);
    } catch {
      // exited meanwhile
    }
  }
  const out: number[] = [];
  const walk = (p: number) => {
    out.push(p);
    for (const c of children.get(p) ?? []) walk(c);
  };
  walk(root);
  return out;
}

/** RSS (bytes) and CPU seconds (user + system) of a process tree now; plugins that exited are not counted. */
export function treeUsage(root: number): { rssBytes: number; cpuS: number } {
  const tick = 100; // USER_HZ on Linux
  let rss = 0;
  let cpu = 0;
  for (const pid of processTree(root)) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
      const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      cpu += (Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14])) / tick;
      const status = readFileSync(`/proc/${pid}/status`, "utf8");
      const m = /VmRSS:\s+(\d+) kB/.exec(status);
      if (m !== null) rss += Number(m[1]) * 1024;
    } catch {
      // exited meanwhile
    }
  }
  return { rssBytes: rss, cpuS: cpu };
}

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
