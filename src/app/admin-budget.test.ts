import assert from "node:assert/strict";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { tokenSha256 } from "../auth/index.js";
import { evalBudget } from "../config/index.js";
import { type ServerProcess, startServer } from "../testing/server-process.js";

// A hostile document submitted through the AdminService against the real binary: refused with
// its budget's diagnostic, one evaluation at a time, the server's memory within the bound, and
// the server serving on.

const ADMIN = "admin-budget-test-token";
const ADM = "/svc.v1.AdminService/";

/** The 40 lines: `_aN: [_a(N-1), _a(N-1)]`, and a field that exports `_a40`. */
const HOSTILE = (() => {
  const lines = ["_a0: 1"];
  for (let n = 1; n <= 40; n++) lines.push(`_a${n}: [_a${n - 1}, _a${n - 1}]`);
  lines.push('hosts: web: {address: "127.0.0.1", vars: {X: _a40}}');
  return `${lines.join("\n")}\n`;
})();

interface Answer {
  status: number;
  body: Record<string, unknown>;
}
async function post(srv: ServerProcess, path: string, body: unknown): Promise<Answer> {
  const res = await fetch(`${srv.url}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${ADMIN}` },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

/** A /proc/PID/status field in MB (VmRSS now, VmHWM the peak so far). */
async function procMb(pid: number, field: "VmRSS" | "VmHWM"): Promise<number> {
  const m = new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(await readFile(`/proc/${pid}/status`, "utf8"));
  assert.ok(m !== null, `no ${field}`);
  return Number(m[1]) / 1024;
}

describe("AdminService and a document whose values multiply", () => {
  let dir: string;
  let srv: ServerProcess;
  const served = 'hosts: web: {address: "127.0.0.1", check: {type: "passive", freshness_threshold: "1h"}}\n';
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), "lookout-admin-budget-"));
    await writeFile(
      join(dir, "auth.cue"),
      `identities: root: {role: "admin", token_sha256: "${tokenSha256(ADMIN)}"}\n`,
    );
    await writeFile(join(dir, "served.cue"), served);
    srv = await startServer([
      "-config",
      join(dir, "served.cue"),
      "-auth-config",
      join(dir, "auth.cue"),
      "-session-secret",
      "admin-budget-test-session-secret-0123456789",
      "-data-dir",
      join(dir, "data"),
    ]);
  });
  after(async () => {
    const code = await srv.stop();
    await rm(dir, { recursive: true, force: true });
    assert.equal(code, 0, srv.stderr());
  });

  test("ValidateConfig refuses it with the budget diagnostic; memory stays within the bound; the server serves on", async () => {
    const pid = srv.child.pid as number;
    const before = await procMb(pid, "VmRSS");
    const r = await post(srv, `${ADM}ValidateConfig`, { cue: HOSTILE });
    assert.equal(r.status, 400, JSON.stringify(r.body));
    assert.equal(r.body.code, "invalid_argument");
    assert.match(
      String(r.body.message),
      /served\.cue:1:1: evaluation budget exceeded: the document \(\d+ bytes\)/,
    );
    const details = r.body.details as { type: string; debug: { diagnostics: { message: string }[] } }[];
    assert.equal(details[0]?.type, "svc.v1.ConfigDiagnostics");
    assert.equal(details[0]?.debug.diagnostics.length, 1);
    // The documented bound: the evaluation runs on a worker whose heap is limited by the
    // document's budget (docs/configuration.md, "Evaluation budget").
    const growth = (await procMb(pid, "VmHWM")) - before;
    const bound = evalBudget(Buffer.byteLength(HOSTILE)).heapMb;
    assert.ok(growth < bound, `the server grew by ${growth.toFixed(0)} MB, over ${bound} MB`);
    // Served on: a read and a valid document still answer.
    const objects = await post(srv, "/svc.v1.QueryService/ListObjects", {});
    assert.equal(objects.status, 200);
    assert.deepEqual(await post(srv, `${ADM}ValidateConfig`, { cue: served }), { status: 200, body: {} });
  });

  test("ten at once: one evaluates at a time, eight wait their turn, the tenth is resource_exhausted", async () => {
    const pid = srv.child.pid as number;
    const before = await procMb(pid, "VmRSS");
    const calls = Array.from({ length: 10 }, (_, i) =>
      post(srv, `${ADM}${i % 2 === 0 ? "ValidateConfig" : "PlanConfig"}`, { cue: HOSTILE }),
    );
    const answers = await Promise.all(calls);
    const codes = answers.map((a) => String(a.body.code)).sort();
    assert.deepEqual(codes, [...Array(9).fill("invalid_argument"), "resource_exhausted"], srv.stderr());
    for (const a of answers) {
      if (a.body.code === "invalid_argument")
        assert.match(String(a.body.message), /evaluation budget exceeded/);
    }
    // One at a time: the peak is one document's, not ten.
    const growth = (await procMb(pid, "VmHWM")) - before;
    const bound = evalBudget(Buffer.byteLength(HOSTILE)).heapMb;
    assert.ok(growth < bound, `the server grew by ${growth.toFixed(0)} MB, over ${bound} MB`);
    // Free again afterwards.
    assert.deepEqual(await post(srv, `${ADM}ValidateConfig`, { cue: served }), { status: 200, body: {} });
  });
});
