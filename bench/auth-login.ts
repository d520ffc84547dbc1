/**
 * What identities cost: a successful login's latency (scrypt on the server's thread pool), and how
 * much a flood of 1,000 failed logins per second from one peer slows reads (ListStatus over Connect
 * JSON with a viewer token) — the failed-login throttle should refuse almost all of it before any
 * hashing. Runs the real binary with -auth-config over a passive fleet of 2,200 objects.
 *
 *   node dist/bench/auth-login.js [seconds=10]
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Worker } from "node:worker_threads";
import { hashPassword, tokenSha256 } from "../src/auth/index.js";
import { type ServerProcess, startServer } from "../src/testing/server-process.js";

const seconds = Number(process.argv[2] ?? "10");
const VIEWER = "bench-viewer-token";
const PASSWORD = "bench password";

function fleet(hosts: number, services: number): string {
  const check = `{type: "passive", freshness_threshold: "24h"}`;
  const out = ["hosts: {"];
  for (let i = 0; i < hosts; i++) {
    out.push(`\t"h${i}": {address: "127.0.0.1", check: ${check}, services: {`);
    for (let j = 0; j < services; j++) out.push(`\t\t"s${j}": {check: ${check}}`);
    out.push("\t}}");
  }
  out.push("}", "");
  return out.join("\n");
}

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? 0;
};

/** The server process's CPU time so far (user + system), in ms. */
function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.split(" ") ?? [];
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
}

async function login(url: string, password: string): Promise<number> {
  const res = await fetch(`${url}/auth/login`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ name: "admin", password }),
  });
  await res.arrayBuffer();
  return res.status;
}

/** Reads for `ms` with `concurrency` loops; latencies in ms. */
async function reads(url: string, ms: number, concurrency: number): Promise<number[]> {
  const out: number[] = [];
  const end = performance.now() + ms;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < end) {
        const t = performance.now();
        const res = await fetch(`${url}/svc.v1.QueryService/ListStatus`, {
          method: "POST",
          headers: { "content-type": "application/json", authorization: `Bearer ${VIEWER}` },
          body: '{"pageSize":100}',
        });
        await res.arrayBuffer();
        if (res.status !== 200) throw new Error(`ListStatus ${res.status}`);
        out.push(performance.now() - t);
      }
    }),
  );
  return out;
}

/**
 * A thread that sends `rate` failed logins per second until terminated, over 4 keep-alive
 * connections (as one misbehaving client would), skipping a tick's requests while those are busy;
 * counts answers by status.
 */
function flood(url: string, rate: number): Worker {
  return new Worker(
    `
    const http = require("node:http");
    const { parentPort, workerData } = require("node:worker_threads");
    const agent = new http.Agent({ keepAlive: true, maxSockets: 4 });
    const counts = {};
    let inFlight = 0;
    const body = JSON.stringify({ name: "admin", password: "wrong" });
    const tick = 10;
    setInterval(() => {
      for (let i = 0; i < workerData.rate * tick / 1000 && inFlight < 64; i++) {
        inFlight++;
        const req = http.request(workerData.url + "/auth/login", { method: "POST", agent, headers: { "content-type": "application/json", "content-length": body.length } }, (res) => {
          res.resume();
          res.on("end", () => { inFlight--; counts[res.statusCode] = (counts[res.statusCode] || 0) + 1; });
        });
        req.on("error", () => { inFlight--; counts.err = (counts.err || 0) + 1; });
        req.end(body);
      }
    }, tick);
    parentPort.on("message", () => parentPort.postMessage(counts));
    `,
    { eval: true, workerData: { url, rate } },
  );
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "lookout-bench-auth-"));
  let srv: ServerProcess | undefined;
  try {
    writeFileSync(join(dir, "fleet.cue"), fleet(200, 10));
    writeFileSync(
      join(dir, "auth.cue"),
      `identities: {\n\tadmin: {role: "admin", password: "${await hashPassword(PASSWORD)}"}\n\tviewer: {role: "viewer", token_sha256: "${tokenSha256(VIEWER)}"}\n}\n`,
    );
    srv = await startServer(
      [
        "-config",
        join(dir, "fleet.cue"),
        "-auth-config",
        join(dir, "auth.cue"),
        "-session-secret",
        "bench-auth-login-session-secret-0123456789",
        "-data-dir",
        join(dir, "data"),
      ],
      { timeoutMs: 180_000 },
    );
    const url = srv.url;
    const logins: number[] = [];
    for (let i = 0; i < 30; i++) {
      const t = performance.now();
      const status = await login(url, PASSWORD);
      if (status !== 200) throw new Error(`login ${status}`);
      logins.push(performance.now() - t);
    }
    console.log(
      `login (ok, sequential, n=30): p50 ${pct(logins, 50).toFixed(1)} ms, p99 ${pct(logins, 99).toFixed(1)} ms`,
    );

    await reads(url, 1000, 4); // warm up
    const pid = srv.child.pid as number;
    let c0 = cpuMs(pid);
    const quiet = await reads(url, seconds * 1000, 4);
    const quietCpu = (cpuMs(pid) - c0) / seconds;
    const f = flood(url, 1000);
    await new Promise((r) => setTimeout(r, 500));
    c0 = cpuMs(pid);
    const loaded = await reads(url, seconds * 1000, 4);
    const loadedCpu = (cpuMs(pid) - c0) / seconds;
    const counts = await new Promise<Record<string, number>>((resolve) => {
      f.once("message", resolve);
      f.postMessage("counts");
    });
    await f.terminate();
    const line = (name: string, xs: number[]) =>
      `${name}: ${(xs.length / seconds).toFixed(0)} reads/s, p50 ${pct(xs, 50).toFixed(2)} ms, p99 ${pct(xs, 99).toFixed(2)} ms`;
    console.log(line("ListStatus, quiet", quiet));
    console.log(line("ListStatus, 1,000 failed logins/s from one peer", loaded));
    console.log(`failed-login answers by HTTP status: ${JSON.stringify(counts)}`);
    console.log(
      `server CPU: ${quietCpu.toFixed(0)} ms/s quiet, ${loadedCpu.toFixed(0)} ms/s under the flood (per read: ${(quietCpu / (quiet.length / seconds)).toFixed(2)} / ${(loadedCpu / (loaded.length / seconds)).toFixed(2)} ms)`,
    );
    console.log(
      `slowdown: throughput ${((1 - loaded.length / quiet.length) * 100).toFixed(1)} %, p50 ${((pct(loaded, 50) / pct(quiet, 50) - 1) * 100).toFixed(1)} %`,
    );
  } finally {
    await srv?.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
