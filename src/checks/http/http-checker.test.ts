import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { HttpProbe } from "../../model/config.js";
import { checkTarget, describeCheckContract } from "../../testing/check-contract.js";
import { testPki } from "../../testing/peers/certs.js";
import { type HttpPeer, startHttpServer } from "../../testing/peers/http.js";
import { closedTcpPort } from "../../testing/peers/tcp.js";
import { createHttpChecker, stateForStatus } from "./index.js";

const http = (url: string) => checkTarget<HttpProbe>({ type: "http", url });

describeCheckContract("http", async () => {
  const server = await startHttpServer();
  const closed = await closedTcpPort();
  return {
    checker: createHttpChecker(),
    ok: http(`${server.base}/status/200`),
    failing: http(`http://127.0.0.1:${closed}/`),
    failingOutput: /^HTTP CRITICAL - GET on 127\.0\.0\.1 port \d+: Connection refused$/,
    hanging: http(`${server.base}/hang`),
    malformed: [
      http("ftp://127.0.0.1/"),
      http("not a url"),
      http("http://"),
      // Options no decoder made: the run still settles with an outcome.
      checkTarget({
        type: "http",
        url: `${server.base}/status/200`,
        expectStatus: 5,
      } as unknown as HttpProbe),
      checkTarget({
        type: "http",
        url: `${server.base}/status/200`,
        headers: { "x-a": 1 },
      } as unknown as HttpProbe),
    ],
    teardown: () => server.stop(),
  };
});

describe("http status mapping", () => {
  const table: [number, number][] = [
    [200, 0],
    [204, 0],
    [301, 0],
    [304, 0],
    [399, 0],
    [400, 1],
    [404, 1],
    [499, 1],
    [500, 2],
    [503, 2],
    [599, 2],
    [199, 2],
    [600, 2],
  ];
  for (const [code, state] of table) {
    it(`${code} -> ${state}`, () => assert.equal(stateForStatus(code), state));
  }
});

describe("http checker", () => {
  const pki = testPki();
  const trusting = createHttpChecker({ ca: [pki.ca] });
  const plain = createHttpChecker();
  const peers: Record<string, HttpPeer> = {};
  let closed = 0;
  before(async () => {
    peers.http = await startHttpServer();
    peers.http6 = await startHttpServer({ host: "::1" });
    peers.https = await startHttpServer({ tls: pki.issue({ names: ["127.0.0.1", "localhost"], days: 30 }) });
    peers.selfSigned = await startHttpServer({
      tls: pki.issue({ names: ["127.0.0.1"], days: 30, selfSigned: true }),
    });
    peers.wrongName = await startHttpServer({ tls: pki.issue({ names: ["other.example.test"], days: 30 }) });
    peers.expired = await startHttpServer({ tls: pki.issue({ names: ["127.0.0.1"], days: -1 }) });
    closed = await closedTcpPort();
  });
  after(async () => {
    for (const p of Object.values(peers)) await p.stop();
  });

  const cases: {
    name: string;
    url: () => string;
    trust?: boolean;
    abortAfterMs?: number;
    status: number;
    output: RegExp;
    size?: number;
  }[] = [
    {
      name: "200",
      url: () => `${peers.http!.base}/status/200`,
      status: 0,
      output: /^HTTP OK - HTTP\/1\.1 200 OK - 11 bytes in \d+\.\d{3} second response time$/,
      size: 11,
    },
    {
      name: "204",
      url: () => `${peers.http!.base}/status/204`,
      status: 0,
      output: /^HTTP OK - HTTP\/1\.1 204 No Content - 0 bytes/,
      size: 0,
    },
    {
      name: "302 not followed",
      url: () => `${peers.http!.base}/redirect`,
      status: 0,
      output: /^HTTP OK - HTTP\/1\.1 302 Found - 0 bytes/,
    },
    {
      name: "404",
      url: () => `${peers.http!.base}/status/404`,
      status: 1,
      output: /^HTTP WARNING - HTTP\/1\.1 404 Not Found - 11 bytes/,
    },
    {
      name: "500",
      url: () => `${peers.http!.base}/status/500`,
      status: 2,
      output: /^HTTP CRITICAL - HTTP\/1\.1 500 Internal Server Error/,
    },
    {
      name: "503",
      url: () => `${peers.http!.base}/status/503`,
      status: 2,
      output: /^HTTP CRITICAL - HTTP\/1\.1 503 Service Unavailable/,
    },
    {
      name: "large body",
      url: () => `${peers.http!.base}/bytes/1000000`,
      status: 0,
      output: / 1000000 bytes in /,
      size: 1_000_000,
    },
    {
      name: "chunked body",
      url: () => `${peers.http!.base}/chunked/50`,
      status: 0,
      output: / 50000 bytes in /,
      size: 50_000,
    },
    {
      name: "| in reason phrase",
      url: () => `${peers.http!.base}/reason`,
      status: 0,
      output: /^HTTP OK - HTTP\/1\.1 200 Fine \/ Dandy - 3 bytes/,
    },
    {
      name: "IPv6",
      url: () => `${peers.http6!.base}/status/200`,
      status: 0,
      output: /^HTTP OK - HTTP\/1\.1 200 OK/,
    },
    {
      name: "slow response times out",
      url: () => `${peers.http!.base}/slow/2000`,
      abortAfterMs: 150,
      status: 2,
      output: /^HTTP CRITICAL - GET on 127\.0\.0\.1 port \d+: timed out after \d\.\d{3} seconds$/,
    },
    {
      name: "slow response in time",
      url: () => `${peers.http!.base}/slow/100`,
      status: 0,
      output: /^HTTP OK - HTTP\/1\.1 200 OK - 5 bytes in 0\.[1-9]\d\d second/,
    },
    {
      name: "connection dropped mid-body",
      url: () => `${peers.http!.base}/truncate`,
      status: 2,
      output: /^HTTP CRITICAL - GET on 127\.0\.0\.1 port \d+: Connection reset by peer$/,
    },
    {
      name: "connection refused",
      url: () => `http://127.0.0.1:${closed}/`,
      status: 2,
      output: /^HTTP CRITICAL - GET on 127\.0\.0\.1 port \d+: Connection refused$/,
    },
    {
      name: "https trusted",
      url: () => `${peers.https!.base}/status/200`,
      trust: true,
      status: 0,
      output: /^HTTP OK - HTTP\/1\.1 200 OK/,
    },
    {
      name: "https by name (SNI)",
      url: () => `https://localhost:${peers.https!.port}/status/200`,
      trust: true,
      status: 0,
      output: /^HTTP OK - /,
    },
    {
      name: "https with an unknown CA",
      url: () => `${peers.https!.base}/status/200`,
      status: 2,
      output:
        /^HTTP CRITICAL - TLS certificate of 127\.0\.0\.1 port \d+ rejected: unable to verify the first certificate \(UNABLE_TO_VERIFY_LEAF_SIGNATURE\)$/,
    },
    {
      name: "https self-signed",
      url: () => `${peers.selfSigned!.base}/status/200`,
      trust: true,
      status: 2,
      output:
        /^HTTP CRITICAL - TLS certificate of 127\.0\.0\.1 port \d+ rejected: self-signed certificate \(DEPTH_ZERO_SELF_SIGNED_CERT\)$/,
    },
    {
      name: "https wrong host name",
      url: () => `${peers.wrongName!.base}/status/200`,
      trust: true,
      status: 2,
      output:
        /^HTTP CRITICAL - TLS certificate of 127\.0\.0\.1 port \d+ rejected: certificate does not match the host name \(certificate names DNS:other\.example\.test\)$/,
    },
    {
      name: "https expired",
      url: () => `${peers.expired!.base}/status/200`,
      trust: true,
      status: 2,
      output: /rejected: certificate has expired \(CERT_HAS_EXPIRED\)$/,
    },
    {
      name: "ftp url",
      url: () => "ftp://127.0.0.1/",
      status: 3,
      output: /^HTTP UNKNOWN - unsupported url scheme "ftp:"$/,
    },
    { name: "not a url", url: () => "127.0.0.1:80", status: 3, output: /^HTTP UNKNOWN - / },
    {
      name: "credentials never echoed",
      url: () => `http://user:s3cret@127.0.0.1:${closed}/?token=s3cret`,
      status: 2,
      output: /^HTTP CRITICAL - GET on 127\.0\.0\.1 port \d+: Connection refused$/,
    },
  ];

  for (const c of cases) {
    it(c.name, async () => {
      const checker = c.trust === true ? trusting : plain;
      const o = await checker.run(http(c.url()), AbortSignal.timeout(c.abortAfterMs ?? 5_000));
      assert.equal(o.exitStatus, c.status, o.output);
      assert.match(o.output, c.output);
      assert.doesNotMatch(o.output, /s3cret/);
      if (o.output.includes(" bytes in ")) {
        assert.deepEqual(
          o.perfdata.map((p) => [p.label, p.uom, p.min]),
          [
            ["time", "s", 0],
            ["size", "B", 0],
          ],
        );
        if (c.size !== undefined) assert.equal(o.perfdata[1]!.value, c.size);
      } else {
        assert.deepEqual(o.perfdata, []);
      }
    });
  }
});
