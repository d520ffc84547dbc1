import assert from "node:assert/strict";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { status as GrpcStatus } from "@grpc/grpc-js";
import {
  ProcessCheckResultRequestSchema,
  ProcessCheckResultResponseSchema,
} from "../api/gen/svc/v1/command_service_pb.js";
import {
  GetServerInfoRequestSchema,
  GetServerInfoResponseSchema,
} from "../api/gen/svc/v1/query_service_pb.js";
import { bufCurl, curlJson, grpcUnary } from "../testing/clients.js";
import { runLookout, type ServerProcess, startServer } from "../testing/server-process.js";

const INFO = "/svc.v1.QueryService/GetServerInfo";
const LIST_STATUS = "/svc.v1.QueryService/ListStatus";
const PROCESS = "/svc.v1.CommandService/ProcessCheckResult";
const VALIDATE = "/svc.v1.AdminService/ValidateConfig";
const SESSION_SECRET = "server-test-session-secret-0123456789";

let dir: string;
before(async () => {
  dir = await mkdtemp(join(tmpdir(), "lookout-server-"));
  await writeFile(join(dir, "auth.cue"), "// identities\n");
});
after(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("one port, three wire formats", () => {
  let srv: ServerProcess;
  before(async () => {
    srv = await startServer(["-data-dir", join(dir, "data")]);
  });
  after(async () => {
    assert.equal(await srv.stop(), 0, "SIGTERM is a clean shutdown");
  });

  test("Connect JSON over HTTP/1.1 with curl", async () => {
    const r = await curlJson(srv.url + INFO, "{}");
    assert.equal(r.status, 200);
    assert.deepEqual(JSON.parse(r.body), { version: "dev" });
  });

  test("gRPC over h2c with @grpc/grpc-js", async () => {
    const res = await grpcUnary(
      `127.0.0.1:${srv.port}`,
      INFO,
      GetServerInfoRequestSchema,
      GetServerInfoResponseSchema,
    );
    assert.equal(res.version, "dev");
  });

  for (const [name, flags] of [
    ["buf curl gRPC with HTTP/2 prior knowledge", ["--protocol", "grpc", "--http2-prior-knowledge"]],
    ["buf curl gRPC-Web over HTTP/1.1", ["--protocol", "grpcweb"]],
    ["buf curl gRPC-Web over h2c", ["--protocol", "grpcweb", "--http2-prior-knowledge"]],
    ["buf curl Connect", ["--protocol", "connect"]],
  ] as const) {
    test(name, async () => {
      const r = await bufCurl([...flags, "-d", "{}", srv.url + INFO]);
      assert.equal(r.code, 0, r.stderr);
      assert.deepEqual(JSON.parse(r.stdout), { version: "dev" });
    });
  }

  test("errors are Connect error bodies with the right code", async () => {
    const cases: { path: string; body: string; status: number; code: string; message: RegExp }[] = [
      { path: PROCESS, body: "{}", status: 400, code: "invalid_argument", message: /host is required/ },
      {
        path: PROCESS,
        body: '{"host":"nope"}',
        status: 404,
        code: "not_found",
        message: /"nope" is not configured/,
      },
    ];
    for (const c of cases) {
      const r = await curlJson(srv.url + c.path, c.body);
      assert.equal(r.status, c.status, c.body);
      const body = JSON.parse(r.body) as { code: string; message: string };
      assert.equal(body.code, c.code);
      assert.match(body.message, c.message);
    }
  });

  test("reads of an empty configuration are empty, not errors", async () => {
    const r = await curlJson(srv.url + LIST_STATUS, "{}");
    assert.equal(r.status, 200);
    assert.deepEqual(JSON.parse(r.body), {});
  });

  test("a malformed request body is invalid_argument", async () => {
    const r = await curlJson(srv.url + INFO, "{not json");
    assert.equal(r.status, 400);
    assert.equal((JSON.parse(r.body) as { code: string }).code, "invalid_argument");
  });

  test("/metrics is Prometheus text with build info and per-RPC counters", async () => {
    await curlJson(srv.url + INFO, "{}");
    await curlJson(srv.url + PROCESS, '{"host":"nope"}');
    const res = await fetch(`${srv.url}/metrics`);
    assert.equal(res.status, 200);
    assert.match(res.headers.get("content-type") ?? "", /^text\/plain/);
    const text = await res.text();
    assert.match(text, /^lookout_build_info\{version="dev",nodeversion="v\d+[^"]*"\} 1$/m);
    assert.match(text, /^process_cpu_seconds_total /m);
    assert.match(
      text,
      /^lookout_rpc_requests_total\{service="svc\.v1\.QueryService",method="GetServerInfo",code="ok"\} [1-9]\d*$/m,
    );
    assert.match(
      text,
      /^lookout_rpc_requests_total\{service="svc\.v1\.CommandService",method="ProcessCheckResult",code="not_found"\} [1-9]/m,
    );
    assert.match(text, /^lookout_rpc_duration_seconds_bucket\{le="0\.005",service="svc\.v1\.QueryService"/m);
    // Both threads' heaps: the reader's (this thread) and the writer's (asked over its port).
    for (const re of [
      /^lookout_heap_used_bytes\{thread="reader"\} [1-9]\d+$/m,
      /^lookout_heap_used_bytes\{thread="writer"\} [1-9]\d+$/m,
      /^lookout_heap_total_bytes\{thread="writer"\} [1-9]\d+$/m,
      /^lookout_heap_external_bytes\{thread="writer"\} [1-9]\d+$/m,
      /^lookout_heap_array_buffers_bytes\{thread="reader"\} \d+$/m,
      /^lookout_heap_space_size_bytes\{thread="writer",space="new_space"\} [1-9]\d+$/m,
      /^lookout_heap_space_used_bytes\{thread="reader",space="old_space"\} [1-9]\d+$/m,
    ]) {
      assert.match(text, re);
    }
  });

  test("/ serves the dashboard page and unknown paths are 404", async () => {
    const page = await fetch(`${srv.url}/`);
    assert.equal(page.status, 200);
    assert.match(await page.text(), /<title>Lookout<\/title>/);
    assert.equal((await fetch(`${srv.url}/nope`)).status, 404);
  });

  test("logs are JSON lines", () => {
    const lines = srv.stderr().trim().split("\n");
    for (const l of lines) {
      const rec = JSON.parse(l) as { level: string; msg: string; time: string };
      assert.ok(rec.level && rec.msg && !Number.isNaN(Date.parse(rec.time)), l);
    }
  });
});

describe("mounting matrix", () => {
  // For each flag set: the Connect code one RPC of each service answers, or "404" for a plain
  // HTTP 404 without a Connect body (the route does not exist).
  const cases: {
    name: string;
    args: (d: string) => string[];
    query: string;
    command: string;
    admin: string;
  }[] = [
    { name: "default", args: () => [], query: "ok", command: "invalid_argument", admin: "404" },
    { name: "-read-only", args: () => ["-read-only"], query: "ok", command: "404", admin: "404" },
    {
      // Every service needs an identity then (the auth matrix test has the rest).
      name: "-auth-config",
      args: (d) => ["-auth-config", join(d, "auth.cue"), "-session-secret", SESSION_SECRET],
      query: "unauthenticated",
      command: "unauthenticated",
      admin: "unauthenticated",
    },
    {
      name: "-auth-config -read-only",
      args: (d) => ["-auth-config", join(d, "auth.cue"), "-session-secret", SESSION_SECRET, "-read-only"],
      query: "unauthenticated",
      command: "404",
      admin: "404",
    },
    {
      name: "-read-only=false",
      args: () => ["-read-only=false"],
      query: "ok",
      command: "invalid_argument",
      admin: "404",
    },
  ];
  const outcome = (r: { status: number; body: string }): string => {
    if (r.status === 200) return "ok";
    try {
      return (JSON.parse(r.body) as { code: string }).code;
    } catch {
      return String(r.status);
    }
  };
  for (const c of cases) {
    test(c.name, async () => {
      const srv = await startServer([...c.args(dir), "-data-dir", join(dir, "data")]);
      try {
        assert.equal(outcome(await curlJson(srv.url + INFO, "{}")), c.query, "QueryService");
        assert.equal(outcome(await curlJson(srv.url + PROCESS, "{}")), c.command, "CommandService");
        assert.equal(outcome(await curlJson(srv.url + VALIDATE, '{"cue":""}')), c.admin, "AdminService");
      } finally {
        await srv.stop();
      }
    });
  }

  test("an unmounted service is unimplemented to a gRPC client too", async () => {
    const srv = await startServer(["-read-only", "-data-dir", join(dir, "data")]);
    try {
      await assert.rejects(
        grpcUnary(
          `127.0.0.1:${srv.port}`,
          PROCESS,
          ProcessCheckResultRequestSchema,
          ProcessCheckResultResponseSchema,
        ),
        (e: { code: number }) => e.code === GrpcStatus.UNIMPLEMENTED,
      );
    } finally {
      await srv.stop();
    }
  });
});

describe("-api-token", () => {
  const TOKEN = "s3cret-token-value";
  let srv: ServerProcess;
  before(async () => {
    srv = await startServer(["-data-dir", join(dir, "data")], {
      env: { PATH: process.env.PATH ?? "", LOOKOUT_API_TOKEN: TOKEN },
    });
  });
  after(async () => {
    await srv.stop();
    assert.doesNotMatch(srv.stderr(), new RegExp(TOKEN), "the token never reaches the log");
  });

  const cases: { name: string; headers: string[]; status: number; code: string; message?: RegExp }[] = [
    { name: "missing", headers: [], status: 401, code: "unauthenticated", message: /missing bearer token/ },
    {
      name: "wrong",
      headers: ["Authorization: Bearer nope"],
      status: 401,
      code: "unauthenticated",
      message: /invalid bearer token/,
    },
    {
      name: "a prefix of the right token",
      headers: [`Authorization: Bearer ${TOKEN.slice(0, 5)}`],
      status: 401,
      code: "unauthenticated",
    },
    {
      name: "not a bearer scheme",
      headers: [`Authorization: Basic ${TOKEN}`],
      status: 401,
      code: "unauthenticated",
    },
    { name: "right", headers: [`Authorization: Bearer ${TOKEN}`], status: 404, code: "not_found" },
    {
      name: "right, lower-case scheme",
      headers: [`Authorization: bearer ${TOKEN}`],
      status: 404,
      code: "not_found",
    },
  ];
  for (const c of cases) {
    test(`CommandService with ${c.name} token`, async () => {
      const r = await curlJson(srv.url + PROCESS, '{"host":"h"}', c.headers);
      assert.equal(r.status, c.status);
      const body = JSON.parse(r.body) as { code: string; message: string };
      assert.equal(body.code, c.code);
      if (c.message) assert.match(body.message, c.message);
      assert.doesNotMatch(r.body, new RegExp(TOKEN));
    });
  }

  test("gRPC callers send it as metadata", async () => {
    const addr = `127.0.0.1:${srv.port}`;
    await assert.rejects(
      grpcUnary(addr, PROCESS, ProcessCheckResultRequestSchema, ProcessCheckResultResponseSchema),
      (e: { code: number }) => e.code === GrpcStatus.UNAUTHENTICATED,
    );
    await assert.rejects(
      grpcUnary(addr, PROCESS, ProcessCheckResultRequestSchema, ProcessCheckResultResponseSchema, undefined, {
        authorization: `Bearer ${TOKEN}`,
      }),
      (e: { code: number }) => e.code === GrpcStatus.INVALID_ARGUMENT,
    );
  });

  test("QueryService is never gated by it", async () => {
    const r = await curlJson(srv.url + INFO, "{}");
    assert.equal(r.status, 200);
  });
});

describe("flags", () => {
  test("-h prints Go-style usage and exits 0", async () => {
    const r = await runLookout(["-h"]);
    assert.equal(r.code, 0);
    for (const f of [
      "listen",
      "config",
      "auth-config",
      "read-only",
      "api-token",
      "session-secret",
      "config-profile",
    ]) {
      assert.match(r.stderr, new RegExp(`^  -${f}\\b`, "m"), f);
    }
  });

  const bad: { args: string[]; err: RegExp }[] = [
    { args: ["-nope"], err: /flag provided but not defined: -nope/ },
    { args: ["-listen"], err: /flag needs an argument: -listen/ },
    { args: ["-config-profile", "prod"], err: /only "demo"/ },
    { args: ["-listen", "8080"], err: /want host:port/ },
    { args: ["-read-only=maybe"], err: /invalid boolean value/ },
    { args: ["stray"], err: /unexpected argument: stray/ },
  ];
  for (const c of bad) {
    test(`${c.args.join(" ")} is a usage error (exit 2)`, async () => {
      const r = await runLookout(c.args);
      assert.equal(r.code, 2);
      assert.match(r.stderr, c.err);
    });
  }

  test("an unreadable -config or a busy port fails at start with exit 1", async () => {
    const r = await runLookout(["-listen", "127.0.0.1:0", "-config", join(dir, "missing.cue")]);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /-config .*missing\.cue: file not readable/);
    const srv = await startServer(["-data-dir", join(dir, "data")]);
    try {
      const busy = await runLookout([
        "-listen",
        `127.0.0.1:${srv.port}`,
        "-data-dir",
        join(dir, "data-busy"),
      ]);
      assert.equal(busy.code, 1);
      assert.match(busy.stderr, /EADDRINUSE/);
    } finally {
      await srv.stop();
    }
  });
});
