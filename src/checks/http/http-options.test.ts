import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { HttpProbe } from "../../model/config.js";
import { assertWellFormed, checkTarget } from "../../testing/check-contract.js";
import { type HttpPeer, startHttpServer } from "../../testing/peers/http.js";
import { BODY_LIMIT } from "./exchange.js";
import { createHttpChecker } from "./index.js";

/** A request as the capturing server saw it. */
interface Echo {
  method: string;
  headers: Record<string, string>;
  body: string;
}

/**
 * The http check's options where nginx cannot show what arrived (the whole request) or cannot
 * wait (response time): a capturing Node server, and the test server's `/slow/<ms>` route.
 */
describe("http check options against a Node server", () => {
  const checker = createHttpChecker({ ca: [] });
  let a: HttpPeer;
  let b: HttpPeer;
  before(async () => {
    a = await startHttpServer();
    b = await startHttpServer();
  });
  after(async () => {
    await a.stop();
    await b.stop();
  });
  const run = (probe: Omit<HttpProbe, "type">) =>
    checker.run(checkTarget<HttpProbe>({ type: "http", ...probe }), AbortSignal.timeout(5_000));

  it("sends method, headers and body", async () => {
    const captured: Echo[] = [];
    const server = await startCapture(captured);
    try {
      const o = await run({
        url: `http://127.0.0.1:${server.port}/api`,
        method: "POST",
        headers: {
          Authorization: "Bearer s3cret",
          "Content-Type": "application/json",
          "User-Agent": "probe/1",
        },
        body: '{"ping":true}',
      });
      assert.equal(o.exitStatus, 0, o.output);
      assert.doesNotMatch(o.output, /s3cret/);
      assert.equal(captured.length, 1);
      const req = captured[0] as Echo;
      assert.equal(req.method, "POST");
      assert.equal(req.body, '{"ping":true}');
      assert.equal(req.headers.authorization, "Bearer s3cret");
      assert.equal(req.headers["content-type"], "application/json");
      assert.equal(req.headers["content-length"], "13");
      assert.equal(req.headers["user-agent"], "probe/1");
    } finally {
      await server.stop();
    }
  });

  it("headers go to the configured origin only, never after a redirect to another", async () => {
    const captured: Echo[] = [];
    const server = await startCapture(captured);
    try {
      const o = await run({
        url: `${a.base}/to/${server.port}/landing`,
        followRedirects: 1,
        headers: { Authorization: "Bearer s3cret", "X-Trace": "1" },
      });
      assert.equal(o.exitStatus, 0, o.output);
      assert.equal(captured.length, 1);
      assert.equal(captured[0]?.headers.authorization, undefined);
      assert.equal(captured[0]?.headers["x-trace"], undefined);
      assert.equal(captured[0]?.headers["user-agent"], "lookout-check-http");
    } finally {
      await server.stop();
    }
  });

  const timing: {
    name: string;
    path: string;
    warnMs?: number;
    critMs?: number;
    status: number;
    output: RegExp;
    perf: [string, string];
  }[] = [
    {
      name: "slower than warn",
      path: "/slow/300",
      warnMs: 100,
      status: 1,
      output:
        /^HTTP WARNING - HTTP\/1\.1 200 OK - response time above warn 0\.100 s - 5 bytes in 0\.[3-9]\d\d second/,
      perf: ["0.1", ""],
    },
    {
      name: "slower than crit",
      path: "/slow/300",
      warnMs: 50,
      critMs: 100,
      status: 2,
      output: /^HTTP CRITICAL - HTTP\/1\.1 200 OK - response time above crit 0\.100 s - /,
      perf: ["0.05", "0.1"],
    },
    {
      name: "within both",
      path: "/status/200",
      warnMs: 4_000,
      critMs: 8_000,
      status: 0,
      output: /^HTTP OK - HTTP\/1\.1 200 OK - 11 bytes in /,
      perf: ["4", "8"],
    },
    { name: "no thresholds", path: "/status/200", status: 0, output: /^HTTP OK - /, perf: ["", ""] },
  ];
  for (const c of timing) {
    it(`response time: ${c.name}`, async () => {
      const o = await run({
        url: `${a.base}${c.path}`,
        ...(c.warnMs === undefined ? {} : { warnMs: c.warnMs }),
        ...(c.critMs === undefined ? {} : { critMs: c.critMs }),
      });
      assertWellFormed(o, c.name);
      assert.equal(o.exitStatus, c.status, o.output);
      assert.match(o.output, c.output);
      const time = o.perfdata.find((p) => p.label === "time");
      assert.deepEqual([time?.warn, time?.crit], c.perf);
      assert.equal(time?.max, 10);
    });
  }

  it("a ca_file that went away since the config was loaded is UNKNOWN", async () => {
    const o = await run({ url: "https://127.0.0.1:1/", caFile: "/nonexistent/lookout-ca.pem" });
    assert.equal(o.exitStatus, 3);
    assert.equal(
      o.output,
      'HTTP UNKNOWN - cannot read ca_file "/nonexistent/lookout-ca.pem": No such file or directory',
    );
  });

  it("a body expectation looks into the first MiB only", async () => {
    const server = await startCapture([], (url) => {
      const at = Number(url.slice(1));
      return Buffer.concat([Buffer.alloc(at, 120), Buffer.from("needle")]);
    });
    try {
      const table: [number, number][] = [
        [BODY_LIMIT - 6, 0],
        [BODY_LIMIT - 5, 2],
        [BODY_LIMIT + 10, 2],
      ];
      for (const [at, status] of table) {
        const o = await run({ url: `http://127.0.0.1:${server.port}/${at}`, expectBody: "needle" });
        assert.equal(o.exitStatus, status, `${at}: ${o.output}`);
        assert.match(o.output, new RegExp(` ${at + 6} bytes in `));
        const re = await run({ url: `http://127.0.0.1:${server.port}/${at}`, expectBodyRegex: "ne+dle$" });
        assert.equal(re.exitStatus, status, `${at}: ${re.output}`);
      }
    } finally {
      await server.stop();
    }
  });
});

/** A server that records each request it answers (200, `reply`), for the checks' own requests. */
async function startCapture(
  into: Echo[],
  reply: (url: string) => string | Buffer = () => "ok\n",
): Promise<{ port: number; stop(): Promise<void> }> {
  const { createServer } = await import("node:http");
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      into.push({
        method: req.method ?? "",
        headers: req.headers as Record<string, string>,
        body: Buffer.concat(chunks).toString(),
      });
      res.writeHead(200).end(reply(req.url ?? "/"));
    });
  });
  await new Promise<void>((resolve) => server.listen({ host: "127.0.0.1", port: 0 }, () => resolve()));
  const port = (server.address() as { port: number }).port;
  return {
    port,
    stop: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
