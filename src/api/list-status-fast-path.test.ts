import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { gunzipSync } from "node:zlib";
import { create, fromBinary, type MessageInitShape, toBinary, toJsonString } from "@bufbuild/protobuf";
import { createMetricsRegistry } from "../app/metrics.js";
import { createAuthGate } from "../auth/index.js";
import { Core } from "../core/core.js";
import { fleetConfig } from "../core/fleet-config.js";
import { silentLogger } from "../model/logger.js";
import { FakeClock } from "../testing/fake-clock.js";
import { createCommandService } from "./command-service.js";
import { ListStatusRequestSchema, ListStatusResponseSchema } from "./gen/svc/v1/query_service_pb.js";
import { createHttpHandler } from "./http-handler.js";
import { DualProtocolServer } from "./listener.js";
import { createQueryService } from "./query-service.js";
import { type Answer, frame, h1, h2 } from "./raw-call.js";

// The ListStatus fast path must answer as the Connect router does. Every case goes to two servers
// over the same Core — one with the fast path, one whose query service is not recognisable to it
// (a copy), so the router serves it — and the answers must be equal, except where a case says how
// they differ; then, where given, as expected. A page is compared as the message a client decodes:
// the router writes the statuses (an unknown field to it) after the other fields, the fast path in
// field order, as protobuf-es writes a message it built.

const LIMIT = 64 * 1024;
/** The clock's time, which never moves: the log's every group is stamped with it. */
const OPENED = Date.UTC(2026, 0, 1);
// 4 hosts × (1 + 3 services) = 16 objects.
const config = fleetConfig({ hosts: 4, servicesPerHost: 3, maxAttempts: 2 });
let core: Core;
let dir: string;
const servers: DualProtocolServer[] = [];
const ports = { fast: 0, router: 0 };
let metrics: ReturnType<typeof createMetricsRegistry>;

async function serve(fast: boolean): Promise<number> {
  const registry = createMetricsRegistry("dev");
  if (fast) metrics = registry;
  const query = createQueryService({ version: "dev", core });
  const server = new DualProtocolServer(
    createHttpHandler({
      readOnly: false,
      authConfigured: false,
      gate: createAuthGate({ apiToken: "" }),
      query: fast ? query : { ...query },
      command: createCommandService({ core }),
      admin: {},
      metrics: registry,
      page: () => "",
      logger: silentLogger,
      readMaxBytes: LIMIT,
    }),
  );
  servers.push(server);
  return (await server.listen(0, "127.0.0.1")).port;
}

before(async () => {
  dir = mkdtempSync(join(tmpdir(), "lookout-list-fast-"));
  core = await Core.open({ dataDir: dir, config, clock: new FakeClock(OPENED) });
  // Records of every kind of length; host-00003 and its services stay PENDING.
  await core.submit(
    [0, 1, 2].flatMap((h) =>
      ["", "svc-000", "svc-001", "svc-002"].map((s, i) => ({
        type: "ProcessCheckResult" as const,
        parse: true as const,
        result: {
          host: `host-0000${h}`,
          ...(s === "" ? {} : { service: s }),
          exitStatus: (i % 3) as 0 | 1 | 2,
          output: `${"x".repeat(h * 70)} | time=0.0${i}s;1;2;0`,
          checkedAt: Date.UTC(2026, 0, 1) - i * 1000,
          durationMs: 0,
          source: "passive" as const,
        },
      })),
    ),
  );
  await core.flush();
  ports.fast = await serve(true);
  ports.router = await serve(false);
});
after(async () => {
  for (const s of servers) await s.close();
  await core.close();
  rmSync(dir, { recursive: true, force: true });
});

const PATH = "/svc.v1.QueryService/ListStatus";
type Req = MessageInitShape<typeof ListStatusRequestSchema>;
const proto = (r: Req): Uint8Array => toBinary(ListStatusRequestSchema, create(ListStatusRequestSchema, r));
const token = (key: string): string => Buffer.from(`k:${key}`).toString("base64url");
const concat = (...parts: Uint8Array[]): Uint8Array => new Uint8Array(Buffer.concat(parts));
const GRPC = { "content-type": "application/grpc" };
const PROTO_CT = { "content-type": "application/proto" };

/**
 * The response message in an answer: the gRPC envelope's, or the Connect body (gunzipped if need
 * be: fetch has done it already).
 */
function message(a: Answer): Uint8Array {
  let body = Buffer.from(a.body, "base64");
  if (a.trailers["grpc-status"] !== undefined) {
    const compressed = body[0] === 1;
    body = body.subarray(5);
    if (compressed) body = gunzipSync(body);
  } else if (body[0] === 0x1f && body[1] === 0x8b) {
    body = gunzipSync(body);
  }
  return body;
}

/** An answer with a page in it as the page's JSON, so that answers compare as a client sees them. */
function decoded(a: Answer): Answer {
  const page = a.trailers["grpc-status"] === "0" || a.headers["content-type"] === "application/proto";
  if (!page || a.body === "") return a;
  return {
    ...a,
    body: toJsonString(ListStatusResponseSchema, fromBinary(ListStatusResponseSchema, message(a))),
  };
}

interface Case {
  readonly name: string;
  readonly over: "h1" | "h2";
  readonly headers: Record<string, string>;
  readonly body: Uint8Array;
  /**
   * How the fast path's answer differs from the router's (a documented choice): `uncompressed` —
   * the same message, not compressed; `deadline` — not compared.
   */
  readonly differs?: "uncompressed" | "deadline";
  /** HTTP status, Connect code (error body) or gRPC status, message pattern; or the page's statuses. */
  readonly want?: {
    status?: number;
    code?: string;
    grpc?: number;
    message?: RegExp;
    statuses?: number;
    next?: boolean;
  };
}

const cases: Case[] = [
  {
    name: "gRPC: the first page",
    over: "h2",
    headers: GRPC,
    body: frame(proto({ pageSize: 5 })),
    want: { grpc: 0, statuses: 5, next: true },
  },
  {
    name: "gRPC: a page after a token, to the end",
    over: "h2",
    headers: { "content-type": "application/grpc+proto" },
    body: frame(proto({ pageSize: 100, pageToken: token("host-00001!svc-001") })),
    want: { grpc: 0, statuses: 9, next: false },
  },
  {
    name: "gRPC: the default page size",
    over: "h2",
    headers: GRPC,
    body: frame(proto({})),
    want: { grpc: 0, statuses: 16 },
  },
  {
    name: "gRPC: one host, PENDING",
    over: "h2",
    headers: GRPC,
    body: frame(proto({ host: "host-00003" })),
    want: { grpc: 0, statuses: 4 },
  },
  {
    name: "gRPC: one service",
    over: "h2",
    headers: GRPC,
    body: frame(proto({ host: "host-00002", service: "svc-002" })),
    want: { grpc: 0, statuses: 1 },
  },
  {
    name: "gRPC: a selector",
    over: "h2",
    headers: GRPC,
    body: frame(proto({ selector: "env=prod, tier=web" })),
    want: { grpc: 0, statuses: 4 },
  },
  {
    name: "gRPC: nothing matches",
    over: "h2",
    headers: GRPC,
    body: frame(proto({ selector: "env=nowhere" })),
    want: { grpc: 0, statuses: 0 },
  },
  {
    name: "gRPC: gzip accepted, the page sent uncompressed",
    over: "h2",
    headers: { ...GRPC, "grpc-accept-encoding": "gzip, br" },
    body: frame(proto({ pageSize: 16 })),
    differs: "uncompressed",
    want: { grpc: 0, statuses: 16 },
  },
  {
    name: "gRPC: a past moment (at), rebuilt from the log",
    over: "h2",
    headers: GRPC,
    body: frame(proto({ pageSize: 5, at: { seconds: BigInt(OPENED / 1000), nanos: 0 } })),
    want: { grpc: 0, statuses: 5, next: true },
  },
  {
    name: "gRPC: a moment in the future",
    over: "h2",
    headers: GRPC,
    body: frame(proto({ at: { seconds: BigInt(OPENED / 1000 + 60), nanos: 0 } })),
    want: { grpc: 11, message: /is%20in%20the%20future/ },
  },
  {
    name: "gRPC: a moment before the log",
    over: "h2",
    headers: GRPC,
    body: frame(proto({ at: { seconds: BigInt(OPENED / 1000 - 60), nanos: 0 } })),
    want: { grpc: 11, message: /before%20the%20oldest%20time%20the%20log%20can%20answer/ },
  },
  {
    name: "gRPC: a moment no Timestamp can hold",
    over: "h2",
    headers: GRPC,
    body: frame(proto({ at: { seconds: 10n ** 13n, nanos: 0 } })),
    want: { grpc: 3, message: /^at%20is%20not%20a%20valid%20timestamp$/ },
  },
  {
    name: "gRPC: a past moment with a filter that finds nothing to page",
    over: "h2",
    headers: GRPC,
    body: frame(proto({ host: "nope", at: { seconds: BigInt(OPENED / 1000), nanos: 0 } })),
    want: { grpc: 5 },
  },
  {
    name: "gRPC: a bad page token",
    over: "h2",
    headers: GRPC,
    body: frame(proto({ pageToken: "nonsense" })),
    want: { grpc: 3, message: /^invalid%20page%20token$/ },
  },
  {
    name: "gRPC: an unknown host",
    over: "h2",
    headers: GRPC,
    body: frame(proto({ host: "nope" })),
    want: { grpc: 5 },
  },
  {
    name: "gRPC: a selector that does not parse",
    over: "h2",
    headers: GRPC,
    body: frame(proto({ selector: "env in (" })),
    want: { grpc: 3 },
  },
  {
    name: "gRPC: a negative page size",
    over: "h2",
    headers: GRPC,
    body: frame(proto({ pageSize: -1 })),
    want: { grpc: 3 },
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
    body: frame(proto({ pageSize: 5, selector: "env=prod" })).subarray(0, 9),
    want: { grpc: 3 },
  },
  {
    name: "gRPC: a malformed message",
    over: "h2",
    headers: GRPC,
    body: frame(new Uint8Array([0x2a, 0x09])),
    want: { grpc: 3, message: /^parse%20binary/ },
  },
  {
    name: "gRPC: compressed without an encoding",
    over: "h2",
    headers: GRPC,
    body: frame(proto({}), 1),
    want: { grpc: 3, message: /^received%20compressed%20envelope/ },
  },
  {
    name: "gRPC: two messages",
    over: "h2",
    headers: GRPC,
    body: concat(frame(proto({})), frame(proto({}))),
    want: { grpc: 3, message: /^protocol%20error%3A%20received%20extra%20input%20message/ },
  },
  {
    name: "gRPC: a message above the limit",
    over: "h2",
    headers: GRPC,
    body: frame(new Uint8Array(10), 0, LIMIT + 1),
    want: { grpc: 8 },
  },
  {
    name: "gRPC: a deadline that passes first",
    over: "h2",
    headers: { ...GRPC, "grpc-timeout": "1n" },
    body: frame(proto({})),
    differs: "deadline",
    want: { grpc: 4 },
  },
  // Connect binary
  {
    name: "proto: a page",
    over: "h1",
    headers: PROTO_CT,
    body: proto({ pageSize: 3 }),
    want: { status: 200, statuses: 3, next: true },
  },
  {
    name: "proto: a page, gzip'd as the client accepts",
    over: "h1",
    headers: { ...PROTO_CT, "accept-encoding": "gzip" },
    body: proto({ pageSize: 16 }),
    want: { status: 200, statuses: 16 },
  },
  {
    name: "proto: a past moment (at)",
    over: "h1",
    headers: PROTO_CT,
    body: proto({ host: "host-00001", at: { seconds: BigInt(OPENED / 1000), nanos: 0 } }),
    want: { status: 200, statuses: 4 },
  },
  {
    name: "proto over HTTP/2",
    over: "h2",
    headers: PROTO_CT,
    body: proto({ host: "host-00001" }),
    want: { status: 200, statuses: 4 },
  },
  {
    name: "proto: a bad page token",
    over: "h1",
    headers: PROTO_CT,
    body: proto({ pageToken: "nonsense" }),
    want: { status: 400, code: "invalid_argument", message: /^invalid page token$/ },
  },
  {
    name: "proto: malformed",
    over: "h1",
    headers: PROTO_CT,
    body: new Uint8Array([0x2a, 0x09]),
    want: { status: 400, code: "invalid_argument" },
  },
  // Left to the router
  {
    name: "JSON",
    over: "h1",
    headers: { "content-type": "application/json" },
    body: new TextEncoder().encode(
      toJsonString(ListStatusRequestSchema, create(ListStatusRequestSchema, {})),
    ),
    want: { status: 200 },
  },
  {
    name: "gRPC-Web",
    over: "h1",
    headers: { "content-type": "application/grpc-web+proto" },
    body: frame(proto({ pageSize: 2 })),
    want: { status: 200 },
  },
  {
    name: "a malformed grpc-timeout",
    over: "h2",
    headers: { ...GRPC, "grpc-timeout": "soon" },
    body: frame(proto({})),
    want: { grpc: 3 },
  },
];

describe("the ListStatus fast path answers as the Connect router does", () => {
  for (const c of cases) {
    it(c.name, async () => {
      const send = c.over === "h1" ? h1 : h2;
      const got = await send(ports.fast, PATH, c.headers, c.body);
      const router = c.differs === "deadline" ? undefined : await send(ports.router, PATH, c.headers, c.body);
      if (c.differs === undefined) assert.deepEqual(decoded(got), decoded(router as Answer));
      if (c.differs === "uncompressed" && router !== undefined) {
        assert.equal(router.headers["grpc-encoding"], "gzip", "the router compresses");
        assert.equal(got.headers["grpc-encoding"], undefined);
        assert.equal(Buffer.from(got.body, "base64")[0], 0, "an uncompressed envelope");
        assert.equal(decoded(got).body, decoded(router).body);
        assert.deepEqual(got.trailers, router.trailers);
      }
      const w = c.want;
      if (w === undefined) return;
      if (w.status !== undefined) assert.equal(got.status, w.status);
      if (w.grpc !== undefined) {
        assert.equal(got.trailers["grpc-status"], String(w.grpc), JSON.stringify(got));
        if (w.message !== undefined) assert.match(got.trailers["grpc-message"] ?? "", w.message);
      }
      if (w.code !== undefined) {
        const err = JSON.parse(Buffer.from(got.body, "base64").toString()) as {
          code: string;
          message: string;
        };
        assert.equal(err.code, w.code);
        if (w.message !== undefined) assert.match(err.message, w.message);
      }
      if (w.statuses !== undefined) {
        const page = fromBinary(ListStatusResponseSchema, message(got));
        assert.equal(page.statuses.length, w.statuses);
        assert.equal(page.totalSize > 0 || w.statuses === 0, true);
        if (w.next !== undefined) assert.equal(page.nextPageToken !== "", w.next);
      }
    });
  }

  it("counts its calls in the RPC metrics", async () => {
    const text = await metrics.metrics();
    for (const code of ["ok", "invalid_argument", "not_found", "deadline_exceeded"]) {
      assert.match(
        text,
        new RegExp(
          `^lookout_rpc_requests_total\\{service="svc\\.v1\\.QueryService",method="ListStatus",code="${code}"\\} [1-9]`,
          "m",
        ),
        code,
      );
    }
  });
});
