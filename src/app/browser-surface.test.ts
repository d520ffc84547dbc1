import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import http from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { create, toBinary } from "@bufbuild/protobuf";
import * as grpc from "@grpc/grpc-js";
import { ProcessCheckResultsRequestSchema } from "../api/gen/svc/v1/command_service_pb.js";
import { ListStatusRequestSchema } from "../api/gen/svc/v1/query_service_pb.js";
import { tokenSha256 } from "../auth/index.js";
import { type NatsCluster, startNatsCluster } from "../testing/peers/nats.js";
import { MAIN_JS, type ServerProcess, startServer } from "../testing/server-process.js";
import { hostCheckOf, isLoopbackAddress, writesOpen } from "./open-writes.js";

// What a web page in someone's browser can do to a Lookout it can reach, against the real binary:
// DNS rebinding (a request whose Host is the attacker's name, sent here to 127.0.0.1 only),
// framing the dashboard, and reading /zones/workers without an identity.

const CONFIG = `hosts: web1: {
	address: "127.0.0.1"
	check: {type: "passive", freshness_threshold: "24h"}
	services: http: check: {type: "passive", freshness_threshold: "24h"}
}
`;
const INFO = "/svc.v1.QueryService/GetServerInfo";
const PROCESS = "/svc.v1.CommandService/ProcessCheckResult";

let dir: string;
before(async () => {
  dir = await mkdtemp(join(tmpdir(), "lookout-browser-"));
  await writeFile(join(dir, "c.cue"), CONFIG);
});
after(async () => {
  await rm(dir, { recursive: true, force: true });
});

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** One HTTP/1.1 request to 127.0.0.1 with the Host header given (node:http sends it as is). */
function call(
  port: number,
  host: string,
  path: string,
  o: { method?: string; body?: string | Buffer; headers?: Record<string, string> } = {},
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: "127.0.0.1",
        port,
        path,
        method: o.method ?? (o.body === undefined ? "GET" : "POST"),
        headers: {
          host,
          ...(o.body === undefined ? {} : { "content-type": "application/json" }),
          ...o.headers,
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            body: Buffer.concat(chunks).toString(),
          }),
        );
      },
    );
    req.once("error", reject);
    req.end(o.body);
  });
}

/** A gRPC unary call with @grpc/grpc-js whose `:authority` is `authority`; resolves with the status code. */
function grpcCode(
  port: number,
  authority: string | undefined,
  path: string,
  body: Uint8Array,
): Promise<number> {
  const client = new grpc.Client(
    `127.0.0.1:${port}`,
    grpc.credentials.createInsecure(),
    authority === undefined ? {} : { "grpc.default_authority": authority },
  );
  return new Promise((resolve) => {
    client.makeUnaryRequest(
      path,
      (b: Uint8Array) => Buffer.from(b),
      (b: Buffer) => b,
      body,
      new grpc.Metadata(),
      (err) => {
        client.close();
        resolve(err === null ? grpc.status.OK : (err as grpc.ServiceError).code);
      },
    );
  });
}

const served = (a: Answer) => a.status === 200;
const refused = (a: Answer) =>
  a.status === 403 && (JSON.parse(a.body) as { code: string }).code === "permission_denied";

describe("the Host check", () => {
  // Flag sets, and whether a request naming attacker.example is then refused.
  const cases: { name: string; args: string[]; env?: Record<string, string>; checked: boolean }[] = [
    { name: "no flags (writes open)", args: [], checked: true },
    {
      name: "-allowed-hosts lookout.example,192.0.2.7",
      args: ["-allowed-hosts", "lookout.example,192.0.2.7"],
      checked: true,
    },
    { name: "-allowed-hosts *", args: ["-allowed-hosts", "*"], checked: false },
    {
      name: "-api-token (writes need a token)",
      args: [],
      env: { LOOKOUT_API_TOKEN: "t0ken" },
      checked: false,
    },
    { name: "-read-only", args: ["-read-only"], checked: false },
    {
      name: "-api-token and -allowed-hosts (the list applies always)",
      args: ["-allowed-hosts", "lookout.example,other.example"],
      env: { LOOKOUT_API_TOKEN: "t0ken" },
      checked: true,
    },
  ];
  for (const c of cases) {
    test(c.name, async () => {
      const srv = await startServer(
        ["-config", join(dir, "c.cue"), "-data-dir", join(dir, `d-${c.name}`), ...c.args],
        {
          env: { PATH: process.env.PATH ?? "/usr/bin:/bin", ...c.env },
        },
      );
      try {
        const p = srv.port;
        const bad = [
          "attacker.example",
          `attacker.example:${p}`,
          "ATTACKER.example.",
          "127.0.0.1.attacker.example",
        ];
        for (const host of bad) {
          for (const [path, body] of [
            [INFO, "{}"],
            [PROCESS, '{"host":"web1","exitStatus":2,"output":"FORGED"}'],
            ["/", undefined],
            ["/metrics", undefined],
          ] as const) {
            const a = await call(p, host, path, body === undefined ? {} : { body });
            if (c.checked) {
              assert.ok(refused(a), `${host} ${path}: ${a.status} ${a.body}`);
              assert.match(a.body, /is not allowed: .*-allowed-hosts/);
            } else assert.notEqual(a.status, 403, `${host} ${path}: ${a.body}`);
          }
        }
        const good = [
          "localhost",
          `localhost:${p}`,
          "Localhost.",
          "dash.localhost",
          `127.0.0.1:${p}`,
          "127.9.9.9",
          `[::1]:${p}`,
          `[0:0::1]:${p}`,
          ...(c.args.some((a) => a.includes("lookout.example"))
            ? ["lookout.example", `LOOKOUT.example:${p}`]
            : []),
        ];
        for (const host of good) assert.ok(served(await call(p, host, INFO, { body: "{}" })), host);
        if (c.checked && !c.args.some((a) => a.includes("lookout.example"))) {
          assert.ok(refused(await call(p, "lookout.example", INFO, { body: "{}" })));
        }
        // An address that is not loopback is the operator's to list (-allowed-hosts 192.0.2.7).
        if (c.checked) {
          const listed = c.args.some((a) => a.includes("192.0.2.7"));
          const a = await call(p, "192.0.2.7:8080", INFO, { body: "{}" });
          assert.ok(listed ? served(a) : refused(a), `192.0.2.7: ${a.status} ${a.body}`);
        }
        // The fast paths (gRPC ingestion and ListStatus) answer before the router: checked too.
        const results = (output: string) =>
          toBinary(
            ProcessCheckResultsRequestSchema,
            create(ProcessCheckResultsRequestSchema, {
              results: [{ host: "web1", service: "http", exitStatus: 2, output }],
            }),
          );
        const list = toBinary(ListStatusRequestSchema, create(ListStatusRequestSchema, {}));
        const ingest = "/svc.v1.CommandService/ProcessCheckResults";
        const listStatus = "/svc.v1.QueryService/ListStatus";
        const want = c.checked ? grpc.status.PERMISSION_DENIED : grpc.status.OK;
        if (!c.args.includes("-read-only") && c.env?.LOOKOUT_API_TOKEN === undefined) {
          assert.equal(
            await grpcCode(p, "attacker.example", ingest, results("FORGED")),
            want,
            "gRPC ingestion",
          );
          assert.equal(
            await grpcCode(p, undefined, ingest, results("own")),
            grpc.status.OK,
            "gRPC, own authority",
          );
        }
        assert.equal(await grpcCode(p, "attacker.example:443", listStatus, list), want, "gRPC ListStatus");
        assert.equal(await grpcCode(p, `localhost:${p}`, listStatus, list), grpc.status.OK);
        // gRPC-Web (what a page would send) gets the status in its headers.
        const web = await call(p, "attacker.example", listStatus, {
          body: Buffer.from([0, 0, 0, 0, 0]),
          headers: { "content-type": "application/grpc-web+proto" },
        });
        if (c.checked) assert.equal(web.headers["grpc-status"], "7", JSON.stringify(web.headers));
        else assert.equal(web.status, 200, "gRPC-Web served (its status in the trailer frame)");
        assert.equal(web.headers["grpc-status"] === "7", c.checked, JSON.stringify(web.headers));
        if (c.checked) {
          // Nothing FORGED was applied, and the refusals are counted.
          const statuses = JSON.parse(
            (await call(p, "localhost", "/svc.v1.QueryService/ListStatus", { body: "{}" })).body,
          ) as { statuses?: { output?: string }[] };
          assert.ok(!(statuses.statuses ?? []).some((s) => s.output === "FORGED"));
          const metrics = (await call(p, "localhost", "/metrics")).body;
          const m = /^lookout_http_host_refused_total (\d+)/m.exec(metrics);
          assert.ok(m !== null && Number(m[1]) >= bad.length * 4 + 2, metrics.slice(0, 200));
          assert.match(
            srv.stderr(),
            /"level":"warn","msg":"refused a request for a Host that is not allowed/,
          );
        }
      } finally {
        await srv.stop();
      }
    });
  }

  test("open writes and loopback, as the start-up warning decides them", () => {
    const table: [Parameters<typeof writesOpen>[0], boolean][] = [
      [{ readOnly: false, apiToken: "", authConfig: "" }, true],
      [{ readOnly: true, apiToken: "", authConfig: "" }, false],
      [{ readOnly: false, apiToken: "t", authConfig: "" }, false],
      [{ readOnly: false, apiToken: "", authConfig: "a.cue" }, false],
    ];
    for (const [o, want] of table) assert.equal(writesOpen(o), want, JSON.stringify(o));
    // The name in -listen is the operator's own (the bundled config checks itself by it).
    const open = { readOnly: false, apiToken: "", authConfig: "", listen: "lookout.internal:8080" };
    assert.equal(hostCheckOf(open)?.("lookout.internal:8080"), true);
    assert.equal(hostCheckOf(open)?.("attacker.example:8080"), false);
    assert.equal(hostCheckOf({ ...open, listen: ":8080" })?.("lookout.internal"), false);
    assert.equal(hostCheckOf({ ...open, apiToken: "t" }), undefined, "not in force once writes need a token");
    for (const [a, want] of [
      ["127.0.0.1", true],
      ["127.3.2.1", true],
      ["::1", true],
      ["::ffff:127.0.0.1", true],
      ["0.0.0.0", false],
      ["::", false],
      ["192.0.2.1", false],
      ["fe80::1", false],
    ] as const) {
      assert.equal(isLoopbackAddress(a), want, a);
    }
  });

  test("writes open on a non-loopback address are said at warn level at start", async () => {
    // In a network namespace of its own (unshare -rn), so the wildcard address reaches nothing.
    for (const [args, warned] of [
      [["-listen", "0.0.0.0:0"], true],
      [["-listen", "0.0.0.0:0", "-read-only"], false],
      [["-listen", "127.0.0.1:0"], false],
    ] as const) {
      const child = spawn(
        "unshare",
        ["-rn", process.execPath, MAIN_JS, ...args, "-data-dir", join(dir, "d-ns")],
        {
          stdio: ["ignore", "ignore", "pipe"],
          env: { PATH: process.env.PATH ?? "/usr/bin:/bin" },
        },
      );
      let log = "";
      child.stderr.setEncoding("utf8");
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no "listening" line:\n${log}`)), 60_000);
        child.stderr.on("data", (c: string) => {
          log += c;
          if (log.includes('"msg":"listening"')) {
            clearTimeout(timer);
            resolve();
          }
        });
        child.once("exit", () => {
          clearTimeout(timer);
          reject(new Error(`exited before listening:\n${log}`));
        });
      }).finally(() => child.kill("SIGKILL"));
      const line = log.split("\n").find((l) => l.includes("writes are open"));
      assert.equal(line !== undefined, warned, `${args.join(" ")}:\n${log}`);
      if (line !== undefined) {
        assert.match(line, /"level":"warn"/);
        assert.match(line, /set -api-token or -auth-config, or -read-only/);
      }
    }
  });
});

describe("the dashboard's headers", () => {
  let srv: ServerProcess;
  before(async () => {
    srv = await startServer(["-config", join(dir, "c.cue"), "-data-dir", join(dir, "d-headers")]);
  });
  after(async () => {
    await srv.stop();
  });
  test("a Content-Security-Policy without inline script, no framing", async () => {
    const page = await call(srv.port, "localhost", "/");
    assert.equal(page.status, 200);
    const csp = String(page.headers["content-security-policy"]);
    assert.match(csp, /frame-ancestors 'none'/);
    assert.match(csp, /default-src '(self|none)'/);
    assert.doesNotMatch(csp, /unsafe-eval/);
    if (!/<style>/.test(page.body))
      assert.doesNotMatch(csp, /unsafe-inline/, "the built dashboard needs none");
    assert.equal(page.headers["x-frame-options"], "DENY");
  });
});

describe("/zones/workers with -auth-config", () => {
  let nats: NatsCluster;
  let srv: ServerProcess;
  const VIEWER = "viewer-token-for-zones";
  before(async () => {
    nats = await startNatsCluster(1);
    await writeFile(
      join(dir, "auth.cue"),
      `identities: v: {role: "viewer", token_sha256: "${tokenSha256(VIEWER)}"}\n`,
    );
    srv = await startServer(
      [
        "-config",
        join(dir, "c.cue"),
        "-data-dir",
        join(dir, "d-zones"),
        "-nats",
        nats.urls,
        "-auth-config",
        join(dir, "auth.cue"),
        "-session-secret",
        "browser-surface-test-session-secret-0123456789",
      ],
      { timeoutMs: 60_000 },
    );
  });
  after(async () => {
    await srv?.stop();
    await nats?.stop();
  });
  test("needs a viewer: no identity is unauthenticated, a viewer reads it", async () => {
    const anonymous = await call(srv.port, "localhost", "/zones/workers");
    assert.equal(anonymous.status, 401, anonymous.body);
    assert.equal((JSON.parse(anonymous.body) as { code: string }).code, "unauthenticated");
    const wrong = await call(srv.port, "localhost", "/zones/workers", {
      headers: { authorization: "Bearer nope" },
    });
    assert.equal(wrong.status, 401);
    const viewer = await call(srv.port, "localhost", "/zones/workers", {
      headers: { authorization: `Bearer ${VIEWER}` },
    });
    assert.equal(viewer.status, 200, viewer.body);
    assert.equal((JSON.parse(viewer.body) as { leading: boolean }).leading, true);
  });
});
