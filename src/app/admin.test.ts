import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { hashPassword, tokenSha256 } from "../auth/index.js";
import { MAIN_JS, runLookout, type ServerProcess, startServer } from "../testing/server-process.js";

// The AdminService, identities and start-up rules against the real binary.

const ADMIN = "admin-test-token";
const OPERATOR = "operator-test-token";
/** A -session-secret long enough to be accepted (32 bytes or more). */
const SECRET = "admin-test-session-secret-0123456789";
const doc = (host: string) => `hosts: ${host}: {
	address: "127.0.0.1"
	check: {type: "passive", freshness_threshold: "1h"}
	services: disk: check: {type: "passive", freshness_threshold: "1h"}
}
`;

let dir: string;
const identities = (extra = "") =>
  `identities: {
	root: {role: "admin", token_sha256: "${tokenSha256(ADMIN)}"}
	ops: {role: "operator", token_sha256: "${tokenSha256(OPERATOR)}"}
${extra}}
`;
before(async () => {
  dir = await mkdtemp(join(tmpdir(), "lookout-admin-"));
  await writeFile(join(dir, "auth.cue"), identities());
});
after(async () => {
  await rm(dir, { recursive: true, force: true });
});

interface Answer {
  status: number;
  body: Record<string, unknown>;
}
async function post(srv: ServerProcess, path: string, body: unknown, token = ADMIN): Promise<Answer> {
  const res = await fetch(`${srv.url}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}
const ADM = "/svc.v1.AdminService/";
const hosts = async (srv: ServerProcess) =>
  (((await post(srv, "/svc.v1.QueryService/ListObjects", {})).body.objects ?? []) as { host: string }[])
    .map((o) => o.host)
    .filter((h, i, all) => all.indexOf(h) === i);

describe("AdminService", () => {
  let srv: ServerProcess;
  let config: string;
  before(async () => {
    config = join(dir, "served.cue");
    await writeFile(config, doc("web"));
    srv = await startServer([
      "-config",
      config,
      "-auth-config",
      join(dir, "auth.cue"),
      "-session-secret",
      SECRET,
      "-data-dir",
      join(dir, "data"),
    ]);
  });
  after(async () => {
    assert.equal(await srv.stop(), 0);
  });

  test("ValidateConfig: ok, a rejected document with diagnostics, a missing cue; writes nothing", async () => {
    assert.deepEqual(await post(srv, `${ADM}ValidateConfig`, { cue: doc("db") }), { status: 200, body: {} });
    const bad = await post(srv, `${ADM}ValidateConfig`, {
      cue: 'hosts: web: {address: "x", check: {type: "telnet"}}\n',
    });
    assert.equal(bad.status, 400);
    assert.equal(bad.body.code, "invalid_argument");
    assert.match(String(bad.body.message), /served\.cue:1:\d+: .*telnet/);
    const details = bad.body.details as { type: string; debug: { diagnostics: { line: number }[] } }[];
    assert.equal(details[0]?.type, "svc.v1.ConfigDiagnostics");
    assert.equal(details[0]?.debug.diagnostics[0]?.line, 1);
    const missing = await post(srv, `${ADM}ValidateConfig`, {});
    assert.equal(missing.body.code, "invalid_argument");
    assert.equal(missing.body.details, undefined);
    assert.equal(await readFile(config, "utf8"), doc("web"));
  });

  test("identities are never accepted by ApplyConfig; a rejected document changes nothing", async () => {
    const r = await post(srv, `${ADM}ApplyConfig`, {
      cue: `${doc("web")}identities: x: {role: "admin"}\n`,
    });
    assert.equal(r.body.code, "invalid_argument");
    assert.match(String(r.body.message), /identities/);
    assert.equal(await readFile(config, "utf8"), doc("web"));
    assert.deepEqual(await hosts(srv), ["web"]);
  });

  test("PlanConfig says what ApplyConfig would change", async () => {
    const r = await post(srv, `${ADM}PlanConfig`, { cue: doc("db") });
    assert.equal(r.status, 200);
    const objects = (
      r.body.sections as { kind: string; addedNames?: string[]; removedNames?: string[] }[]
    ).find((s) => s.kind === "objects");
    assert.deepEqual(objects?.addedNames, ["db", "db!disk"]);
    assert.deepEqual(objects?.removedNames, ["web", "web!disk"]);
  });

  test("ApplyConfig rewrites the file and swaps the running config; GetConfig serves the file", async () => {
    assert.equal((await post(srv, `${ADM}ApplyConfig`, { cue: doc("db") })).status, 200);
    assert.equal(await readFile(config, "utf8"), doc("db"));
    assert.deepEqual(await hosts(srv), ["db"]);
    assert.deepEqual((await post(srv, `${ADM}GetConfig`, {})).body, { cue: doc("db") });
  });

  test("a role below admin is permission_denied", async () => {
    const r = await post(srv, `${ADM}GetConfig`, {}, OPERATOR);
    assert.equal(r.body.code, "permission_denied");
  });

  test("ListAuditRecords: newest first, limit 0 is 100, above 1000 clamps, since filters", async () => {
    const before = new Date().toISOString();
    // 120 refused writes (an unconfigured host), each audited.
    for (let i = 0; i < 120; i++) {
      await post(
        srv,
        "/svc.v1.CommandService/ProcessCheckResult",
        { host: `nope-${i}`, exitStatus: 0 },
        OPERATOR,
      );
    }
    const list = async (body: unknown) =>
      ((await post(srv, `${ADM}ListAuditRecords`, body)).body.records ?? []) as {
        at: string;
        principal?: { name: string; role: string };
        outcome: string;
        rpc: string;
      }[];
    const dflt = await list({ limit: 0 });
    assert.equal(dflt.length, 100);
    const ats = dflt.map((r) => Date.parse(r.at));
    assert.deepEqual(
      ats,
      [...ats].sort((a, b) => b - a),
      "newest first",
    );
    assert.deepEqual(dflt[0]?.principal, { name: "ops", role: "ROLE_OPERATOR" });
    assert.equal(dflt[0]?.outcome, "AUDIT_OUTCOME_REJECTED");
    assert.ok((await list({ limit: 5000 })).length > 120, "not cut at 100");
    assert.equal((await list({ limit: 7 })).length, 7);
    const since = await list({ since: before, limit: 1000 });
    assert.equal(since.length, 120);
    const all = await list({ limit: 1000 });
    assert.ok(
      all.some((r) => r.rpc === "/svc.v1.AdminService/ApplyConfig" && r.outcome === "AUDIT_OUTCOME_ACCEPTED"),
    );
  });

  test("acknowledging an OK object is failed_precondition; a problem is acknowledged", async () => {
    const cmd = "/svc.v1.CommandService/";
    assert.equal(
      (await post(srv, `${cmd}ProcessCheckResult`, { host: "db", service: "disk", exitStatus: 0 }, OPERATOR))
        .status,
      200,
    );
    assert.equal(
      (await post(srv, `${cmd}ProcessCheckResult`, { host: "db", exitStatus: 2 }, OPERATOR)).status,
      200,
    );
    const target = (service?: string) => ({ object: { host: "db", ...(service ? { service } : {}) } });
    // The results are enqueued; wait until the projection shows them (ListStatus lists PENDING
    // objects too): only then is the acknowledgement judged at once.
    for (let i = 0; ; i++) {
      const s = (await post(srv, "/svc.v1.QueryService/ListStatus", { host: "db" })).body.statuses as {
        state: string;
      }[];
      if (s?.length === 2 && s.every((x) => x.state !== "STATE_PENDING")) break;
      assert.ok(i < 100, "results applied");
      await new Promise((r) => setTimeout(r, 50));
    }
    const ok = await post(srv, `${cmd}AcknowledgeProblem`, { target: target("disk"), author: "a" }, OPERATOR);
    assert.equal(ok.body.code, "failed_precondition");
    assert.match(String(ok.body.message), /db!disk is OK: there is no problem to acknowledge/);
    assert.equal(
      (await post(srv, `${cmd}AcknowledgeProblem`, { target: target(), author: "a" }, OPERATOR)).status,
      200,
    );
    for (let i = 0; ; i++) {
      const again = await post(srv, `${cmd}AcknowledgeProblem`, { target: target(), author: "a" }, OPERATOR);
      if (again.body.code === "failed_precondition") {
        assert.match(String(again.body.message), /already acknowledged/);
        break;
      }
      assert.ok(i < 100, "the acknowledgement became visible");
      await new Promise((r) => setTimeout(r, 50));
    }
  });
});

describe("start-up and reload of the identities", () => {
  const hash = hashPassword("pw");
  const bad: {
    name: string;
    text: () => Promise<string>;
    args?: string[];
    env?: Record<string, string>;
    want: RegExp;
  }[] = [
    { name: "garbage", text: async () => "{{{ not cue", want: /auth\.cue:\d+:\d+: / },
    {
      name: "an unknown role",
      text: async () => 'identities: a: {role: "root"}\n',
      want: /auth\.cue:1:\d+: .*unknown role/,
    },
    {
      name: "a plaintext password",
      text: async () => 'identities: a: {role: "admin", password: "hunter2"}\n',
      want: /auth\.cue:1:\d+: .*not a password hash/,
    },
    {
      name: "a duplicate token",
      text: async () =>
        `identities: {\n\ta: {role: "admin", token_sha256: "${tokenSha256("x")}"}\n\tb: {role: "viewer", token_sha256: "${tokenSha256("x")}"}\n}\n`,
      want: /auth\.cue:3:\d+: .*same token/,
    },
    {
      // A cookie HMAC'd under "x" was forged into an admin session.
      name: "a 1-byte -session-secret",
      text: async () => `identities: a: {role: "admin", password: "${await hash}"}\n`,
      args: ["-session-secret", "x"],
      want: /-session-secret \(or LOOKOUT_SESSION_SECRET\) is 1 bytes: it must be at least 32 random bytes.*openssl rand -base64 48/,
    },
    {
      name: "a 31-byte LOOKOUT_SESSION_SECRET",
      text: async () => `identities: a: {role: "admin", password: "${await hash}"}\n`,
      args: [],
      env: { LOOKOUT_SESSION_SECRET: "x".repeat(31) },
      want: /is 31 bytes: it must be at least 32 random bytes.*openssl rand -base64 48/,
    },
  ];
  for (const c of bad) {
    test(`${c.name} refuses to start, saying where`, async () => {
      const sub = await mkdtemp(join(dir, "bad-"));
      await writeFile(join(sub, "auth.cue"), await c.text());
      const r = await runLookout(
        [
          "-listen",
          "127.0.0.1:0",
          "-auth-config",
          "auth.cue",
          ...(c.args ?? ["-session-secret", SECRET]),
          "-data-dir",
          "d",
        ],
        { cwd: sub, env: { PATH: process.env.PATH ?? "/usr/bin:/bin", ...c.env }, timeoutMs: 60_000 },
      );
      assert.equal(r.code, 1, r.stderr);
      assert.match(r.stderr, c.want);
      assert.doesNotMatch(r.stderr, /xxxx|"x"/, "the secret is never quoted");
    });
  }

  test("a short -session-secret is refused without -auth-config too", async () => {
    const r = await runLookout(["-listen", "127.0.0.1:0", "-session-secret", "short", "-data-dir", "d"], {
      cwd: await mkdtemp(join(dir, "short-")),
      timeoutMs: 60_000,
    });
    assert.equal(r.code, 1, r.stderr);
    assert.match(r.stderr, /is 5 bytes: .*openssl rand -base64 48/);
    assert.doesNotMatch(r.stderr, /short/);
  });

  test("without -session-secret: a random secret, said at warn level; sessions end with the process", async () => {
    const sub = await mkdtemp(join(dir, "random-"));
    await writeFile(join(sub, "auth.cue"), `identities: me: {role: "viewer", password: "${await hash}"}\n`);
    const args = ["-auth-config", "auth.cue", "-data-dir", "d"];
    const loginCookie = async (srv: ServerProcess) => {
      const res = await fetch(`${srv.url}/auth/login`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ name: "me", password: "pw" }),
      });
      assert.equal(res.status, 200);
      return (res.headers.get("set-cookie") ?? "").split(";")[0] as string;
    };
    const info = async (srv: ServerProcess, cookie: string) =>
      (
        await fetch(`${srv.url}/svc.v1.QueryService/GetServerInfo`, {
          method: "POST",
          headers: { "content-type": "application/json", cookie },
          body: "{}",
        })
      ).status;
    let srv = await startServer(args, { cwd: sub });
    let cookie: string;
    try {
      const warn = srv
        .stderr()
        .split("\n")
        .find((l) => l.includes("no -session-secret"));
      assert.ok(warn, srv.stderr());
      assert.match(warn, /"level":"warn"/);
      assert.match(warn, /every session ends when this process stops/);
      cookie = await loginCookie(srv);
      assert.equal(await info(srv, cookie), 200);
    } finally {
      await srv.stop();
    }
    srv = await startServer(args, { cwd: sub });
    try {
      assert.equal(await info(srv, cookie), 401, "a session of the previous process is not valid");
    } finally {
      await srv.stop();
    }
  });

  test("SIGHUP reloads the identities; a rejected document keeps the old ones", async () => {
    const file = join(dir, "reload-auth.cue");
    await writeFile(file, identities());
    const srv = await startServer([
      "-auth-config",
      file,
      "-session-secret",
      SECRET,
      "-data-dir",
      join(dir, "d-reload"),
    ]);
    const info = (token: string) => post(srv, "/svc.v1.QueryService/GetServerInfo", {}, token);
    const hup = async (want: RegExp) => {
      const seen = srv.stderr().length;
      srv.child.kill("SIGHUP");
      for (let i = 0; !want.test(srv.stderr().slice(seen)); i++) {
        assert.ok(i < 200, `log ${want}`);
        await new Promise((r) => setTimeout(r, 50));
      }
    };
    try {
      assert.equal((await info(ADMIN)).status, 200);
      await writeFile(file, "garbage {{{");
      await hup(/identities reload rejected/);
      assert.equal((await info(ADMIN)).status, 200, "the old identities keep serving");
      await writeFile(file, `identities: newbie: {role: "viewer", token_sha256: "${tokenSha256("new")}"}\n`);
      await hup(/identities reloaded/);
      assert.equal((await info("new")).status, 200);
      assert.equal((await info(ADMIN)).body.code, "unauthenticated", "a removed identity is gone at once");
    } finally {
      await srv.stop();
    }
  });

  test("lookout auth hash-password and mint-token", async () => {
    const hashed = await new Promise<string>((resolve) => {
      const p = spawn(process.execPath, [MAIN_JS, "auth", "hash-password"], {
        stdio: ["pipe", "pipe", "inherit"],
      });
      let out = "";
      p.stdout.on("data", (c: Buffer) => {
        out += c.toString();
      });
      p.once("close", () => resolve(out.trim()));
      p.stdin.end("s3cret\n");
    });
    assert.match(hashed, /^\$scrypt\$ln=14,r=8,p=1\$[A-Za-z0-9+/]+\$[A-Za-z0-9+/]+$/);
    const minted = await runLookout(["auth", "mint-token"]);
    assert.equal(minted.code, 0);
    const m = /^token: (\S+)\ntoken_sha256: "([0-9a-f]{64})"\n$/.exec(minted.stdout);
    assert.ok(m, minted.stdout);
    assert.equal(tokenSha256(m[1] as string), m[2]);
    // Both go straight into a document the server accepts, and the login works.
    const sub = await mkdtemp(join(dir, "cli-"));
    await writeFile(
      join(sub, "auth.cue"),
      `identities: me: {role: "viewer", token_sha256: "${m[2]}", password: "${hashed}"}\n`,
    );
    const srv = await startServer(["-auth-config", "auth.cue", "-session-secret", SECRET, "-data-dir", "d"], {
      cwd: sub,
    });
    try {
      assert.equal((await post(srv, "/svc.v1.QueryService/GetServerInfo", {}, m[1])).status, 200);
      const login = await fetch(`${srv.url}/auth/login`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ name: "me", password: "s3cret" }),
      });
      assert.equal(login.status, 200);
      assert.match(
        login.headers.get("set-cookie") ?? "",
        /^lookout_session=[^;]+; Path=\/; HttpOnly; SameSite=Strict; Max-Age=43200$/,
      );
    } finally {
      await srv.stop();
    }
  });
});
