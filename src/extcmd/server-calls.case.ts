/**
 * The command file's tests against a real server (command-file.test.ts, command-file-batches.test.ts):
 * Connect JSON calls with the admin token, the statuses and audit records they read, and polling.
 */
import assert from "node:assert/strict";
import type { ServerProcess } from "../testing/server-process.js";

export interface Status {
  host: string;
  service?: string;
  state: string;
  output: string;
  lastCheck?: string;
  acknowledgement?: { author: string; comment: string };
}

export interface Audit {
  source: string;
  rpc?: string;
  outcome: string;
  reason?: string;
  commandJson: string;
  principal?: unknown;
}

/** Calls on the server `srv()` returns (started in a `before`), as `token`. */
export function serverCalls(srv: () => ServerProcess, token: string) {
  async function call<T>(path: string, body: unknown): Promise<T> {
    const res = await fetch(`${srv().url}${path}`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
      body: JSON.stringify(body),
    });
    assert.equal(res.status, 200, await res.clone().text());
    return (await res.json()) as T;
  }
  /** A host's statuses (the host and its services). */
  const statuses = async (host: string): Promise<Status[]> =>
    (await call<{ statuses: Status[] }>("/svc.v1.QueryService/ListStatus", { host })).statuses;
  /** The audit records of the command file, oldest first. */
  const extcmdAudits = async (limit: number): Promise<Audit[]> =>
    ((await call<{ records?: Audit[] }>("/svc.v1.AdminService/ListAuditRecords", { limit })).records ?? [])
      .filter((r) => r.source === "AUDIT_SOURCE_EXTCMD")
      .reverse();
  /** Polls until `ok` holds; on timeout fails with the last value and the server's log tail. */
  async function until<T>(
    what: string,
    get: () => Promise<T>,
    ok: (v: T) => boolean,
    ms = 15_000,
  ): Promise<T> {
    const deadline = Date.now() + ms;
    for (;;) {
      const v = await get();
      if (ok(v)) return v;
      if (Date.now() > deadline)
        assert.fail(`${what}: still ${JSON.stringify(v).slice(0, 2000)}\n${srv().stderr().slice(-3000)}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  return { call, statuses, extcmdAudits, until };
}
