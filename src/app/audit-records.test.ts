import assert from "node:assert/strict";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { isDeepStrictEqual } from "node:util";
import { gzipSync } from "node:zlib";
import { type DescService, fromBinary, fromJson, type JsonObject, toBinary } from "@bufbuild/protobuf";
import * as grpc from "@grpc/grpc-js";
import { CommandService } from "../api/gen/svc/v1/command_service_pb.js";
import { hashPassword, tokenSha256 } from "../auth/index.js";
import { bufCurl } from "../testing/clients.js";
import { type ServerProcess, startServer } from "../testing/server-process.js";

// Audit records say who and what, on every path and protocol, read back with ListAuditRecords
// from the real binary: the principal the gate resolved (also when it refused), the reason the
// client was given, and the objects of ProcessCheckResult(s) — for a batch its count and first 10.

const TOKENS = { viewer: "audit-viewer-token", operator: "audit-operator-token", admin: "audit-admin-token" };
const PASSWORD = "correct horse battery staple";
const SECRET = "audit-test-session-secret-of-32+bytes";
const SERVICES = Array.from({ length: 12 }, (_, i) => `s${String(i).padStart(2, "0")}`);
const PASSIVE = `check: {type: "passive", freshness_threshold: "1h"}`;
const CONFIG = `hosts: web: {
	address: "127.0.0.1"
	${PASSIVE}
	services: {
${SERVICES.map((s) => `\t\t${s}: ${PASSIVE}`).join("\n")}
	}
}
`;

type Protocol = "Connect JSON" | "gRPC" | "gRPC-Web" | "Connect JSON gzip";
/** Connect JSON and gRPC are served by the fast paths; gRPC-Web and compressed bodies by the router. */
const PROTOCOLS: readonly Protocol[] = ["Connect JSON", "gRPC", "gRPC-Web", "Connect JSON gzip"];

interface AuditRecord {
  principal?: { name: string; role: string };
  peer: string;
  rpc: string;
  commandJson: string;
  outcome: string;
  reason?: string;
}

interface Case {
  readonly name: string;
  readonly method: string;
  readonly request: JsonObject;
  readonly token: string | undefined;
  /** The code the client gets. */
  readonly code: string;
  /** What the newest record holds. */
  readonly record: {
    principal?: { name: string; role: string };
    outcome: "AUDIT_OUTCOME_ACCEPTED" | "AUDIT_OUTCOME_REJECTED";
    reason?: string;
    command: unknown;
  };
}

const objects = (services: readonly string[]) => services.map((s) => ({ Host: "web", Service: s }));
const OPERATOR = { name: "operator", role: "ROLE_OPERATOR" };
const VIEWER = { name: "viewer", role: "ROLE_VIEWER" };

const CASES: readonly Case[] = [
  {
    name: "one result",
    method: "ProcessCheckResult",
    request: { host: "web", service: "s00", exitStatus: 2, output: "CRITICAL" },
    token: TOKENS.operator,
    code: "ok",
    record: {
      principal: OPERATOR,
      outcome: "AUDIT_OUTCOME_ACCEPTED",
      command: { Type: "ProcessCheckResult", Host: "web", Service: "s00" },
    },
  },
  {
    name: "a host's result",
    method: "ProcessCheckResult",
    request: { host: "web", exitStatus: 0, output: "UP" },
    token: TOKENS.operator,
    code: "ok",
    record: {
      principal: OPERATOR,
      outcome: "AUDIT_OUTCOME_ACCEPTED",
      command: { Type: "ProcessCheckResult", Host: "web" },
    },
  },
  {
    name: "a batch of 12: its count and first 10 objects",
    method: "ProcessCheckResults",
    request: { results: SERVICES.map((s) => ({ host: "web", service: s, exitStatus: 0, output: "OK" })) },
    token: TOKENS.operator,
    code: "ok",
    record: {
      principal: OPERATOR,
      outcome: "AUDIT_OUTCOME_ACCEPTED",
      command: { Type: "ProcessCheckResults", Count: 12, Objects: objects(SERVICES.slice(0, 10)) },
    },
  },
  {
    name: "a refused batch: the reason the client got, and its objects",
    method: "ProcessCheckResults",
    request: {
      results: [
        { host: "web", service: "s01", exitStatus: 0 },
        { host: "web", service: "nope", exitStatus: 0 },
      ],
    },
    token: TOKENS.operator,
    code: "not_found",
    record: {
      principal: OPERATOR,
      outcome: "AUDIT_OUTCOME_REJECTED",
      reason: 'results[1]: service "nope" is not configured on host "web"',
      command: { Type: "ProcessCheckResults", Count: 2, Objects: objects(["s01", "nope"]) },
    },
  },
  {
    name: "a viewer's result, refused for its role: the viewer is named",
    method: "ProcessCheckResult",
    request: { host: "web", service: "s00", exitStatus: 0 },
    token: TOKENS.viewer,
    code: "permission_denied",
    record: {
      principal: VIEWER,
      outcome: "AUDIT_OUTCOME_REJECTED",
      reason: "role viewer may not use this service: it needs operator",
      command: { Type: "ProcessCheckResult" },
    },
  },
  {
    name: "a viewer's acknowledgement, refused for its role",
    method: "AcknowledgeProblem",
    request: { target: { object: { host: "web", service: "s00" } }, author: "v", comment: "c" },
    token: TOKENS.viewer,
    code: "permission_denied",
    record: {
      principal: VIEWER,
      outcome: "AUDIT_OUTCOME_REJECTED",
      reason: "role viewer may not use this service: it needs operator",
      command: { Type: "AcknowledgeProblem" },
    },
  },
  {
    name: "a token that names no one",
    method: "ProcessCheckResults",
    request: { results: [{ host: "web", service: "s00", exitStatus: 0 }] },
    token: "not-a-token",
    code: "unauthenticated",
    record: {
      outcome: "AUDIT_OUTCOME_REJECTED",
      reason: "invalid bearer token",
      command: { Type: "ProcessCheckResults" },
    },
  },
];

const GRPC_CODES: { [code: number]: string } = {
  [grpc.status.OK]: "ok",
  [grpc.status.NOT_FOUND]: "not_found",
  [grpc.status.PERMISSION_DENIED]: "permission_denied",
  [grpc.status.UNAUTHENTICATED]: "unauthenticated",
  [grpc.status.INVALID_ARGUMENT]: "invalid_argument",
};

let dir: string;
let srv: ServerProcess;
let client: grpc.Client;
before(async () => {
  dir = await mkdtemp(join(tmpdir(), "lookout-audit-records-"));
  const hash = await hashPassword(PASSWORD);
  const lines = Object.entries(TOKENS).map(
    ([role, token]) =>
      `\t${role}: {role: "${role}", token_sha256: "${tokenSha256(token)}", password: "${hash}"}`,
  );
  await writeFile(join(dir, "auth.cue"), `identities: {\n${lines.join("\n")}\n}\n`);
  await writeFile(join(dir, "c.cue"), CONFIG);
  srv = await startServer([
    "-config",
    join(dir, "c.cue"),
    "-auth-config",
    join(dir, "auth.cue"),
    "-session-secret",
    SECRET,
    "-data-dir",
    join(dir, "data"),
  ]);
  client = new grpc.Client(`127.0.0.1:${srv.port}`, grpc.credentials.createInsecure());
});
after(async () => {
  client.close();
  assert.equal(await srv.stop(), 0);
  await rm(dir, { recursive: true, force: true });
});

const authorization = (token: string | undefined): { [k: string]: string } =>
  token === undefined ? {} : { authorization: `Bearer ${token}` };

async function call(protocol: Protocol, service: DescService, c: Case): Promise<string> {
  const path = `/${service.typeName}/${c.method}`;
  switch (protocol) {
    case "Connect JSON":
    case "Connect JSON gzip": {
      const json = JSON.stringify(c.request);
      const gzip = protocol === "Connect JSON gzip";
      const res = await fetch(`${srv.url}${path}`, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          ...(gzip ? { "content-encoding": "gzip" } : {}),
          ...authorization(c.token),
        },
        body: gzip ? gzipSync(json) : json,
      });
      const text = await res.text();
      return res.status === 200 ? "ok" : (JSON.parse(text) as { code: string }).code;
    }
    case "gRPC": {
      const method = service.methods.find((m) => m.name === c.method);
      if (method === undefined) throw new Error(c.method);
      const md = new grpc.Metadata();
      for (const [k, v] of Object.entries(authorization(c.token))) md.set(k, v);
      return new Promise((resolve) => {
        client.makeUnaryRequest(
          path,
          (m: JsonObject) => Buffer.from(toBinary(method.input, fromJson(method.input, m))),
          (b: Buffer) => fromBinary(method.output, b),
          c.request,
          md,
          (err) => resolve(err === null ? "ok" : (GRPC_CODES[err.code ?? -1] ?? `grpc ${err.code}`)),
        );
      });
    }
    case "gRPC-Web": {
      const headers = Object.entries(authorization(c.token)).flatMap(([k, v]) => ["-H", `${k}: ${v}`]);
      const r = await bufCurl([
        "--protocol",
        "grpcweb",
        ...headers,
        "-d",
        JSON.stringify(c.request),
        srv.url + path,
      ]);
      if (r.code === 0) return "ok";
      // buf curl prints the error as JSON: {"code": "not_found", "message": ...}.
      return (JSON.parse(r.stderr.slice(r.stderr.indexOf("{"))) as { code: string }).code;
    }
    default: {
      const never: never = protocol;
      throw new Error(String(never));
    }
  }
}

async function newest(): Promise<AuditRecord> {
  const res = await fetch(`${srv.url}/svc.v1.AdminService/ListAuditRecords`, {
    method: "POST",
    headers: { "content-type": "application/json", ...authorization(TOKENS.admin) },
    body: JSON.stringify({ limit: 1 }),
  });
  assert.equal(res.status, 200);
  const [r] = ((await res.json()) as { records?: AuditRecord[] }).records ?? [];
  assert.ok(r !== undefined, "a record");
  return r;
}

describe("audit records", () => {
  for (const protocol of PROTOCOLS) {
    test(protocol, async () => {
      const wrong: unknown[] = [];
      for (const c of CASES) {
        const code = await call(protocol, CommandService, c);
        const r = await newest();
        const got = {
          code,
          rpc: r.rpc,
          principal: r.principal,
          outcome: r.outcome,
          reason: r.reason,
          command: JSON.parse(r.commandJson) as unknown,
        };
        const want = {
          code: c.code,
          rpc: `/svc.v1.CommandService/${c.method}`,
          principal: c.record.principal,
          outcome: c.record.outcome,
          reason: c.record.reason,
          command: c.record.command,
        };
        assert.match(r.peer, /^127\.0\.0\.1:\d+$/);
        if (!isDeepStrictEqual(got, want)) wrong.push({ case: c.name, got, want });
      }
      assert.deepEqual(wrong, []);
    });
  }

  test("a failed login: the reason the client was given", async () => {
    for (const [name, password] of [
      ["operator", "wrong"],
      ["nobody", PASSWORD],
    ] as const) {
      const res = await fetch(`${srv.url}/auth/login`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ name, password }),
      });
      assert.equal(res.status, 401);
      const r = await newest();
      assert.deepEqual(
        {
          rpc: r.rpc,
          principal: r.principal,
          outcome: r.outcome,
          reason: r.reason,
          command: JSON.parse(r.commandJson),
        },
        {
          rpc: "/auth/login",
          principal: undefined,
          outcome: "AUDIT_OUTCOME_REJECTED",
          reason: "wrong name or password",
          command: { Type: "Login", Name: name },
        },
      );
    }
    const res = await fetch(`${srv.url}/auth/login`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ name: "operator", password: PASSWORD }),
    });
    assert.equal(res.status, 200);
    const r = await newest();
    assert.deepEqual([r.principal, r.outcome], [OPERATOR, "AUDIT_OUTCOME_ACCEPTED"]);
  });
});
