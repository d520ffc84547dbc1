import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import net from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { promisify } from "node:util";
import { gzipSync } from "node:zlib";
import { create, toBinary } from "@bufbuild/protobuf";
import { Code, ConnectError, createClient } from "@connectrpc/connect";
import { createConnectTransport } from "@connectrpc/connect-node";
import { createMetricsRegistry } from "../app/metrics.js";
import type { Identities, Identity } from "../auth/identities.js";
import { createAuthGate, tokenSha256 } from "../auth/index.js";
import { Core } from "../core/core.js";
import { fleetConfig } from "../core/fleet-config.js";
import { silentLogger } from "../model/logger.js";
import { FakeClock } from "../testing/fake-clock.js";
import type { ApiAudit } from "./api-audit.js";
import { createCommandService } from "./command-service.js";
import { CommandService, ProcessCheckResultsRequestSchema } from "./gen/svc/v1/command_service_pb.js";
import { createHttpHandler } from "./http-handler.js";
import { DualProtocolServer, type RequestHandler } from "./listener.js";
import { createQueryService } from "./query-service.js";

// The raw HTTP/1.1 path must answer exactly as node's HTTP server with the same fast path behind it
// did. Every case is sent, as the same bytes on one connection, to two servers over the same Core —
// one with the raw path, one without (h1FastPath: false) — and the answers must be equal byte for
// byte (the Date header's value aside); the audit records of the two must be equal too.

const LIMIT = 64 * 1024;
const OPERATOR = "op-token";
const VIEWER = "view-token";
const config = fleetConfig({ hosts: 3, servicesPerHost: 2, maxAttempts: 1 });
let core: Core;
let dir: string;
const servers: DualProtocolServer[] = [];

interface Served {
  port: number;
  handler: RequestHandler;
  audit: string[];
}
const plain: Record<"raw" | "node", Served | undefined> = { raw: undefined, node: undefined };
const guarded: Record<"raw" | "node", Served | undefined> = { raw: undefined, node: undefined };

const identity = (name: string, role: Identity["role"], token: string): Identity => ({
  name,
  role,
  tokenSha256: tokenSha256(token),
});
const people = [identity("ops", "operator", OPERATOR), identity("eve", "viewer", VIEWER)];
const identities: Identities = {
  byName: new Map(people.map((p) => [p.name, p])),
  byToken: new Map(people.map((p) => [p.tokenSha256 as string, p])),
};

async function serve(raw: boolean, guard: boolean): Promise<Served> {
  const audit: string[] = [];
  const recorder: ApiAudit = {
    call(caller, rpc, command, error) {
      // The peer's port differs from connection to connection: the address is kept.
      const peer = caller.peer.replace(/:\d+$/, "");
      audit.push(
        JSON.stringify({ ...caller, peer, rpc, command, error: error === undefined ? null : String(error) }),
      );
    },
  };
  const handler = createHttpHandler({
    readOnly: false,
    authConfigured: guard,
    gate: guard
      ? createAuthGate({ apiToken: "", identities: () => identities })
      : createAuthGate({ apiToken: "" }),
    audit: recorder,
    query: createQueryService({ version: "dev", core }),
    command: createCommandService({ core, audit: recorder }),
    admin: {},
    metrics: createMetricsRegistry("dev"),
    page: () => "",
    logger: silentLogger,
    readMaxBytes: LIMIT,
    allowHost: (host) => host === undefined || !host.startsWith("attacker.example"),
    h1FastPath: raw,
  });
  const server = new DualProtocolServer(handler);
  servers.push(server);
  return { port: (await server.listen(0, "127.0.0.1")).port, handler, audit };
}

before(async () => {
  dir = mkdtempSync(join(tmpdir(), "lookout-h1-fast-path-"));
  core = await Core.open({ dataDir: dir, config, clock: new FakeClock(Date.UTC(2026, 0, 1)) });
  plain.raw = await serve(true, false);
  plain.node = await serve(false, false);
  guarded.raw = await serve(true, true);
  guarded.node = await serve(false, true);
});
after(async () => {
  for (const s of servers) await s.close();
  await core.close();
  rmSync(dir, { recursive: true, force: true });
});

const ONE = "/svc.v1.CommandService/ProcessCheckResult";
const BATCH = "/svc.v1.CommandService/ProcessCheckResults";

/** A request's bytes: `head` lines after the request line, then the body (Content-Length added unless given). */
function request(
  path: string,
  body: string | Uint8Array,
  head: string[] = ["Content-Type: application/json"],
  { line = `POST ${path} HTTP/1.1`, host = "Host: 127.0.0.1", length = true } = {},
): Buffer {
  const bytes = typeof body === "string" ? Buffer.from(body) : Buffer.from(body);
  const lines = [line, ...(host === "" ? [] : [host]), ...head];
  if (length) lines.push(`Content-Length: ${bytes.length}`);
  return Buffer.concat([Buffer.from(`${lines.join("\r\n")}\r\n\r\n`, "latin1"), bytes]);
}

/** A request with a chunked body of `chunks`. */
function chunked(
  path: string,
  chunks: string[],
  o: { size?: (n: number) => string; trailer?: string; head?: string[] } = {},
): Buffer {
  const size = o.size ?? ((n: number) => n.toString(16));
  const body = `${chunks.map((c) => `${size(Buffer.byteLength(c))}\r\n${c}\r\n`).join("")}0\r\n${o.trailer ?? ""}\r\n`;
  return request(
    path,
    body,
    ["Content-Type: application/json", "Transfer-Encoding: chunked", ...(o.head ?? [])],
    {
      length: false,
    },
  );
}

/**
 * Sends `parts` on one connection (each written on its own turn) and reads until the server closes
 * the connection or goes quiet after `answers` answers; the answers as text, Date values masked.
 */
function exchange(port: number, parts: Buffer[], answers: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, "127.0.0.1");
    const chunks: Buffer[] = [];
    let done = false;
    const finish = (): void => {
      if (done) return;
      done = true;
      socket.destroy();
      resolve(
        Buffer.concat(chunks)
          .toString("latin1")
          .replace(/\r\nDate: [^\r]*/g, "\r\nDate: -"),
      );
    };
    let quiet: NodeJS.Timeout | undefined;
    socket.on("data", (c: Buffer) => {
      chunks.push(c);
      const seen =
        Buffer.concat(chunks)
          .toString("latin1")
          .match(/HTTP\/1\.[01] \d{3} /g)?.length ?? 0;
      if (seen >= answers) {
        // Anything after the last answer would show as a difference too.
        clearTimeout(quiet);
        quiet = setTimeout(finish, 150);
      }
    });
    socket.on("close", finish);
    socket.on("error", reject);
    socket.on("connect", async () => {
      for (const p of parts) {
        socket.write(p);
        await new Promise((r) => setImmediate(r));
      }
    });
  });
}

interface Case {
  readonly name: string;
  /** The bytes written, each element on its own turn. */
  readonly parts: Buffer[];
  /** Answers expected on the connection. */
  readonly answers: number;
  /** How many of its requests the raw path serves (the rest are node's). */
  readonly raw: number;
  readonly guarded?: boolean;
  /** Something the answers must contain. */
  readonly want?: RegExp;
}

const good = '{"host":"host-00000","service":"svc-000","exitStatus":2,"output":"CRITICAL | t=1s"}';
const goodBatch = '{"results":[{"host":"host-00001","exitStatus":0,"output":"UP"},{"host":"host-00002"}]}';
const longHost = "h".repeat(3000);
const split = (b: Buffer, size: number): Buffer[] =>
  Array.from({ length: Math.ceil(b.length / size) }, (_, i) => b.subarray(i * size, (i + 1) * size));

const cases: Case[] = [
  {
    name: "one result",
    parts: [request(ONE, good)],
    answers: 1,
    raw: 1,
    want: /^HTTP\/1\.1 200 OK\r\ncontent-type: application\/json\r\ncontent-length: 2\r\nDate: -\r\nConnection: keep-alive\r\nKeep-Alive: timeout=65\r\n\r\n\{\}$/,
  },
  { name: "a batch", parts: [request(BATCH, goodBatch)], answers: 1, raw: 1, want: /\{"accepted":2\}$/ },
  {
    name: "headers as clients send them (any case, spaces, charset)",
    parts: [
      request(ONE, good, [
        "content-type:application/json; charset=utf-8",
        "User-Agent:  connect-es/2.0 ",
        "Accept-Encoding: gzip, br",
        "Connect-Protocol-Version: 1",
        "connection: Keep-Alive",
      ]),
    ],
    answers: 1,
    raw: 1,
  },
  { name: "malformed JSON", parts: [request(ONE, '{"host":')], answers: 1, raw: 1, want: / 400 Bad Request/ },
  { name: "an empty body", parts: [request(ONE, "")], answers: 1, raw: 1, want: /invalid_argument/ },
  {
    name: "a service that is not configured",
    parts: [request(ONE, '{"host":"host-00000","service":"http"}')],
    answers: 1,
    raw: 1,
    want: / 404 Not Found[\s\S]*"code":"not_found"/,
  },
  {
    name: "a bad exit status",
    parts: [request(BATCH, '{"results":[{"host":"host-00000","exitStatus":7}]}')],
    answers: 1,
    raw: 1,
    want: /results\[0\]: exit status 7/,
  },
  {
    name: "Connect binary",
    parts: [
      request(
        BATCH,
        toBinary(
          ProcessCheckResultsRequestSchema,
          create(ProcessCheckResultsRequestSchema, { results: [{ host: "host-00001" }] }),
        ),
        ["Content-Type: application/proto"],
      ),
    ],
    answers: 1,
    raw: 1,
    want: /application\/proto/,
  },
  {
    // Error messages are bounded (error-message-bound.ts), so no error body reaches the 1 KiB that
    // Connect compresses from; the offer changes nothing, on both paths.
    name: "a long error, gzip offered",
    parts: [
      request(ONE, `{"host":"${longHost}"}`, ["Content-Type: application/json", "Accept-Encoding: gzip"]),
    ],
    answers: 1,
    raw: 1,
    want: /characters, cut\)"\}$/,
  },
  {
    name: "a deadline that has passed",
    parts: [request(ONE, good, ["Content-Type: application/json", "Connect-Timeout-Ms: 0"])],
    answers: 1,
    raw: 1,
    want: /deadline_exceeded/,
  },
  {
    name: "pipelined: answered in order",
    parts: [Buffer.concat([request(ONE, good), request(ONE, '{"host":"nope"}'), request(BATCH, goodBatch)])],
    answers: 3,
    raw: 3,
    want: /\{\}HTTP[\s\S]*not_found[\s\S]*\{"accepted":2\}$/,
  },
  {
    name: "a request in pieces",
    parts: split(Buffer.concat([request(ONE, good), request(BATCH, goodBatch)]), 7),
    answers: 2,
    raw: 2,
  },
  {
    name: "a method the router serves, then the fast path again (node's from there)",
    parts: [
      request(ONE, good),
      request("/svc.v1.QueryService/GetServerInfo", "{}"),
      request(ONE, '{"host":"nope"}'),
    ],
    answers: 3,
    raw: 1,
    want: /"version":"dev"/,
  },
  {
    name: "pipelined into the router: the fast path's answer first",
    parts: [Buffer.concat([request(ONE, good), request("/svc.v1.QueryService/GetServerInfo", "{}")])],
    answers: 2,
    raw: 1,
  },
  {
    name: "Connection: close",
    parts: [request(ONE, good, ["Content-Type: application/json", "Connection: close"])],
    answers: 1,
    raw: 0,
    want: /Connection: close/,
  },
  {
    name: "HTTP/1.0",
    parts: [request(ONE, good, undefined, { line: `POST ${ONE} HTTP/1.0` })],
    answers: 1,
    raw: 0,
  },
  {
    name: "a chunked body (connect-node sends them)",
    parts: [chunked(ONE, [good.slice(0, 10), good.slice(10)])],
    answers: 1,
    raw: 1,
    want: / 200 OK/,
  },
  {
    name: "chunked, in pieces, pipelined",
    parts: split(Buffer.concat([chunked(ONE, [good]), chunked(BATCH, [goodBatch]), chunked(ONE, [])]), 5),
    answers: 3,
    raw: 3,
    want: /\{"accepted":2\}[\s\S]*invalid_argument/,
  },
  {
    name: "chunked with an extension",
    parts: [chunked(ONE, [good], { size: (n) => `${n.toString(16)};x=1` })],
    answers: 1,
    raw: 0,
    want: / 200 OK/,
  },
  {
    name: "chunked with a trailer",
    parts: [chunked(ONE, [good], { trailer: "X-T: 1\r\n" })],
    answers: 1,
    raw: 0,
    want: / 200 OK/,
  },
  {
    name: "chunked, larger than served here",
    parts: [
      chunked(ONE, [`{"host":"host-00000","output":"${"x".repeat(40_000)}`, `${"y".repeat(30_000)}"}`]),
    ],
    answers: 1,
    raw: 0,
    want: /resource_exhausted/,
  },
  {
    name: "chunked, a bad size",
    parts: [chunked(ONE, [good], { size: () => "zz" })],
    answers: 1,
    raw: 0,
  },
  {
    name: "chunked and a Content-Length",
    parts: [chunked(ONE, [good], { head: ["Content-Length: 5"] })],
    answers: 1,
    raw: 0,
  },
  {
    name: "Expect: 100-continue",
    parts: [request(ONE, good, ["Content-Type: application/json", "Expect: 100-continue"])],
    answers: 2,
    raw: 0,
  },
  {
    name: "a body above the limit",
    parts: [request(ONE, `{"host":"${"x".repeat(LIMIT)}"}`)],
    answers: 1,
    raw: 0,
    want: /resource_exhausted/,
  },
  {
    name: "a Host that is not allowed",
    parts: [request(ONE, good, undefined, { host: "Host: attacker.example" })],
    answers: 1,
    raw: 0,
    want: /permission_denied/,
  },
  {
    name: "no Host",
    parts: [request(ONE, good, undefined, { host: "" })],
    answers: 1,
    raw: 0,
    want: / 400 /,
  },
  {
    name: "a header given twice",
    parts: [request(ONE, good, ["Content-Type: application/json", "Content-Type: application/json"])],
    answers: 1,
    raw: 0,
  },
  {
    name: "a folded header line",
    parts: [request(ONE, good, ["Content-Type: application/json", "X-Long: a", " b"])],
    answers: 1,
    raw: 0,
  },
  { name: "a query string", parts: [request(`${ONE}?x=1`, good)], answers: 1, raw: 0 },
  {
    name: "a gzip'd body",
    parts: [request(ONE, gzipSync(good), ["Content-Type: application/json", "Content-Encoding: gzip"])],
    answers: 1,
    raw: 0,
    want: / 200 OK/,
  },
  {
    name: "a malformed Connect-Timeout-Ms",
    parts: [request(ONE, good, ["Content-Type: application/json", "Connect-Timeout-Ms: soon"])],
    answers: 1,
    raw: 0,
  },
  {
    name: "gRPC over HTTP/1.1",
    parts: [request(ONE, new Uint8Array(5), ["Content-Type: application/grpc"])],
    answers: 1,
    raw: 0,
  },
  {
    name: "bare LF line endings",
    parts: [Buffer.from(request(ONE, good).toString("latin1").replaceAll("\r\n", "\n"), "latin1")],
    answers: 1,
    raw: 0,
  },
  {
    name: "a head that is not HTTP",
    parts: [Buffer.from("HELLO\r\n\r\n")],
    answers: 1,
    raw: 0,
  },
  // The gate (-auth-config identities): refused before the body is used, and audited.
  {
    name: "gate: no credentials",
    guarded: true,
    parts: [request(ONE, good)],
    answers: 1,
    raw: 1,
    want: / 401 Unauthorized/,
  },
  {
    name: "gate: a viewer may not write",
    guarded: true,
    parts: [request(ONE, good, ["Content-Type: application/json", `Authorization: Bearer ${VIEWER}`])],
    answers: 1,
    raw: 1,
    want: / 403 Forbidden[\s\S]*permission_denied/,
  },
  {
    name: "gate: an unknown token",
    guarded: true,
    parts: [request(ONE, good, ["Content-Type: application/json", "Authorization: Bearer nope"])],
    answers: 1,
    raw: 1,
    want: /unauthenticated/,
  },
  {
    name: "gate: an operator",
    guarded: true,
    parts: [
      request(ONE, good, ["Content-Type: application/json", `Authorization: Bearer ${OPERATOR}`]),
      request(ONE, '{"host":"nope"}', [
        "Content-Type: application/json",
        `Authorization: Bearer ${OPERATOR}`,
      ]),
    ],
    answers: 2,
    raw: 2,
    want: / 200 OK[\s\S]* 404 Not Found/,
  },
];

describe("the raw HTTP/1.1 path answers as node's HTTP server did", () => {
  for (const c of cases) {
    it(c.name, async () => {
      const pair = c.guarded ? guarded : plain;
      const raw = pair.raw as Served;
      const node = pair.node as Served;
      const served = raw.handler.h1?.served ?? 0;
      const audited = [raw.audit.length, node.audit.length];
      const got = await exchange(raw.port, c.parts, c.answers);
      const want = await exchange(node.port, c.parts, c.answers);
      assert.equal(got, want);
      assert.equal((raw.handler.h1?.served ?? 0) - served, c.raw, "requests the raw path served");
      if (c.want !== undefined) assert.match(got, c.want);
      // Calls in flight together may be audited in either order.
      assert.deepEqual(raw.audit.slice(audited[0]).sort(), node.audit.slice(audited[1]).sort());
    });
  }

  it("audits as before: accepted and refused calls, with the caller", () => {
    const records = (guarded.raw as Served).audit.map((r) => JSON.parse(r));
    assert.ok(records.some((r) => r.error === null && r.principal?.name === "ops"));
    assert.ok(records.some((r) => r.error !== null && r.principal?.name === "eve"));
    assert.ok(records.every((r) => r.rpc === ONE && r.peer === "127.0.0.1"));
  });
});

describe("real clients over the raw HTTP/1.1 path", () => {
  for (const json of [true, false]) {
    it(`connect-node, ${json ? "JSON" : "binary"}: results accepted, a refusal with the router's code and message`, async () => {
      const outcomes = [];
      for (const s of [plain.raw, plain.node] as Served[]) {
        const client = createClient(
          CommandService,
          createConnectTransport({
            baseUrl: `http://127.0.0.1:${s.port}`,
            httpVersion: "1.1",
            useBinaryFormat: !json,
          }),
        );
        const before = s.handler.h1?.served ?? 0;
        await client.processCheckResult({
          host: "host-00002",
          service: "svc-001",
          exitStatus: 1,
          output: "W",
        });
        const batch = await client.processCheckResults({
          results: [{ host: "host-00001" }, { host: "host-00000" }],
        });
        const refused = await client.processCheckResult({ host: "nope" }).then(
          () => undefined,
          (e: unknown) => ConnectError.from(e),
        );
        outcomes.push({ accepted: batch.accepted, code: refused?.code, message: refused?.rawMessage });
        if (s === plain.raw) assert.equal((s.handler.h1?.served ?? 0) - before, 3);
      }
      assert.equal(outcomes[0]?.code, Code.NotFound);
      assert.deepEqual(outcomes[0], outcomes[1]);
    });
  }

  it("curl: the same answers, the connection kept for the second request", async (t) => {
    const curl = async (port: number): Promise<string> => {
      const url = `http://127.0.0.1:${port}${ONE}`;
      const { stdout, stderr } = await promisify(execFile)("curl", [
        "-s",
        "-i",
        "-v",
        "-H",
        "Content-Type: application/json",
        "--data",
        good,
        url,
        url,
      ]).catch((e: { code?: string }) => {
        if (e.code === "ENOENT") t.skip("no curl");
        throw e;
      });
      assert.match(stderr, /Re-using existing connection/);
      return stdout.replace(/\r\nDate: [^\r]*/g, "\r\nDate: -");
    };
    const raw = plain.raw as Served;
    const before = raw.handler.h1?.served ?? 0;
    const got = await curl(raw.port);
    assert.equal(got, await curl((plain.node as Served).port));
    assert.equal((raw.handler.h1?.served ?? 0) - before, 2);
    assert.match(got, /^HTTP\/1\.1 200 OK\r\n[\s\S]*\{\}HTTP\/1\.1 200 OK\r\n[\s\S]*\{\}$/);
  });
});
