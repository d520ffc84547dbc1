import { appendFileSync, readFileSync } from "node:fs";
import http from "node:http";
import { create, type MessageInitShape, toBinary } from "@bufbuild/protobuf";
import * as grpc from "@grpc/grpc-js";
import {
  type ProcessCheckResultRequestSchema,
  ProcessCheckResultsRequestSchema,
} from "../../api/gen/svc/v1/command_service_pb.js";
import { fleetHost, fleetService } from "../../core/fleet-config.js";
import { openEventLogReader } from "../../store/event-log.js";

/**
 * The long mode (`npm run faults:long`, FAULTS_LONG=1): more trials and generated cases, and the
 * figures printed. The quick mode is what `npm test` runs.
 */
export const LONG = process.env.FAULTS_LONG === "1";

/** `quick` under npm test, `long` under FAULTS_LONG=1. */
export function byMode<T>(quick: T, long: T): T {
  return LONG ? long : quick;
}

/** Something that can print a diagnostic line: node:test's TestContext. */
export interface Diagnostics {
  diagnostic(message: string): void;
}

/**
 * Reports a case's figures: as a test diagnostic (the spec reporter prints it), and appended as one
 * JSON line to $FAULTS_FIGURES when that is set (what `npm run faults:long` collects into a table).
 */
export function reportFigures(t: Diagnostics, name: string, figures: Record<string, unknown>): void {
  const line = JSON.stringify({ case: name, mode: LONG ? "long" : "quick", ...figures });
  t.diagnostic(`figures ${line}`);
  const file = process.env.FAULTS_FIGURES;
  if (file !== undefined && file !== "") appendFileSync(file, `${line}\n`);
}

/** A passive fleet document (nothing fires on a timer): `hosts` hosts of `services` services each. */
export function passiveFleet(hosts: number, services: number): string {
  const check = `{type: "passive", freshness_threshold: "24h"}`;
  const out = ["hosts: {"];
  for (let i = 0; i < hosts; i++) {
    out.push(`\t"${fleetHost(i)}": {`, `\t\taddress: "127.0.0.${i + 1}"`, `\t\tcheck: ${check}`);
    out.push("\t\tservices: {");
    for (let j = 0; j < services; j++) out.push(`\t\t\t"${fleetService(j)}": {check: ${check}}`);
    out.push("\t\t}", "\t}");
  }
  out.push("}", "");
  return out.join("\n");
}

/** The shape of the passive fleet batches are written for. */
export interface FleetShape {
  readonly hosts: number;
  readonly services: number;
}

/**
 * Batch `n` of `size` results over the fleet: every result's output starts `batch <n>`, so the log
 * tells which batches it holds.
 */
export function batchResults(
  shape: FleetShape,
  n: number,
  size: number,
): MessageInitShape<typeof ProcessCheckResultRequestSchema>[] {
  const objects = shape.hosts * (shape.services + 1);
  const results: MessageInitShape<typeof ProcessCheckResultRequestSchema>[] = [];
  for (let k = 0; k < size; k++) {
    const i = (n * size + k) % objects;
    const service = i % (shape.services + 1);
    results.push({
      host: fleetHost(Math.floor(i / (shape.services + 1))),
      // Every (services+1)th result is for the host itself.
      ...(service === shape.services ? {} : { service: fleetService(service) }),
      exitStatus: (n + k) % 4,
      output: `batch ${n} | n=${n};1;2`,
    });
  }
  return results;
}

/** Batch `n` as Connect JSON. */
export function batchJson(shape: FleetShape, n: number, size: number): string {
  return JSON.stringify({
    results: batchResults(shape, n, size),
  });
}

/** Batch `n` as a protobuf ProcessCheckResultsRequest. */
export function batchProto(shape: FleetShape, n: number, size: number): Uint8Array {
  return toBinary(
    ProcessCheckResultsRequestSchema,
    create(ProcessCheckResultsRequestSchema, { results: batchResults(shape, n, size) }),
  );
}

/** An HTTP answer as a client sees it. */
export interface PostAnswer {
  readonly status: number;
  readonly body: string;
}

const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });

/** POSTs a body over HTTP/1.1 (keep-alive) with node:http; rejects when the connection fails. */
export function post(
  url: string,
  path: string,
  contentType: string,
  body: Uint8Array | string,
  timeoutMs = 30_000,
): Promise<PostAnswer> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      `${url}${path}`,
      { method: "POST", agent, headers: { "content-type": contentType }, timeout: timeoutMs },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () =>
          resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString("utf8") }),
        );
        res.on("error", reject);
      },
    );
    req.on("timeout", () => req.destroy(new Error("timeout")));
    req.on("error", reject);
    req.end(body);
  });
}

/** A gRPC client of the server at `address` (host:port) for raw unary calls. */
export interface GrpcCaller {
  /** One unary call with bytes in and bytes out; resolves with the status code (0 is OK). */
  call(path: string, body: Uint8Array, deadlineMs?: number): Promise<{ code: number; details: string }>;
  close(): void;
}

/** A @grpc/grpc-js client (cleartext HTTP/2), the way Go and Java clients call. */
export function grpcCaller(address: string): GrpcCaller {
  const client = new grpc.Client(address, grpc.credentials.createInsecure());
  return {
    call(path, body, deadlineMs = 30_000) {
      return new Promise((resolve) => {
        client.makeUnaryRequest(
          path,
          (b: Buffer) => b,
          (b: Buffer) => b,
          Buffer.from(body),
          new grpc.Metadata(),
          { deadline: Date.now() + deadlineMs },
          (err) => resolve(err ? { code: err.code, details: err.details } : { code: 0, details: "" }),
        );
      });
    },
    close: () => client.close(),
  };
}

/** The batch numbers whose results are in the event log of `dataDir` (outputs `batch <n> ...`). */
export function loggedBatches(dataDir: string): Set<number> {
  const seen = new Set<number>();
  const reader = openEventLogReader(dataDir);
  try {
    for (let afterSeq = 0; ; ) {
      const events = reader.eventsAfter(afterSeq, 5000);
      if (events.length === 0) break;
      for (const e of events) {
        if (e.event.type === "CheckResultProcessed") {
          const m = /^batch (\d+)/.exec(e.event.result.output);
          if (m) seen.add(Number(m[1]));
        }
      }
      afterSeq = (events[events.length - 1] as { seq: number }).seq;
    }
  } finally {
    reader.close();
  }
  return seen;
}

/** The resident set of process `pid` now and its peak (VmHWM), in MiB; zeros once it has gone. */
export function rssMiB(pid: number | undefined): { rss: number; peak: number } {
  try {
    const status = readFileSync(`/proc/${pid}/status`, "utf8");
    const kb = (field: string): number =>
      Number(new RegExp(`^${field}:\\s+(\\d+)`, "m").exec(status)?.[1] ?? 0);
    return { rss: kb("VmRSS") / 1024, peak: kb("VmHWM") / 1024 };
  } catch {
    return { rss: 0, peak: 0 };
  }
}

/** Fetches /metrics and returns the value of one sample (`name{labels}` exactly as printed), or undefined. */
export async function metricValue(url: string, sample: string): Promise<number | undefined> {
  const text = await (await fetch(`${url}/metrics`)).text();
  for (const line of text.split("\n")) {
    if (line.startsWith(`${sample} `)) return Number(line.slice(sample.length + 1));
  }
  return undefined;
}

/** The text of /metrics. */
export async function metricsText(url: string): Promise<string> {
  return (await fetch(`${url}/metrics`)).text();
}

/** The p-quantile (0..1) of a sorted-or-not list of numbers; NaN when empty. */
export function quantile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(p * sorted.length) - 1)] as number;
}

/** A small seeded generator (mulberry32), so a failing trial can be replayed from its seed. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Resolves after `ms` milliseconds. */
export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** What an ingestion run saw. */
export interface IngestRun {
  /** The batches answered OK. */
  readonly acked: Set<number>;
  /** Answers that were not OK (or failed connections) before the run was told to end. */
  readonly failures: string[];
}

/**
 * Ingests numbered batches at full speed — `json` Connect JSON workers and `grpc` gRPC workers, each
 * with one request in flight — from batch `first` on, until `ended()` turns true. Answers after that
 * (a killed or stopping server) are not failures; a batch counts as acknowledged only on OK.
 */
export async function ingest(
  url: string,
  shape: FleetShape,
  o: { first: number; size: number; json: number; grpc: number; ended: () => boolean },
): Promise<IngestRun> {
  const acked = new Set<number>();
  const failures: string[] = [];
  let next = o.first;
  const address = url.replace(/^http:\/\//, "");
  const caller = grpcCaller(address);
  const path = "/svc.v1.CommandService/ProcessCheckResults";
  const worker = async (kind: "json" | "grpc"): Promise<void> => {
    while (!o.ended()) {
      const n = next++;
      let ok = false;
      let why = "";
      try {
        if (kind === "json") {
          const r = await post(url, path, "application/json", batchJson(shape, n, o.size));
          ok = r.status === 200;
          why = `${r.status} ${r.body.slice(0, 200)}`;
        } else {
          const r = await caller.call(path, batchProto(shape, n, o.size));
          ok = r.code === 0;
          why = `grpc ${r.code} ${r.details}`;
        }
      } catch (e) {
        why = String(e);
      }
      if (ok) acked.add(n);
      else if (!o.ended()) failures.push(`${kind} batch ${n}: ${why}`);
    }
  };
  try {
    await Promise.all([
      ...Array.from({ length: o.json }, () => worker("json")),
      ...Array.from({ length: o.grpc }, () => worker("grpc")),
    ]);
  } finally {
    caller.close();
  }
  return { acked, failures };
}

/** How long a server may take to start: on a machine shared by many test runs, far above 15 s. */
export const START_TIMEOUT_MS = 60_000;
