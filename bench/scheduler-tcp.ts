/**
 * Benchmark: the scheduler with the real tcp checker on the real clock. N `tcp` services (100,000 by
 * default) connect to loopback listeners spread over several ports of 127.0.0.1, served by a child
 * process so that its accept work does not count against the scheduler's CPU. Results go to a
 * counting sink. For each interval (60 s, 30 s, 15 s, …) it runs a bounded number of intervals and
 * prints the sustained checks/s, p50/p99/max schedule lateness, CPU and RSS; it stops pushing the
 * interval down once a level is not held (p99 lateness >= 1 s, or fewer checks than scheduled).
 *
 *   npx tsc -p . && node dist/bench/scheduler-tcp.js [--services 100000] [--intervals 60,30,15,10]
 *     [--rounds 2] [--ports 16] [--concurrency 5000]
 *
 * File descriptors: runs in flight are bounded by --concurrency, so the process needs about that
 * many descriptors; when `ulimit -n` is lower the script re-executes itself under a raised limit.
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { once } from "node:events";
import { loadavg } from "node:os";
import { createTcpChecker } from "../src/checks/tcp/index.js";
import { parseArgs, runLevels } from "./scheduler-level.js";

/** Re-executes this script under `ulimit -n` raised to `need` when the current limit is lower. */
function ensureFileLimit(need: number): void {
  const have = Number(execFileSync("sh", ["-c", "ulimit -n"]).toString().trim());
  if (have >= need || process.env.LOOKOUT_BENCH_REEXEC === "1") return;
  const cmd = [
    "ulimit -n",
    String(need),
    "&&",
    "exec",
    ...[process.execPath, ...process.argv.slice(1)].map(quote),
  ];
  const r = spawn("sh", ["-c", cmd.join(" ")], {
    stdio: "inherit",
    env: { ...process.env, LOOKOUT_BENCH_REEXEC: "1" },
  });
  r.on("exit", (code) => process.exit(code ?? 1));
  throw new ReexecError();
}
class ReexecError extends Error {
  override name = "ReexecError";
}
const quote = (s: string) => `'${s.replaceAll("'", `'\\''`)}'`;

/** The listeners' program: N servers on 127.0.0.1 that accept and close at once; prints the ports. */
const LISTENER_SOURCE = `
const net = require("node:net");
const n = Number(process.argv[1]);
const ports = [];
let up = 0;
for (let i = 0; i < n; i++) {
  const s = net.createServer((c) => { c.on("error", () => {}); c.destroy(); });
  s.listen({ host: "127.0.0.1", port: 0, backlog: 4096 }, () => {
    ports.push(s.address().port);
    if (++up === n) process.stdout.write(ports.join(",") + "\\n");
  });
}
`;

async function startListeners(n: number): Promise<{ child: ChildProcess; ports: number[] }> {
  const child = spawn(process.execPath, ["-e", LISTENER_SOURCE, String(n)], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  const out = child.stdout!;
  let text = "";
  for await (const chunk of out) {
    text += String(chunk);
    if (text.includes("\n")) break;
  }
  return { child, ports: text.trim().split(",").map(Number) };
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.pid === undefined) return;
  const exited = once(child, "exit");
  process.kill(child.pid, "SIGKILL");
  await exited;
}

async function main(): Promise<void> {
  const o = parseArgs(process.argv.slice(2));
  try {
    ensureFileLimit(o.concurrency + 1_024);
  } catch (err) {
    if (err instanceof ReexecError) return;
    throw err;
  }
  const { child, ports } = await startListeners(o.ports);
  console.log(
    `scheduler-tcp: ${o.services} tcp services over ${ports.length} loopback ports, concurrency ${o.concurrency}, ${o.rounds} intervals per level; node ${process.version}; load ${loadavg()
      .map((x) => x.toFixed(2))
      .join(" ")}`,
  );
  try {
    await runLevels(o, createTcpChecker(), (i) => ({
      type: "tcp",
      address: `127.0.0.1:${ports[i % ports.length]}`,
    }));
  } finally {
    await stopChild(child);
  }
  console.log(
    `load at end: ${loadavg()
      .map((x) => x.toFixed(2))
      .join(" ")}`,
  );
}

await main();
