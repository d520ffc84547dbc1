/** Runs bench/ingest-client.ts as its own process and returns the JSON line it prints. */
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";

export interface IngestClientArgs {
  readonly url: string;
  readonly protocol: "grpc" | "grpc-js" | "connect-json";
  /** 0: one result for every service once. */
  readonly seconds: number;
  readonly concurrency: number;
  readonly hosts: number;
  readonly servicesPerHost: number;
  /** Results per second (0: as fast as the server answers). */
  readonly rate?: number;
  /** Results per call (1: unary ProcessCheckResult). */
  readonly batch?: number;
}

export interface IngestClientRun {
  readonly results: number;
  readonly seconds: number;
  readonly rate: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly cpuMs: number;
}

export function runIngestClient(a: IngestClientArgs): Promise<IngestClientRun> {
  const args = [
    fileURLToPath(new URL("./ingest-client.js", import.meta.url)),
    a.url,
    a.protocol,
    String(a.seconds),
    String(a.concurrency),
    String(a.hosts),
    String(a.servicesPerHost),
    ...(a.rate === undefined && a.batch === undefined ? [] : [String(a.rate ?? 0)]),
    ...(a.batch === undefined ? [] : [String(a.batch)]),
  ];
  return new Promise((resolve, reject) => {
    const c = spawn(process.execPath, args, { stdio: ["ignore", "pipe", "inherit"] });
    let out = "";
    c.stdout.on("data", (d: Buffer) => {
      out += d.toString();
    });
    c.once("exit", (code) =>
      code === 0
        ? resolve(JSON.parse(out) as IngestClientRun)
        : reject(new Error(`ingest client exited ${code}`)),
    );
  });
}
