import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import type { HttpProbe } from "../../model/config.js";
import { assertWellFormed, checkTarget } from "../../testing/check-contract.js";
import { testPki } from "../../testing/peers/certs.js";
import { type NginxPeer, startNginx } from "../../testing/peers/nginx.js";
import { closedTcpPort } from "../../testing/peers/tcp.js";
import { createHttpChecker } from "./index.js";

const SECRET = "Bearer s3cret-token-42";

/**
 * The http check's options against Debian's nginx: a private CA the test made (trusted through
 * `ca_file` only), two name-based TLS servers on one port (SNI), a self-signed server, and a
 * plain server whose locations answer by method, header, status, body and redirect chain.
 */
describe("http check against nginx", () => {
  const pki = testPki();
  let nginx: NginxPeer;
  let tlsPort = 0;
  let selfPort = 0;
  let plainPort = 0;
  let caFile = "";
  const checker = createHttpChecker();

  before(async () => {
    tlsPort = await closedTcpPort();
    selfPort = await closedTcpPort();
    plainPort = await closedTcpPort();
    const a = pki.issue({ names: ["a.test", "127.0.0.1"], days: 30 });
    const b = pki.issue({ names: ["b.test"], days: 30 });
    const self = pki.issue({ names: ["127.0.0.1"], days: 30, selfSigned: true });
    nginx = await startNginx([tlsPort, selfPort, plainPort], (dir) => {
      for (const [n, c] of Object.entries({ a, b, self })) {
        writeFileSync(join(dir, `${n}.pem`), c.cert);
        writeFileSync(join(dir, `${n}.key`), c.key);
      }
      writeFileSync(join(dir, "ca.pem"), pki.ca);
      const tls = (name: string, cert: string) => `
  server {
    listen 127.0.0.1:${tlsPort} ssl;
    server_name ${name};
    ssl_certificate ${join(dir, `${cert}.pem`)};
    ssl_certificate_key ${join(dir, `${cert}.key`)};
    location / { return 200 "server ${cert}\\n"; }
  }`;
      return `${tls("a.test", "a")}${tls("b.test", "b")}
  server {
    listen 127.0.0.1:${selfPort} ssl;
    ssl_certificate ${join(dir, "self.pem")};
    ssl_certificate_key ${join(dir, "self.key")};
    location / { return 200 "self\\n"; }
  }
  server {
    listen 127.0.0.1:${plainPort};
    root ${dir};
    location = /method { return 200 "method $request_method\\n"; }
    location = /header { return 200 "x-probe $http_x_probe\\n"; }
    location = /page { return 200 "<title>Lookout status: all good, build 1234</title>\\n"; }
    location = /gone { return 410 "gone\\n"; }
    location = /r3 { return 302 /r2; }
    location = /r2 { return 301 /r1; }
    location = /r1 { return 307 /final; }
    location = /final { return 200 "final $request_method\\n"; }
    location /put/ { dav_methods PUT; create_full_put_path on; }
  }`;
    });
    caFile = join(nginx.dir, "ca.pem");
  });
  after(async () => {
    await nginx?.stop();
  });

  const https = (extra: Partial<HttpProbe> = {}, port = () => tlsPort) => ({
    type: "http" as const,
    url: `https://127.0.0.1:${port()}/`,
    ...extra,
  });
  const plain = (path: string, extra: Partial<HttpProbe> = {}) => ({
    type: "http" as const,
    url: `http://127.0.0.1:${plainPort}${path}`,
    ...extra,
  });

  const cases: { name: string; probe: () => HttpProbe; status: number; output: RegExp }[] = [
    {
      name: "private CA trusted through ca_file",
      probe: () => https({ caFile, expectBody: "server a" }),
      status: 0,
      output: /^HTTP OK - HTTP\/1\.1 200 OK - \d+ bytes in /,
    },
    {
      name: "private CA without ca_file",
      probe: () => https(),
      status: 2,
      output:
        /^HTTP CRITICAL - TLS certificate of 127\.0\.0\.1 port \d+ rejected: unable to verify the first certificate \(UNABLE_TO_VERIFY_LEAF_SIGNATURE\)$/,
    },
    {
      name: "ca_file does not make a self-signed certificate trusted",
      probe: () => https({ caFile }, () => selfPort),
      status: 2,
      output: /rejected: self-signed certificate \(DEPTH_ZERO_SELF_SIGNED_CERT\)$/,
    },
    {
      name: "tls_verify false accepts a self-signed certificate",
      probe: () => https({ tlsVerify: false, expectBody: "self" }, () => selfPort),
      status: 0,
      output: /^HTTP OK - HTTP\/1\.1 200 OK/,
    },
    {
      name: "sni selects the server block and its certificate is verified against it",
      probe: () => https({ caFile, sni: "b.test", headers: { Host: "b.test" }, expectBody: "server b" }),
      status: 0,
      output: /^HTTP OK - HTTP\/1\.1 200 OK/,
    },
    {
      name: "without sni the default server answers",
      probe: () => https({ caFile, expectBody: "server b" }),
      status: 2,
      output: /^HTTP CRITICAL - HTTP\/1\.1 200 OK - body does not contain "server b" - /,
    },
    {
      name: "sni naming a server whose certificate lacks the name",
      probe: () => https({ caFile, sni: "c.test" }),
      status: 2,
      output: /rejected: certificate does not match the host name \(certificate names DNS:a\.test/,
    },
    {
      name: "method seen by nginx",
      probe: () => plain("/method", { method: "DELETE", expectBody: "method DELETE" }),
      status: 0,
      output: /^HTTP OK - /,
    },
    {
      name: "HEAD has no body",
      probe: () => plain("/method", { method: "HEAD" }),
      status: 0,
      output: /^HTTP OK - HTTP\/1\.1 200 OK - 0 bytes in /,
    },
    {
      name: "header seen by nginx",
      probe: () => plain("/header", { headers: { "X-Probe": "hello-42" }, expectBody: "x-probe hello-42" }),
      status: 0,
      output: /^HTTP OK - /,
    },
    {
      name: "default status mapping: 410 warns",
      probe: () => plain("/gone"),
      status: 1,
      output: /^HTTP WARNING - HTTP\/1\.1 410 Gone - 5 bytes in /,
    },
    {
      name: "expect_status makes 410 OK",
      probe: () =>
        plain("/gone", {
          expectStatus: [
            [200, 200],
            [410, 410],
          ],
        }),
      status: 0,
      output: /^HTTP OK - HTTP\/1\.1 410 Gone/,
    },
    {
      name: "expect_status refuses a 200 outside it",
      probe: () =>
        plain("/page", {
          expectStatus: [
            [204, 204],
            [300, 399],
          ],
        }),
      status: 2,
      output: /^HTTP CRITICAL - HTTP\/1\.1 200 OK - status 200 is not one of 204, 300-399 - /,
    },
    {
      name: "expect_body found",
      probe: () => plain("/page", { expectBody: "all good" }),
      status: 0,
      output: /^HTTP OK - /,
    },
    {
      name: "expect_body_regex matched (RE2 with a flag)",
      probe: () => plain("/page", { expectBodyRegex: "(?i)STATUS: ALL GOOD, build [0-9]+" }),
      status: 0,
      output: /^HTTP OK - /,
    },
    {
      name: "expect_body_regex matched (common subset)",
      probe: () => plain("/page", { expectBodyRegex: "build \\d{4}<" }),
      status: 0,
      output: /^HTTP OK - /,
    },
    {
      name: "expect_body_regex not matched",
      probe: () => plain("/page", { expectBodyRegex: "build [a-z]+" }),
      status: 2,
      output: /^HTTP CRITICAL - HTTP\/1\.1 200 OK - body does not match "build \[a-z\]\+" - /,
    },
    {
      name: "a redirect is judged as it is by default",
      probe: () => plain("/r3"),
      status: 0,
      output: /^HTTP OK - HTTP\/1\.1 302 Moved Temporarily - /,
    },
    {
      name: "redirects followed up to max",
      probe: () => plain("/r3", { followRedirects: 3, expectBody: "final GET" }),
      status: 0,
      output: /^HTTP OK - HTTP\/1\.1 200 OK - 10 bytes in /,
    },
    {
      name: "and not beyond",
      probe: () => plain("/r3", { followRedirects: 2 }),
      status: 2,
      output: /^HTTP CRITICAL - HTTP\/1\.1 307 Temporary Redirect - more than 2 redirects$/,
    },
    {
      name: "a POST redirected by 302 becomes a GET",
      probe: () => plain("/r3", { method: "POST", body: "x", followRedirects: 5, expectBody: "final GET" }),
      status: 0,
      output: /^HTTP OK - /,
    },
  ];
  for (const c of cases) {
    it(c.name, async () => {
      const o = await checker.run(checkTarget(c.probe()), AbortSignal.timeout(5_000));
      assertWellFormed(o, c.name);
      assert.equal(o.exitStatus, c.status, `${o.output}\n${nginx.errorLog()}`);
      assert.match(o.output, c.output);
    });
  }

  it("a PUT's body reaches nginx", async () => {
    const o = await checker.run(
      checkTarget(plain("/put/probe.txt", { method: "PUT", body: "hello from lookout\n" })),
      AbortSignal.timeout(5_000),
    );
    assert.equal(o.exitStatus, 0, o.output);
    assert.match(o.output, /^HTTP OK - HTTP\/1\.1 201 Created/);
    assert.equal(readFileSync(join(nginx.dir, "put", "probe.txt"), "utf8"), "hello from lookout\n");
  });

  it("a header's value never reaches the output, even on failure", async () => {
    for (const probe of [
      plain("/header", { headers: { Authorization: SECRET }, expectBody: "nope" }),
      https({ headers: { Authorization: SECRET } }),
      {
        ...plain("/"),
        url: `http://127.0.0.1:${await closedTcpPort()}/`,
        headers: { Authorization: SECRET },
      },
    ]) {
      const o = await checker.run(checkTarget(probe), AbortSignal.timeout(5_000));
      assert.notEqual(o.exitStatus, 0, o.output);
      assert.doesNotMatch(`${o.output} ${o.longOutput}`, /s3cret/);
    }
  });
});
