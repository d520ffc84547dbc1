import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { gzipSync } from "node:zlib";
import { create, type MessageInitShape, toBinary, toJsonString } from "@bufbuild/protobuf";
import { createMetricsRegistry } from "../app/metrics.js";
import { createAuthGate } from "../auth/index.js";
import { Core } from "../core/core.js";
import { fleetConfig } from "../core/fleet-config.js";
import { silentLogger } from "../model/logger.js";
import { FakeClock } from "../testing/fake-clock.js";
import { createCommandService } from "./command-service.js";
import {
  ProcessCheckResultRequestSchema,
  ProcessCheckResultsRequestSchema,
} from "./gen/svc/v1/command_service_pb.js";
import { createHttpHandler } from "./http-handler.js";
import { DualProtocolServer } from "./listener.js";
import { createQueryService } from "./query-service.js";
import { frame, h1, h2 } from "./raw-call.js";

// The fast path must answer exactly as the Connect router did. Every case goes to two servers over
// the same Core — one with the fast path, one where the command service is not recognisable to it
// (a copy), so the router serves it — and the answers must be equal; then, where given, as expected.

const TOKEN = "t0ken";
const LIMIT = 64 * 1024;
const config = fleetConfig({ hosts: 3, servicesPerHost: 2, maxAttempts: 1 });
let core: Core;
let dir: string;
const servers: DualProtocolServer[] = [];
const ports: Record<"fast" | "router" | "fastToken" | "routerToken", number> = {
  fast: 0,
  router: 0,
  fastToken: 0,
  routerToken: 0,
};
const registries: { fast?: ReturnType<typeof createMetricsRegistry> } = {};

async function serve(fast: boolean, token: boolean): Promise<number> {
  const metrics = createMetricsRegistry("dev");
  if (fast && !token) registries.fast = metrics;
  const command = createCommandService({ core });
  const server = new DualProtocolServer(
    createHttpHandler({
      readOnly: false,
      authConfigured: false,
      gate: createAuthGate({ apiToken: token ? TOKEN : "" }),
      query: createQueryService({ version: "dev", core }),
      command: fast ? command : { ...command },
      admin: {},
      metrics,
      page: () => "",
      logger: silentLogger,
      readMaxBytes: LIMIT,
    }),
  );
  servers.push(server);
  return (await server.listen(0, "127.0.0.1")).port;
}

before(async () => {
  dir = mkdtempSync(join(tmpdir(), "lookout-fast-path-"));
  core = await Core.open({ dataDir: dir, config, clock: new FakeClock(Date.UTC(2026, 0, 1)) });
  ports.fast = await serve(true, false);
  ports.router = await serve(false, false);
  ports.fastToken = await serve(true, true);
  ports.routerToken = await serve(false, true);
});
after(async () => {
  for (const s of servers) await s.close();
  await core.close();
  rmSync(dir, { recursive: true, force: true });
});

type Result = MessageInitShape<typeof ProcessCheckResultRequestSchema>;
const BATCH = "/svc.v1.CommandService/ProcessCheckResults";
const ONE = "/svc.v1.CommandService/ProcessCheckResult";
const good: Result[] = [
  { host: "host-00000", service: "svc-000", exitStatus: 2, output: "CRITICAL | t=1s" },
  { host: "host-00001", exitStatus: 0, output: "UP" },
];
const badSecond: Result[] = [
  { host: "host-00001", service: "svc-001" },
  { host: "host-00001", service: "http" },
];
const proto = (results: Result[]): Uint8Array =>
  toBinary(ProcessCheckResultsRequestSchema, create(ProcessCheckResultsRequestSchema, { results }));
const json = (results: Result[]): string =>
  toJsonString(ProcessCheckResultsRequestSchema, create(ProcessCheckResultsRequestSchema, { results }));
const oneProto = (r: Result): Uint8Array =>
  toBinary(ProcessCheckResultRequestSchema, create(ProcessCheckResultRequestSchema, r));

const concat = (...parts: Uint8Array[]): Uint8Array => new Uint8Array(Buffer.concat(parts));
const text = (s: string): Uint8Array => new TextEncoder().encode(s);

const GRPC = { "content-type": "application/grpc" };
const JSON_CT = { "content-type": "application/json" };
const PROTO_CT = { "content-type": "application/proto" };

interface Case {
  readonly name: string;
  readonly over: "h1" | "h2";
  readonly path?: string;
  readonly headers: Record<string, string>;
  readonly body: Uint8Array;
  readonly token?: boolean;
  /** The router answers differently (a documented change); only `want` is checked. */
  readonly differs?: boolean;
  /** HTTP status, and the Connect code (error body) or gRPC status with a message pattern. */
  readonly want?: {
    status?: number;
    code?: string;
    grpc?: number;
    message?: RegExp;
    body?: string;
    /** The gRPC status in a gRPC-Web body's trailer frame. */
    grpcWeb?: number;
  };
}

const cases: Case[] = [
  // Connect JSON
  {
    name: "JSON: a batch",
    over: "h1",
    headers: JSON_CT,
    body: text(json(good)),
    want: { status: 200, body: '{"accepted":2}' },
  },
  {
    name: "JSON: one result",
    over: "h1",
    path: ONE,
    headers: JSON_CT,
    body: text('{"host":"host-00002","exitStatus":1}'),
    want: { status: 200, body: "{}" },
  },
  {
    name: "JSON: an empty batch",
    over: "h1",
    headers: JSON_CT,
    body: text("{}"),
    want: { status: 200, body: "{}" },
  },
  {
    name: "JSON: the refused result is named",
    over: "h1",
    headers: { "content-type": "application/json; charset=utf-8" },
    body: text(json(badSecond)),
    want: { status: 404, code: "not_found", message: /^results\[1\]: service "http" is not configured/ },
  },
  {
    name: "JSON: a bad exit status",
    over: "h1",
    headers: JSON_CT,
    body: text('{"results":[{"host":"host-00000","exitStatus":7}]}'),
    want: { status: 400, code: "invalid_argument", message: /^results\[0\]: exit status 7/ },
  },
  {
    name: "JSON: an unknown field is ignored",
    over: "h1",
    headers: JSON_CT,
    body: text('{"results":[{"host":"host-00000","extra":{"a":1}}]}'),
    want: { status: 200, body: '{"accepted":1}' },
  },
  {
    name: "JSON: an empty body",
    over: "h1",
    headers: JSON_CT,
    body: text(""),
    want: { status: 400, code: "invalid_argument" },
  },
  {
    name: "JSON: malformed",
    over: "h1",
    headers: JSON_CT,
    body: text('{"results":['),
    want: { status: 400 },
  },
  {
    name: "JSON: a null result",
    over: "h1",
    headers: JSON_CT,
    body: text('{"results":[null]}'),
    want: { status: 400 },
  },
  {
    name: "JSON: a duplicate key",
    over: "h1",
    headers: JSON_CT,
    body: text('{"host":"a","host":"b"}'),
    path: ONE,
    want: { status: 400 },
  },
  { name: "JSON over HTTP/2", over: "h2", headers: JSON_CT, body: text(json(good)), want: { status: 200 } },
  {
    name: "JSON: larger than the limit",
    over: "h1",
    headers: JSON_CT,
    body: text(json([{ host: "host-00000", output: "x".repeat(LIMIT) }])),
    want: { status: 429, code: "resource_exhausted", message: /larger than configured readMaxBytes 65536/ },
  },
  // Connect binary
  {
    name: "proto: a batch",
    over: "h1",
    headers: PROTO_CT,
    body: proto(good),
    want: { status: 200, body: "CAI=" },
  },
  {
    name: "proto: a truncated body",
    over: "h1",
    headers: PROTO_CT,
    body: proto(good).subarray(0, 7),
    want: { status: 400, code: "invalid_argument", message: /^parse binary: / },
  },
  {
    name: "proto: invalid UTF-8",
    over: "h1",
    headers: PROTO_CT,
    body: new Uint8Array([0x0a, 0x03, 0x0a, 0x01, 0xff]),
    want: { status: 400, code: "invalid_argument" },
  },
  {
    name: "proto: one result without a host",
    over: "h1",
    path: ONE,
    headers: PROTO_CT,
    body: new Uint8Array(0),
    want: { status: 400, code: "invalid_argument", message: /^host is required$/ },
  },
  // gRPC
  {
    name: "gRPC: a batch",
    over: "h2",
    headers: GRPC,
    body: frame(proto(good)),
    want: { grpc: 0, body: "AAAAAAIIAg==" },
  },
  {
    name: "gRPC: one result",
    over: "h2",
    path: ONE,
    headers: { "content-type": "application/grpc+proto" },
    body: frame(oneProto({ host: "host-00002" })),
    want: { grpc: 0 },
  },
  {
    name: "gRPC: the refused result is named (percent-encoded)",
    over: "h2",
    headers: GRPC,
    body: frame(proto(badSecond)),
    want: { grpc: 5, message: /^results%5B1%5D%3A%20service%20%22http%22/ },
  },
  {
    name: "gRPC: no message",
    over: "h2",
    headers: GRPC,
    body: new Uint8Array(0),
    want: { grpc: 3, message: /^protocol%20error%3A%20missing%20input%20message/ },
  },
  {
    name: "gRPC: a message cut short",
    over: "h2",
    headers: GRPC,
    body: frame(proto(good)).subarray(0, 9),
    want: { grpc: 3 },
  },
  {
    name: "gRPC: compressed without an encoding",
    over: "h2",
    headers: GRPC,
    body: frame(proto(good), 1),
    want: { grpc: 3, message: /^received%20compressed%20envelope/ },
  },
  {
    name: "gRPC: two messages",
    over: "h2",
    headers: GRPC,
    body: concat(frame(proto(good)), frame(proto(good))),
    want: { grpc: 3, message: /^protocol%20error%3A%20received%20extra%20input%20message/ },
  },
  {
    name: "gRPC: a bad first of two messages",
    over: "h2",
    headers: GRPC,
    body: concat(frame(new Uint8Array([0x0a, 0x09])), frame(proto(good))),
    want: { grpc: 3 },
  },
  {
    name: "gRPC: a second message cut short",
    over: "h2",
    headers: GRPC,
    body: concat(frame(proto(good)), new Uint8Array([0, 0])),
    want: { grpc: 3 },
  },
  {
    name: "gRPC: a message above the limit",
    over: "h2",
    headers: GRPC,
    body: frame(new Uint8Array(10), 0, LIMIT + 1),
    want: { grpc: 8 },
  },
  {
    name: "gRPC: a malformed message",
    over: "h2",
    headers: GRPC,
    body: frame(new Uint8Array([0x0a, 0x09])),
    want: { grpc: 3, message: /^parse%20binary/ },
  },
  {
    name: "gRPC: the response encoding offered",
    over: "h2",
    headers: { ...GRPC, "grpc-accept-encoding": "br, gzip" },
    body: frame(proto(good)),
    want: { grpc: 0 },
  },
  // The -api-token gate
  {
    name: "token: missing",
    over: "h1",
    token: true,
    headers: JSON_CT,
    body: text(json(good)),
    want: { status: 401, code: "unauthenticated", message: /^missing bearer token$/ },
  },
  {
    name: "token: wrong",
    over: "h2",
    token: true,
    headers: { ...GRPC, authorization: "Bearer nope" },
    body: frame(proto(good)),
    want: { grpc: 16 },
  },
  {
    name: "token: right",
    over: "h2",
    token: true,
    headers: { ...GRPC, authorization: `Bearer ${TOKEN}` },
    body: frame(proto(good)),
    want: { grpc: 0 },
  },
  {
    name: "token: checked before the body is decoded (the router decoded first)",
    over: "h1",
    token: true,
    differs: true,
    headers: JSON_CT,
    body: text("{not json"),
    want: { status: 401, code: "unauthenticated" },
  },
  // Left to the router
  {
    name: "gRPC-Web",
    over: "h1",
    headers: { "content-type": "application/grpc-web+proto" },
    body: frame(proto(good)),
    want: { status: 200 },
  },
  {
    name: "gRPC-Web: a malformed message is the client's error",
    over: "h1",
    headers: { "content-type": "application/grpc-web+proto" },
    body: frame(new Uint8Array([0x0a, 0x09])),
    want: { status: 200, grpcWeb: 3 },
  },
  {
    name: "proto: a malformed message to a method only the router serves",
    over: "h1",
    path: "/svc.v1.CommandService/AcknowledgeProblem",
    headers: PROTO_CT,
    body: new Uint8Array([0x0a, 0x09]),
    want: { status: 400, code: "invalid_argument", message: /^parse binary: / },
  },
  {
    name: "gRPC: a malformed message to a method only the router serves",
    over: "h2",
    path: "/svc.v1.CommandService/AcknowledgeProblem",
    headers: GRPC,
    body: frame(new Uint8Array([0x0a, 0x09])),
    want: { grpc: 3, message: /^parse%20binary/ },
  },
  {
    name: "a gzip'd Connect body",
    over: "h1",
    headers: { ...JSON_CT, "content-encoding": "gzip" },
    body: gzipSync(text(json(good))),
    want: { status: 200 },
  },
  {
    name: "a malformed grpc-timeout",
    over: "h2",
    headers: { ...GRPC, "grpc-timeout": "soon" },
    body: frame(proto(good)),
    want: { grpc: 3 },
  },
  {
    name: "a deadline that passes first",
    over: "h2",
    differs: true,
    headers: { ...GRPC, "grpc-timeout": "1n" },
    body: frame(proto(good)),
    want: { grpc: 4, message: /^the%20operation%20timed%20out$/ },
  },
];

describe("the ingestion fast path answers as the Connect router did", () => {
  for (const c of cases) {
    it(c.name, async () => {
      const send = c.over === "h1" ? h1 : h2;
      const [fastPort, routerPort] = c.token
        ? [ports.fastToken, ports.routerToken]
        : [ports.fast, ports.router];
      const got = await send(fastPort, c.path ?? BATCH, c.headers, c.body);
      if (!c.differs) assert.deepEqual(got, await send(routerPort, c.path ?? BATCH, c.headers, c.body));
      const w = c.want;
      if (w === undefined) return;
      if (w.status !== undefined) assert.equal(got.status, w.status);
      const body = Buffer.from(got.body, "base64");
      if (w.body !== undefined)
        assert.equal(got.headers["content-type"]?.includes("json") ? body.toString() : got.body, w.body);
      if (w.code !== undefined || (w.message !== undefined && w.grpc === undefined)) {
        const err = JSON.parse(body.toString()) as { code: string; message: string };
        if (w.code !== undefined) assert.equal(err.code, w.code);
        if (w.message !== undefined) assert.match(err.message, w.message);
      }
      if (w.grpcWeb !== undefined)
        assert.match(body.toString("latin1"), new RegExp(`grpc-status: ?${w.grpcWeb}\r\n`));
      if (w.grpc !== undefined) {
        assert.equal(got.trailers["grpc-status"], String(w.grpc), JSON.stringify(got));
        if (w.message !== undefined) assert.match(got.trailers["grpc-message"] ?? "", w.message);
      }
    });
  }

  it("counts its calls in the RPC metrics", async () => {
    const text = await (registries.fast as ReturnType<typeof createMetricsRegistry>).metrics();
    for (const [method, code] of [
      ["ProcessCheckResults", "ok"],
      ["ProcessCheckResults", "not_found"],
      ["ProcessCheckResults", "deadline_exceeded"],
      ["ProcessCheckResult", "invalid_argument"],
    ]) {
      assert.match(
        text,
        new RegExp(
          `^lookout_rpc_requests_total\\{service="svc\\.v1\\.CommandService",method="${method}",code="${code}"\\} [1-9]`,
          "m",
        ),
        `${method} ${code}`,
      );
    }
  });
});
