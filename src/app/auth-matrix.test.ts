import assert from "node:assert/strict";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import {
  type DescMessage,
  type DescService,
  fromBinary,
  fromJson,
  type JsonObject,
  toBinary,
} from "@bufbuild/protobuf";
import * as grpc from "@grpc/grpc-js";
import { AdminService } from "../api/gen/svc/v1/admin_service_pb.js";
import { CommandService } from "../api/gen/svc/v1/command_service_pb.js";
import { QueryService } from "../api/gen/svc/v1/query_service_pb.js";
import {
  createSessions,
  hashPassword,
  type Role,
  roleAtLeast,
  SESSION_COOKIE,
  tokenSha256,
} from "../auth/index.js";
import { FakeClock } from "../testing/fake-clock.js";
import { type ServerProcess, startServer } from "../testing/server-process.js";

// The auth matrix: every RPC x every kind of credential x every server setting, over Connect JSON
// and gRPC, against the real binary. Each setting's server is started once and every cell runs
// against it; the expected code of a cell comes from the rules of docs/auth.md (expected() below),
// written out independently of src/auth.

const API_TOKEN = "matrix-api-token";
const SECRET = "matrix-session-secret-0123456789-abcdef";
const PASSWORD = "correct horse";
const TOKENS: Record<Exclude<Role, never>, string> = {
  viewer: "tok-viewer",
  operator: "tok-operator",
  admin: "tok-admin",
};
const CONFIG = `hosts: web: {
	address: "127.0.0.1"
	check: {type: "passive", freshness_threshold: "1h"}
	services: bad: check: {type: "passive", freshness_threshold: "1h"}
}
`;

type Setting =
  | "none"
  | "api-token"
  | "auth-config"
  | "read-only"
  | "auth-config+api-token"
  | "auth-config+read-only";
const SETTINGS: readonly Setting[] = [
  "none",
  "api-token",
  "auth-config",
  "read-only",
  "auth-config+api-token",
  "auth-config+read-only",
];
type Cred =
  | "none"
  | "bad token"
  | "api-token"
  | "viewer"
  | "operator"
  | "admin"
  | "valid session"
  | "expired session"
  | "forged cookie";
const CREDS: readonly Cred[] = [
  "none",
  "bad token",
  "api-token",
  "viewer",
  "operator",
  "admin",
  "valid session",
  "expired session",
  "forged cookie",
];

interface Rpc {
  readonly service: DescService;
  readonly name: string;
  readonly request: () => JsonObject;
  /** What a caller who may use it gets. */
  readonly allowed: string;
}
const soon = () => new Date(Date.now() + 3_600_000).toISOString();
const RPCS: readonly Rpc[] = [
  { service: QueryService, name: "ListStatus", request: () => ({}), allowed: "ok" },
  { service: QueryService, name: "ListHistory", request: () => ({}), allowed: "ok" },
  { service: QueryService, name: "ListPerfdata", request: () => ({ host: "web" }), allowed: "ok" },
  { service: QueryService, name: "ListObjects", request: () => ({}), allowed: "ok" },
  { service: QueryService, name: "ListContacts", request: () => ({}), allowed: "ok" },
  { service: QueryService, name: "ListViews", request: () => ({}), allowed: "ok" },
  { service: QueryService, name: "ListSinks", request: () => ({}), allowed: "ok" },
  { service: QueryService, name: "GetServerInfo", request: () => ({}), allowed: "ok" },
  { service: QueryService, name: "ListWorkers", request: () => ({}), allowed: "ok" },
  { service: QueryService, name: "ListDowntimes", request: () => ({}), allowed: "ok" },
  { service: QueryService, name: "ListComments", request: () => ({}), allowed: "ok" },
  {
    service: CommandService,
    name: "ProcessCheckResult",
    request: () => ({ host: "web", exitStatus: 0, output: "UP" }),
    allowed: "ok",
  },
  {
    service: CommandService,
    name: "ProcessCheckResults",
    request: () => ({ results: [{ host: "web", exitStatus: 0, output: "UP" }] }),
    allowed: "ok",
  },
  {
    service: CommandService,
    name: "AcknowledgeProblem",
    // An object that is not configured: refused after the gate whatever the state (whether an
    // object has a problem, or is acknowledged, would make the answer depend on the order of cells).
    request: () => ({ target: { object: { host: "web", service: "nope" } }, author: "m", comment: "c" }),
    allowed: "not_found",
  },
  {
    service: CommandService,
    name: "RemoveAcknowledgement",
    request: () => ({ target: { object: { host: "web", service: "nope" } } }),
    allowed: "not_found",
  },
  {
    service: CommandService,
    name: "ScheduleDowntime",
    request: () => ({ target: { object: { host: "web" } }, start: new Date().toISOString(), end: soon() }),
    allowed: "ok",
  },
  { service: CommandService, name: "DeleteDowntime", request: () => ({ id: "nope" }), allowed: "not_found" },
  {
    service: CommandService,
    name: "AddComment",
    request: () => ({ object: { host: "web" }, author: "m", comment: "c" }),
    allowed: "ok",
  },
  { service: CommandService, name: "DeleteComment", request: () => ({ id: "nope" }), allowed: "not_found" },
  {
    service: CommandService,
    name: "SetObjectFlags",
    // Turning a switch on that is on changes nothing: every cell that is let in may run it.
    request: () => ({ target: { object: { host: "web" } }, notifications: true }),
    allowed: "ok",
  },
  { service: AdminService, name: "ValidateConfig", request: () => ({ cue: CONFIG }), allowed: "ok" },
  { service: AdminService, name: "ApplyConfig", request: () => ({ cue: CONFIG }), allowed: "ok" },
  { service: AdminService, name: "GetConfig", request: () => ({}), allowed: "ok" },
  { service: AdminService, name: "ListAuditRecords", request: () => ({}), allowed: "ok" },
  { service: AdminService, name: "PlanConfig", request: () => ({ cue: CONFIG }), allowed: "ok" },
  // Version 1 is the document loaded at startup, the one every ApplyConfig cell applies again.
  { service: AdminService, name: "ListConfigVersions", request: () => ({}), allowed: "ok" },
  { service: AdminService, name: "GetConfig", request: () => ({ version: "1" }), allowed: "ok" },
  { service: AdminService, name: "DiffConfig", request: () => ({ fromVersion: "1" }), allowed: "ok" },
  { service: AdminService, name: "RollbackConfig", request: () => ({ version: "1" }), allowed: "ok" },
];

/** The rules, as docs/auth.md states them. */
function expected(setting: Setting, cred: Cred, rpc: Rpc): string {
  const identities = setting.startsWith("auth-config");
  const readOnly = setting.endsWith("read-only");
  const apiToken = setting.endsWith("api-token");
  const surface =
    rpc.service === QueryService ? "query" : rpc.service === CommandService ? "command" : "admin";
  if (surface === "command" && readOnly) return "unimplemented";
  if (surface === "admin" && (readOnly || !identities)) return "unimplemented";
  if (!identities) {
    if (surface !== "command" || !apiToken) return rpc.allowed;
    if (cred === "api-token") return rpc.allowed;
    return "unauthenticated";
  }
  const role: Role | undefined = (() => {
    switch (cred) {
      case "viewer":
      case "operator":
      case "admin":
        return cred;
      case "valid session":
        return "operator";
      case "api-token":
        return apiToken ? "operator" : undefined;
      default:
        return undefined;
    }
  })();
  if (role === undefined) return "unauthenticated";
  const need: Role = surface === "query" ? "viewer" : surface === "command" ? "operator" : "admin";
  return roleAtLeast(role, need) ? rpc.allowed : "permission_denied";
}

const GRPC_NAMES: Record<number, string> = {
  [grpc.status.OK]: "ok",
  [grpc.status.INVALID_ARGUMENT]: "invalid_argument",
  [grpc.status.NOT_FOUND]: "not_found",
  [grpc.status.PERMISSION_DENIED]: "permission_denied",
  [grpc.status.UNAUTHENTICATED]: "unauthenticated",
  [grpc.status.UNIMPLEMENTED]: "unimplemented",
  [grpc.status.FAILED_PRECONDITION]: "failed_precondition",
  [grpc.status.INTERNAL]: "internal",
};

let dir: string;
let sessionCookie = "";
let expiredCookie = "";
let forgedCookie = "";
before(async () => {
  dir = await mkdtemp(join(tmpdir(), "lookout-matrix-"));
  const hash = await hashPassword(PASSWORD);
  const lines = Object.entries(TOKENS).map(
    ([role, token]) =>
      `\t${role}: {role: "${role}", token_sha256: "${tokenSha256(token)}", password: "${hash}"}`,
  );
  await writeFile(join(dir, "auth.cue"), `identities: {\n${lines.join("\n")}\n}\n`);
  // An expired session: signed with the right secret, but its 12 hours ended yesterday.
  const past = new FakeClock(Date.now() - 36 * 3_600_000);
  expiredCookie = createSessions(SECRET, past).issue("operator").value;
  // A forged one: a session for admin that never expires, signed with another secret.
  forgedCookie = createSessions("not-the-secret", new FakeClock(Date.now())).issue("admin").value;
});
after(async () => {
  await rm(dir, { recursive: true, force: true });
});

function headers(cred: Cred): Record<string, string> {
  switch (cred) {
    case "none":
      return {};
    case "bad token":
      return { authorization: "Bearer not-a-token" };
    case "api-token":
      return { authorization: `Bearer ${API_TOKEN}` };
    case "viewer":
    case "operator":
    case "admin":
      return { authorization: `Bearer ${TOKENS[cred]}` };
    case "valid session":
      return { cookie: `${SESSION_COOKIE}=${sessionCookie}` };
    case "expired session":
      return { cookie: `${SESSION_COOKIE}=${expiredCookie}` };
    case "forged cookie":
      return { cookie: `${SESSION_COOKIE}=${forgedCookie}` };
    default: {
      const never: never = cred;
      throw new Error(String(never));
    }
  }
}

async function connectJson(url: string, rpc: Rpc, cred: Cred): Promise<string> {
  const res = await fetch(`${url}/${rpc.service.typeName}/${rpc.name}`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers(cred) },
    body: JSON.stringify(rpc.request()),
  });
  const text = await res.text();
  if (res.status === 200) return "ok";
  // A route that does not exist is a plain 404, which Connect clients read as unimplemented.
  if (res.status === 404 && !text.startsWith("{")) return "unimplemented";
  return (JSON.parse(text) as { code: string }).code;
}

function grpcCall(client: grpc.Client, rpc: Rpc, cred: Cred): Promise<string> {
  const method = rpc.service.methods.find((m) => m.name === rpc.name);
  if (method === undefined) throw new Error(rpc.name);
  const input: DescMessage = method.input;
  const md = new grpc.Metadata();
  for (const [k, v] of Object.entries(headers(cred))) md.set(k, v);
  return new Promise((resolve) => {
    client.makeUnaryRequest(
      `/${rpc.service.typeName}/${rpc.name}`,
      (m: JsonObject) => Buffer.from(toBinary(input, fromJson(input, m))),
      (b: Buffer) => fromBinary(method.output, b),
      rpc.request(),
      md,
      (err) => resolve(err === null ? "ok" : (GRPC_NAMES[err.code ?? -1] ?? `grpc ${err.code}`)),
    );
  });
}

/** Runs `tasks` with at most `n` at once. */
async function pool<T>(n: number, tasks: (() => Promise<T>)[]): Promise<T[]> {
  const out: T[] = new Array(tasks.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: n }, async () => {
      while (next < tasks.length) {
        const i = next++;
        out[i] = await (tasks[i] as () => Promise<T>)();
      }
    }),
  );
  return out;
}

function args(setting: Setting): string[] {
  const out: string[] = ["-config", join(dir, `${setting}.cue`), "-data-dir", join(dir, `data-${setting}`)];
  if (setting.startsWith("auth-config"))
    out.push("-auth-config", join(dir, "auth.cue"), "-session-secret", SECRET);
  if (setting.endsWith("read-only")) out.push("-read-only");
  if (setting.endsWith("api-token")) out.push("-api-token", API_TOKEN);
  return out;
}

describe("auth matrix", () => {
  for (const setting of SETTINGS) {
    describe(setting, () => {
      let srv: ServerProcess;
      let client: grpc.Client;
      before(async () => {
        await writeFile(join(dir, `${setting}.cue`), CONFIG);
        srv = await startServer(args(setting));
        client = new grpc.Client(`127.0.0.1:${srv.port}`, grpc.credentials.createInsecure());
        if (setting.startsWith("auth-config")) {
          // A real login, as the dashboard does it.
          const res = await fetch(`${srv.url}/auth/login`, {
            method: "POST",
            headers: { "content-type": "application/json" },
            body: JSON.stringify({ name: "operator", password: PASSWORD }),
          });
          assert.equal(res.status, 200);
          const m = new RegExp(`${SESSION_COOKIE}=([^;]+)`).exec(res.headers.get("set-cookie") ?? "");
          assert.ok(m, "login sets the session cookie");
          sessionCookie = m[1] as string;
        }
      });
      after(async () => {
        client.close();
        assert.equal(await srv.stop(), 0);
        assert.doesNotMatch(srv.stderr(), new RegExp(`${API_TOKEN}|tok-admin|${SECRET}|${PASSWORD}`));
      });

      for (const [protocol, call] of [
        ["Connect JSON", (rpc: Rpc, cred: Cred) => connectJson(srv.url, rpc, cred)],
        ["gRPC", (rpc: Rpc, cred: Cred) => grpcCall(client, rpc, cred)],
      ] as const) {
        test(protocol, async () => {
          const cells = RPCS.flatMap((rpc) => CREDS.map((cred) => ({ rpc, cred })));
          const got = await pool(
            8,
            cells.map((c) => () => call(c.rpc, c.cred)),
          );
          const wrong = cells
            .map((c, i) => ({
              cell: `${c.rpc.name} x ${c.cred}`,
              want: expected(setting, c.cred, c.rpc),
              got: got[i],
            }))
            .filter((r) => r.want !== r.got);
          assert.deepEqual(wrong, [], `${wrong.length} of ${cells.length} cells differ`);
        });
      }
    });
  }
});
