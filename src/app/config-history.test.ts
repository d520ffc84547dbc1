import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { tokenSha256 } from "../auth/index.js";
import { testPki } from "../testing/peers/certs.js";
import { runLookout, type ServerProcess, startServer } from "../testing/server-process.js";

// Config history (docs/config-history.md) against the real binary: ListConfigVersions, GetConfig
// with a version, DiffConfig, RollbackConfig, SIGHUP and startup as versions, restarts, roles,
// secrets, and `lookout config` at a terminal.

const ADMIN = "history-admin-token";
const OPERATOR = "history-operator-token";
const SECRET = "history-test-session-secret-0123456789";
/** A value in the documents that must never reach a log line, a list or an audit record. */
const VAR_SECRET = "s3cr3t-history-var-value";
const doc = (host: string, extra = "") => `hosts: ${host}: {
	address: "127.0.0.1"
	vars: {API_TOKEN: "${VAR_SECRET}"}
	check: {type: "passive", freshness_threshold: "1h"}
	services: disk: check: {type: "passive", freshness_threshold: "1h"}
${extra}}
`;
const sha = (text: string) => createHash("sha256").update(text, "utf8").digest("hex");

interface Answer {
  status: number;
  body: Record<string, unknown>;
}
async function post(srv: ServerProcess, rpc: string, body: unknown, token = ADMIN): Promise<Answer> {
  const res = await fetch(`${srv.url}/svc.v1.AdminService/${rpc}`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}
interface Version {
  version: string;
  appliedAt: string;
  appliedBy: string;
  sha256: string;
  summary: string;
  rollbackOf?: string;
  sizeBytes: string;
}
const list = async (srv: ServerProcess, body: unknown = {}) => {
  const r = await post(srv, "ListConfigVersions", body);
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return { versions: (r.body.versions ?? []) as Version[], next: (r.body.nextPageToken ?? "") as string };
};
const hosts = async (srv: ServerProcess) => {
  const res = await fetch(`${srv.url}/svc.v1.QueryService/ListObjects`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${ADMIN}` },
    body: "{}",
  });
  const objects = ((await res.json()) as { objects?: { host: string }[] }).objects ?? [];
  return [...new Set(objects.map((o) => o.host))];
};

describe("config history", () => {
  let dir: string;
  let config: string;
  let srv: ServerProcess;
  let args: string[];
  const pki = testPki();
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), "lookout-config-history-"));
    await writeFile(
      join(dir, "auth.cue"),
      `identities: {
	root: {role: "admin", token_sha256: "${tokenSha256(ADMIN)}"}
	ops: {role: "operator", token_sha256: "${tokenSha256(OPERATOR)}"}
}
`,
    );
    config = join(dir, "served.cue");
    await writeFile(config, doc("web"));
    args = [
      "-config",
      config,
      "-auth-config",
      join(dir, "auth.cue"),
      "-session-secret",
      SECRET,
      "-data-dir",
      join(dir, "data"),
    ];
    srv = await startServer(args);
  });
  after(async () => {
    assert.equal(await srv.stop(), 0);
    pki.dispose();
    await rm(dir, { recursive: true, force: true });
  });

  test("the document loaded at startup is version 1", async () => {
    const { versions, next } = await list(srv);
    assert.equal(next, "");
    assert.deepEqual(
      versions.map((v) => [v.version, v.appliedBy, v.sha256, v.summary, v.sizeBytes]),
      [["1", "startup", sha(doc("web")), "startup: 2 objects", String(Buffer.byteLength(doc("web")))]],
    );
  });

  test("ApplyConfig is a version: who applied it and what it changed; GetConfig returns any version", async () => {
    assert.equal((await post(srv, "ApplyConfig", { cue: doc("db") })).status, 200);
    const [v] = (await list(srv)).versions;
    assert.deepEqual(
      [v?.version, v?.appliedBy, v?.sha256, v?.summary],
      ["2", "root", sha(doc("db")), "+2 ~0 -2 objects"],
    );
    assert.ok(Math.abs(Date.parse(String(v?.appliedAt)) - Date.now()) < 600_000);
    assert.deepEqual((await post(srv, "GetConfig", { version: "1" })).body, { cue: doc("web") });
    assert.deepEqual((await post(srv, "GetConfig", {})).body, { cue: doc("db") });
    const unknown = await post(srv, "GetConfig", { version: "99" });
    assert.equal(unknown.body.code, "not_found");
    // Applying the document in force again is no new version.
    assert.equal((await post(srv, "ApplyConfig", { cue: doc("db") })).status, 200);
    assert.equal((await list(srv)).versions.length, 2);
  });

  test("a SIGHUP reload is a version", async () => {
    await writeFile(
      config,
      doc("db", '\tservices: mem: check: {type: "passive", freshness_threshold: "1h"}\n'),
    );
    srv.child.kill("SIGHUP");
    for (let i = 0; ; i++) {
      const [v] = (await list(srv)).versions;
      if (v?.version === "3") {
        assert.deepEqual([v.appliedBy, v.summary], ["SIGHUP", "+1 ~0 -0 objects"]);
        break;
      }
      assert.ok(i < 200, "the SIGHUP's version is recorded");
      await new Promise((r) => setTimeout(r, 100));
    }
  });

  test("ListConfigVersions pages newest first; a malformed token is invalid_argument", async () => {
    const seen: string[] = [];
    let token = "";
    do {
      const page = await list(srv, { pageSize: 1, pageToken: token });
      assert.equal(page.versions.length, 1);
      seen.push(...page.versions.map((v) => v.version));
      token = page.next;
    } while (token !== "");
    assert.deepEqual(seen, ["3", "2", "1"]);
    for (const pageToken of ["nope", "before:0", "before:-1", "before:1x"]) {
      const r = await post(srv, "ListConfigVersions", { pageToken });
      assert.equal(r.body.code, "invalid_argument", pageToken);
    }
  });

  test("DiffConfig: the text diff and the object diff; unknown and missing versions", async () => {
    const r = await post(srv, "DiffConfig", { fromVersion: "1", toVersion: "2" });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    const unified = String(r.body.unified);
    assert.match(unified, /^--- v1\n\+\+\+ v2\n@@ /);
    assert.match(unified, /^-hosts: web: \{$/m);
    assert.match(unified, /^\+hosts: db: \{$/m);
    const objects = (
      r.body.sections as { kind: string; addedNames?: string[]; removedNames?: string[] }[]
    ).find((s) => s.kind === "objects");
    assert.deepEqual(
      [objects?.addedNames, objects?.removedNames],
      [
        ["db", "db!disk"],
        ["web", "web!disk"],
      ],
    );
    // No to_version: the newest.
    const toNewest = await post(srv, "DiffConfig", { fromVersion: "2" });
    assert.match(String(toNewest.body.unified), /^\+\s+services: mem:/m);
    assert.equal((await post(srv, "DiffConfig", {})).body.code, "invalid_argument");
    assert.equal((await post(srv, "DiffConfig", { fromVersion: "42" })).body.code, "not_found");
    assert.equal(
      (await post(srv, "DiffConfig", { fromVersion: "1", toVersion: "42" })).body.code,
      "not_found",
    );
    assert.equal((await post(srv, "DiffConfig", { fromVersion: "abc" })).body.code, "invalid_argument");
  });

  test("RollbackConfig applies a version again, through ApplyConfig's path, and is audited", async () => {
    const r = await post(srv, "RollbackConfig", { version: "1" });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.deepEqual(r.body, { version: "4" });
    assert.equal(await readFile(config, "utf8"), doc("web"));
    assert.deepEqual(await hosts(srv), ["web"]);
    const [v] = (await list(srv)).versions;
    assert.deepEqual(
      [v?.version, v?.appliedBy, v?.rollbackOf, v?.sha256, v?.summary],
      ["4", "root", "1", sha(doc("web")), "+2 ~0 -3 objects"],
    );
    // The document in force already: nothing to record.
    assert.deepEqual((await post(srv, "RollbackConfig", { version: "1" })).body, {});
    assert.equal((await post(srv, "RollbackConfig", { version: "77" })).body.code, "not_found");
    assert.equal((await post(srv, "RollbackConfig", {})).body.code, "invalid_argument");
    const audit = (await post(srv, "ListAuditRecords", { limit: 1000 })).body.records as {
      rpc: string;
      outcome: string;
      commandJson: string;
    }[];
    const rollbacks = audit.filter((a) => a.rpc === "/svc.v1.AdminService/RollbackConfig");
    assert.ok(
      rollbacks.some(
        (a) =>
          a.outcome === "AUDIT_OUTCOME_ACCEPTED" &&
          JSON.parse(a.commandJson).Version === 1 &&
          JSON.parse(a.commandJson).Sha256 !== undefined,
      ),
      JSON.stringify(rollbacks),
    );
    assert.ok(
      rollbacks.some((a) => a.outcome === "AUDIT_OUTCOME_REJECTED"),
      "the unknown version's refusal",
    );
  });

  test("a version that no longer loads is refused with diagnostics and changes nothing", async () => {
    const ca = join(dir, "ca.pem");
    await writeFile(ca, pki.ca);
    const withCa = doc(
      "tls",
      `\tservices: cert: check: {type: "tls", address: "127.0.0.1:1", ca_file: "${ca}"}\n`,
    );
    assert.equal((await post(srv, "ApplyConfig", { cue: withCa })).status, 200);
    const caVersion = (await list(srv)).versions[0]?.version;
    assert.equal((await post(srv, "ApplyConfig", { cue: doc("web") })).status, 200);
    const before = await list(srv);
    await rm(ca);
    const r = await post(srv, "RollbackConfig", { version: caVersion });
    assert.equal(r.body.code, "invalid_argument");
    assert.match(String(r.body.message), /cannot read ca_file/);
    const details = r.body.details as { type: string; debug: { diagnostics: { message: string }[] } }[];
    assert.equal(details[0]?.type, "svc.v1.ConfigDiagnostics");
    assert.match(String(details[0]?.debug.diagnostics[0]?.message), /ca_file/);
    assert.equal(await readFile(config, "utf8"), doc("web"));
    assert.deepEqual(await hosts(srv), ["web"]);
    assert.deepEqual((await list(srv)).versions, before.versions);
    // The text diff still answers; the object diff says why it cannot.
    const diff = await post(srv, "DiffConfig", { fromVersion: caVersion });
    assert.equal(diff.status, 200);
    assert.match(String(diff.body.unified), /ca_file/);
    assert.equal(diff.body.sections, undefined);
    assert.match(JSON.stringify(diff.body.diagnostics), /from_version: .*cannot read ca_file/);
  });

  test("a rollback racing an ApplyConfig: both apply, one after the other; the newest version is served", async () => {
    const before = Number((await list(srv)).versions[0]?.version);
    const [a, b] = await Promise.all([
      post(srv, "ApplyConfig", { cue: doc("race") }),
      post(srv, "RollbackConfig", { version: "2" }),
    ]);
    assert.deepEqual([a.status, b.status], [200, 200], JSON.stringify([a.body, b.body]));
    const { versions } = await list(srv);
    assert.equal(Number(versions[0]?.version), before + 2);
    assert.deepEqual(
      new Set(versions.slice(0, 2).map((v) => v.sha256)),
      new Set([sha(doc("race")), sha(doc("db"))]),
    );
    const served = await readFile(config, "utf8");
    assert.equal(sha(served), versions[0]?.sha256, "the file is the newest version's document");
    assert.deepEqual(await hosts(srv), [served === doc("race") ? "race" : "db"]);
  });

  test("every history RPC needs the admin role", async () => {
    for (const [rpc, body] of [
      ["ListConfigVersions", {}],
      ["GetConfig", { version: "1" }],
      ["DiffConfig", { fromVersion: "1" }],
      ["RollbackConfig", { version: "1" }],
    ] as const) {
      const r = await post(srv, rpc, body, OPERATOR);
      assert.equal(r.body.code, "permission_denied", rpc);
    }
    const audit = (await post(srv, "ListAuditRecords", { limit: 5 })).body.records as {
      rpc: string;
      outcome: string;
      principal?: { name: string };
    }[];
    assert.ok(
      audit.some(
        (a) =>
          a.rpc === "/svc.v1.AdminService/RollbackConfig" &&
          a.outcome === "AUDIT_OUTCOME_REJECTED" &&
          a.principal?.name === "ops",
      ),
      "a refused rollback is audited",
    );
  });

  test("lookout config history|show|diff|rollback at a terminal", async () => {
    const env = { PATH: process.env.PATH ?? "/usr/bin:/bin", LOOKOUT_SERVER: srv.url, LOOKOUT_TOKEN: ADMIN };
    const h = await runLookout(["config", "history"], { env, timeoutMs: 60_000 });
    assert.equal(h.code, 0, h.stderr);
    const lines = h.stdout.trimEnd().split("\n");
    assert.match(lines[0] ?? "", /^VERSION\s+APPLIED \(UTC\)\s+BY\s+SHA256\s+SUMMARY$/);
    assert.match(
      h.stdout,
      /^4 \(rollback to 1\)\s+\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\s+root\s+[0-9a-f]{12}\s+\+2 ~0 -3 objects$/m,
    );
    assert.match(h.stdout, /^3\s+.*\s+SIGHUP\s+/m);
    assert.match(h.stdout, /^1\s+.*\s+startup\s+[0-9a-f]{12}\s+startup: 2 objects$/m);
    const limited = await runLookout(["config", "history", "-limit", "2"], { env, timeoutMs: 60_000 });
    assert.equal(limited.stdout.trimEnd().split("\n").length, 3);

    const d = await runLookout(["config", "diff", "1", "2"], { env, timeoutMs: 60_000 });
    assert.equal(d.code, 0, d.stderr);
    assert.match(d.stdout, /^--- v1\n\+\+\+ v2\n/);
    assert.match(d.stdout, /^objects: \+2 ~0 -2\n {2}\+ db\n {2}\+ db!disk\n {2}- web\n {2}- web!disk$/m);

    const show = await runLookout(["config", "show", "1"], { env, timeoutMs: 60_000 });
    assert.equal(show.stdout, doc("web"));

    const rb = await runLookout(["config", "rollback", "-server", srv.url, "1"], { env, timeoutMs: 60_000 });
    assert.equal(rb.code, 0, rb.stderr);
    assert.match(rb.stdout, /^rolled back to version 1: now in force as version \d+\n$/);
    assert.equal(await readFile(config, "utf8"), doc("web"));

    const denied = await runLookout(["config", "history"], { env: { ...env, LOOKOUT_TOKEN: OPERATOR } });
    assert.equal(denied.code, 1);
    assert.match(denied.stderr, /permission_denied/);
    assert.doesNotMatch(denied.stderr + denied.stdout, new RegExp(OPERATOR));
    const unknown = await runLookout(["config", "rollback", "999"], { env });
    assert.deepEqual([unknown.code, /not_found: no config version 999/.test(unknown.stderr)], [1, true]);
    const bad = await runLookout(["config", "diff", "x"], { env });
    assert.equal(bad.code, 2);
    // A closed loopback port: the server cannot be reached.
    const down = await runLookout(["config", "history", "-server", "http://127.0.0.1:9"], { env });
    assert.equal(down.code, 1);
    assert.match(down.stderr, /cannot reach http:\/\/127\.0\.0\.1:9/);
  });

  test("no secret of the documents reaches a list, an audit record or the server's log", async () => {
    const listed = JSON.stringify((await list(srv, { pageSize: 1000 })).versions);
    const audit = JSON.stringify((await post(srv, "ListAuditRecords", { limit: 1000 })).body);
    for (const [what, text] of [
      ["ListConfigVersions", listed],
      ["audit records", audit],
      ["server log", srv.stderr()],
    ] as const) {
      assert.ok(!text.includes(VAR_SECRET), `${what} shows a secret of the document`);
    }
  });

  test("the history survives a restart, which records no version for the same document", async () => {
    const before = (await list(srv, { pageSize: 1000 })).versions;
    assert.equal(await srv.stop(), 0);
    srv = await startServer(args);
    assert.deepEqual((await list(srv, { pageSize: 1000 })).versions, before);
    assert.deepEqual((await post(srv, "GetConfig", { version: "1" })).body, { cue: doc("web") });
  });
});
