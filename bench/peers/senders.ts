/**
 * Passive result senders in each system's best form: Lookout's Connect JSON (one result per request,
 * or batches of 1,000), Icinga 2's REST API (process-check-result, one per request, the only form it
 * has), Nagios's external command file. Each runs at full speed for `ms` with `inFlight` requests
 * outstanding and counts what was answered with success, with each request's latency.
 */
import { createWriteStream } from "node:fs";
import { Agent as HttpAgent, request as httpRequest } from "node:http";
import { type FleetSpec, objects } from "./fleet.js";
import { icingaAgent, icingaCall } from "./systems/icinga2.js";

export interface SendResult {
  readonly sent: number;
  readonly ok: number;
  readonly seconds: number;
  readonly p99Ms?: number;
}

function p99(latencies: number[]): number | undefined {
  if (latencies.length === 0) return undefined;
  latencies.sort((a, b) => a - b);
  return latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * 0.99))];
}

async function pump(
  ms: number,
  inFlight: number,
  one: (i: number) => Promise<{ ok: boolean; count: number }>,
): Promise<SendResult> {
  const end = performance.now() + ms;
  const start = performance.now();
  let sent = 0;
  let ok = 0;
  let i = 0;
  const lat: number[] = [];
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      while (performance.now() < end) {
        const t = performance.now();
        const r = await one(i++).catch(() => ({ ok: false, count: 1 }));
        lat.push(performance.now() - t);
        sent += r.count;
        if (r.ok) ok += r.count;
      }
    }),
  );
  const q = p99(lat);
  return { sent, ok, seconds: (performance.now() - start) / 1000, ...(q === undefined ? {} : { p99Ms: q }) };
}

function postJson(agent: HttpAgent, url: string, body: string): Promise<boolean> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      url,
      { method: "POST", agent, headers: { "content-type": "application/json" } },
      (res) => {
        res.resume();
        res.on("end", () => resolve(res.statusCode === 200));
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}

/** Lookout, Connect JSON over HTTP/1.1 keep-alive: `batch` results per request. */
export function sendLookout(url: string, fleet: FleetSpec, ms: number, inFlight: number, batch: number) {
  const all = [...objects(fleet)];
  const agent = new HttpAgent({ keepAlive: true, maxSockets: inFlight });
  let k = 0;
  const result = () => {
    const o = all[k++ % all.length] as { host: string; service: string };
    return { host: o.host, service: o.service, exitStatus: k % 7 === 0 ? 2 : 0, output: "bench|v=1" };
  };
  const path =
    batch === 1 ? "/svc.v1.CommandService/ProcessCheckResult" : "/svc.v1.CommandService/ProcessCheckResults";
  return pump(ms, inFlight, async () => {
    const body =
      batch === 1
        ? JSON.stringify(result())
        : JSON.stringify({ results: Array.from({ length: batch }, result) });
    return { ok: await postJson(agent, `${url}${path}`, body), count: batch };
  }).finally(() => agent.destroy());
}

/** Icinga 2 REST API, one process-check-result per request over HTTPS keep-alive. */
export function sendIcinga(port: number, fleet: FleetSpec, ms: number, inFlight: number) {
  const all = [...objects(fleet)];
  const agent = icingaAgent(inFlight);
  let k = 0;
  return pump(ms, inFlight, async () => {
    const o = all[k++ % all.length] as { host: string; service: string };
    const r = await icingaCall(agent, port, "POST", "/v1/actions/process-check-result", {
      type: "Service",
      service: `${o.host}!${o.service}`,
      exit_status: k % 7 === 0 ? 2 : 0,
      plugin_output: "bench",
      performance_data: ["v=1"],
    });
    return { ok: r.status === 200, count: 1 };
  }).finally(() => agent.destroy());
}

/**
 * `count` PROCESS_SERVICE_CHECK_RESULT lines for the fleet's services in turn, from line `from` on,
 * stamped `now` (epoch seconds): what every command-file figure writes, for Nagios and Lookout
 * alike. Every seventh is CRITICAL, the rest OK.
 */
export function commandLines(
  all: readonly { host: string; service: string }[],
  from: number,
  count: number,
  now: number,
): string {
  let chunk = "";
  for (let k = from; k < from + count; k++) {
    const o = all[k % all.length] as { host: string; service: string };
    chunk += `[${now}] PROCESS_SERVICE_CHECK_RESULT;${o.host};${o.service};${(k + 1) % 7 === 0 ? 2 : 0};bench|v=1\n`;
  }
  return chunk;
}

/**
 * Writes `lines` command-file lines (commandLines) into a named pipe as fast as it takes them (a
 * full pipe blocks the writer), the last one with the output `last`: resolves with the seconds
 * from the first write until the last left this process.
 */
export async function writeCommandLines(
  commandFile: string,
  fleet: FleetSpec,
  lines: number,
  last: string,
): Promise<number> {
  const all = [...objects(fleet)];
  const out = createWriteStream(commandFile, { flags: "a" });
  const start = performance.now();
  const now = Math.floor(Date.now() / 1000);
  for (let k = 0; k < lines; k += 500) {
    const n = Math.min(500, lines - k);
    const end = k + n === lines;
    let chunk = commandLines(all, k, end ? n - 1 : n, now);
    if (end) {
      const o = all[(lines - 1) % all.length] as { host: string; service: string };
      chunk += `[${now}] PROCESS_SERVICE_CHECK_RESULT;${o.host};${o.service};0;${last}\n`;
    }
    if (!out.write(chunk)) await new Promise<void>((r) => out.once("drain", () => r()));
  }
  await new Promise<void>((r) => out.end(() => r()));
  return (performance.now() - start) / 1000;
}

/**
 * Nagios external command file: PROCESS_SERVICE_CHECK_RESULT lines as fast as the pipe takes them
 * (a full pipe blocks the writer). What counts is what Nagios processed (its own count), not what
 * was written.
 */
export async function sendNagios(commandFile: string, fleet: FleetSpec, ms: number): Promise<SendResult> {
  const all = [...objects(fleet)];
  const out = createWriteStream(commandFile, { flags: "a" });
  const start = performance.now();
  const end = start + ms;
  let sent = 0;
  while (performance.now() < end) {
    const chunk = commandLines(all, sent, 500, Math.floor(Date.now() / 1000));
    sent += 500;
    if (!out.write(chunk)) await new Promise<void>((r) => out.once("drain", () => r()));
  }
  await new Promise<void>((r) => out.end(() => r()));
  return { sent, ok: sent, seconds: (performance.now() - start) / 1000 };
}
