import { join } from "node:path";
import { Database } from "../store/sqlite.js";
import type { ResultMessage } from "../zones/job.js";

/**
 * What the zone-confinement tests share (src/zones/forgery.test.ts, permissions.test.ts, the fault
 * suite's zone-forgery case): a config with a default-zone passive service (`web1!http`, the
 * issue's target), zone z1's host `r1` (an active service `s`, a passive one `p`) and zone z2's
 * `r2` (active `s`), the active checks aimed at a closed loopback port; forged result messages;
 * reading ListStatus, /metrics and the audit log.
 */
export function forgeryConfig(closedPort = 1): string {
  return `
_active: {type: "tcp", address: "127.0.0.1:${closedPort}", check_interval: "1s", retry_interval: "1s", timeout: "1s", max_attempts: 1}
_passive: {type: "passive", freshness_threshold: "1h"}
hosts: web1: {
	address: "127.0.0.1"
	check: _passive
	services: http: check: _passive
}
hosts: r1: {
	address: "127.0.0.1"
	zone: "z1"
	check: _passive
	services: {
		s: check: _active
		p: check: _passive
	}
}
hosts: r2: {
	address: "127.0.0.1"
	zone: "z2"
	check: _passive
	services: s: check: _active
}
`;
}

export const FORGERY_CONFIG = forgeryConfig();

/** How long the tests give the server to start: minutes on a machine shared with other test runs. */
export const START_TIMEOUT_MS = 120_000;

/** The forged result: OK "FORGED" by worker "evil", claiming `zone`. */
export function forgedResult(host: string, service: string | undefined, zone: string): ResultMessage {
  const now = Date.now();
  return {
    v: 1,
    key: service === undefined ? host : `${host}!${service}`,
    host,
    ...(service === undefined ? {} : { service }),
    zone,
    worker: "evil",
    due: now,
    checkedAt: now,
    durationMs: 1,
    exitStatus: 0,
    output: "FORGED",
    longOutput: "",
    perfdata: [],
  };
}

export interface StatusJson {
  host: string;
  service?: string;
  state?: string;
  output?: string;
  checkedBy?: string;
  acknowledgement?: unknown;
  inDowntime?: boolean;
  lastCheck?: string;
}

export async function postJson(url: string, body: unknown): Promise<{ status: number; text: string }> {
  const res = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  return { status: res.status, text: await res.text() };
}

/** One object's status as ListStatus (Connect JSON) shows it. */
export async function statusOf(url: string, host: string, service?: string): Promise<StatusJson | undefined> {
  const r = await postJson(`${url}/svc.v1.QueryService/ListStatus`, {
    host,
    ...(service === undefined ? {} : { service }),
  });
  const all = (JSON.parse(r.text) as { statuses?: StatusJson[] }).statuses ?? [];
  return all.find((s) => s.host === host && s.service === service);
}

/** A series' value on /metrics (`name{labels}` exactly as printed), or undefined. */
export async function metricValue(url: string, series: string): Promise<number | undefined> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const line = text.split("\n").find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

export async function waitFor(what: string, f: () => Promise<boolean>, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await f())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

export interface AuditRow {
  source: string;
  principalName: string | null;
  rpc: string;
  commandJson: string;
  outcome: string;
  reason: string;
}

/** The audit records of source `zone` in `<dataDir>/audit.db`, oldest first (read beside the server). */
export function auditRecords(dataDir: string): AuditRow[] {
  const db = new Database(join(dataDir, "audit.db"), { readonly: true, fileMustExist: true });
  try {
    return db
      .prepare(
        `SELECT source, principal_name AS principalName, rpc, command_json AS commandJson, outcome, reason
         FROM audit WHERE source = 'zone' ORDER BY id`,
      )
      .all() as AuditRow[];
  } finally {
    db.close();
  }
}
