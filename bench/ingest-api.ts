/**
 * Passive ingestion through the API, durable, 100,000 services: starts src/api/core-test-server in its
 * own process, then runs bench/ingest-client in another process over gRPC and over Connect JSON,
 * and prints results/s (acknowledged = durably enqueued) and the server's RSS.
 *
 *   node dist/bench/ingest-api.js [seconds=10] [concurrency=8]
 */
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { startHarnessServer } from "./fleet-load.js";

const seconds = process.argv[2] ?? "10";
const concurrency = process.argv[3] ?? "8";
const HOSTS = "1000";
const SERVICES = "100";
const here = (f: string): string => fileURLToPath(new URL(f, import.meta.url));

const dir = mkdtempSync(join(process.env.BENCH_DIR ?? tmpdir(), "lookout-ingest-api-"));
const { server, port } = await startHarnessServer(dir, Number(HOSTS), Number(SERVICES));
/** CPU seconds (user + system, all threads) the server process has used so far. */
const serverCpu = (): number => {
  const f = readFileSync(`/proc/${server.pid}/stat`, "utf8").split(") ")[1]?.split(" ") ?? [];
  return (Number(f[11]) + Number(f[12])) / 100;
};
const rssMiB = (): number => {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${server.pid}/status`, "utf8"));
  return Number(m?.[1] ?? 0) / 1024;
};
console.log(
  `server ready on ${port} with ${Number(HOSTS) * Number(SERVICES)} services; RSS ${rssMiB().toFixed(0)} MiB`,
);

function client(protocol: string): Promise<{ results: number; seconds: number; rate: number }> {
  return new Promise((resolve, reject) => {
    const c = spawn(
      process.execPath,
      [
        here("./ingest-client.js"),
        `http://127.0.0.1:${port}`,
        protocol,
        seconds,
        concurrency,
        HOSTS,
        SERVICES,
      ],
      { stdio: ["ignore", "pipe", "inherit"] },
    );
    let out = "";
    c.stdout.on("data", (d: Buffer) => {
      out += d.toString();
    });
    c.once("exit", (code) =>
      code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`client exited ${code}`)),
    );
  });
}

for (const protocol of ["grpc", "connect-json"]) {
  const cpu0 = serverCpu();
  const r = await client(protocol);
  const cpu = serverCpu() - cpu0;
  console.log(
    `${protocol}: ${r.results} results in ${r.seconds.toFixed(2)} s = ${r.rate} results/s acknowledged (durable); server CPU ${cpu.toFixed(1)} s = ${Math.round(r.results / cpu)} results per server CPU-second; server RSS ${rssMiB().toFixed(0)} MiB = ${((rssMiB() * 1048576) / (Number(HOSTS) * Number(SERVICES))).toFixed(0)} B/service; load average ${loadavg()[0]?.toFixed(1)}`,
  );
}
server.kill("SIGTERM");
await new Promise((r) => server.once("exit", r));
rmSync(dir, { recursive: true, force: true });
