import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { TlsProbe } from "../../model/config.js";
import { checkTarget, describeCheckContract } from "../../testing/check-contract.js";
import { testPki } from "../../testing/peers/certs.js";
import { closedTcpPort, type Peer, startTcpBlackhole, startTcpListener } from "../../testing/peers/tcp.js";
import { startTlsServer } from "../../testing/peers/tls.js";
import { createTlsChecker } from "./index.js";

const HOUR = 3_600_000;
const tls = (address: string, within: { warn?: number; crit?: number } = {}) =>
  checkTarget<TlsProbe>({
    type: "tls",
    address,
    warnWithinMs: within.warn ?? 336 * HOUR,
    critWithinMs: within.crit ?? 72 * HOUR,
  });

describeCheckContract("tls", async () => {
  const pki = testPki();
  const good = await startTlsServer(pki.issue({ names: ["127.0.0.1", "localhost"], days: 90 }));
  const expired = await startTlsServer(pki.issue({ names: ["127.0.0.1"], days: -1 }));
  const silent = await startTcpListener("127.0.0.1", { silent: true });
  return {
    checker: createTlsChecker({ ca: [pki.ca] }),
    ok: tls(good.address),
    failing: tls(expired.address),
    failingOutput: /^SSL_CERT CRITICAL - .* expired /,
    hanging: tls(silent.address),
    async teardown() {
      await good.stop();
      await expired.stop();
      await silent.stop();
    },
  };
});

describe("tls checker", () => {
  const pki = testPki();
  const trusting = createTlsChecker({ ca: [pki.ca] });
  const plain = createTlsChecker();
  const peers: Record<string, Peer> = {};
  let closed = 0;
  before(async () => {
    const ip = ["127.0.0.1", "::1", "localhost"];
    peers.d90 = await startTlsServer(pki.issue({ names: ip, days: 90 }));
    peers.d30 = await startTlsServer(pki.issue({ names: ip, days: 30 }));
    peers.d10 = await startTlsServer(pki.issue({ names: ip, days: 10 }));
    peers.d2 = await startTlsServer(pki.issue({ names: ip, days: 2 }));
    peers.expired = await startTlsServer(pki.issue({ names: ip, days: -1 }));
    peers.selfSigned = await startTlsServer(pki.issue({ names: ip, days: 90, selfSigned: true }));
    peers.wrongName = await startTlsServer(pki.issue({ names: ["other.example.test"], days: 90 }));
    peers.intermediate2 = await startTlsServer(pki.issue({ names: ip, days: 90, intermediateDays: 2 }));
    peers.intermediate90 = await startTlsServer(pki.issue({ names: ip, days: 30, intermediateDays: 90 }));
    peers.v6 = await startTlsServer(pki.issue({ names: ip, days: 90 }), "::1");
    peers.plainTcp = await startTcpListener();
    peers.silent = await startTcpListener("127.0.0.1", { silent: true });
    peers.hole = await startTcpBlackhole();
    closed = await closedTcpPort();
  });
  after(async () => {
    for (const p of Object.values(peers)) await p.stop();
  });

  const cases: {
    name: string;
    address: () => string;
    within?: { warn?: number; crit?: number };
    untrusted?: boolean;
    abortAfterMs?: number;
    status: number;
    output: RegExp;
    days?: [number, number];
  }[] = [
    {
      name: "90 days left",
      address: () => peers.d90!.address,
      status: 0,
      output:
        /^SSL_CERT OK - 127\.0\.0\.1 port \d+: certificate '127\.0\.0\.1' from 'Lookout Test CA' valid until \d{4}-\d\d-\d\d \d\d:\d\d UTC, expires in (89|90) days$/,
      days: [89, 90],
    },
    {
      name: "10 days left warns",
      address: () => peers.d10!.address,
      status: 1,
      output: /^SSL_CERT WARNING - .*, expires in 9 days$/,
      days: [9, 9],
    },
    {
      name: "2 days left is critical",
      address: () => peers.d2!.address,
      status: 2,
      output: /^SSL_CERT CRITICAL - .*, expires in 4[78]\.\d hours$/,
      days: [1, 1],
    },
    {
      name: "expired",
      address: () => peers.expired!.address,
      status: 2,
      output: /^SSL_CERT CRITICAL - .*, expired 2[34]\.\d hours ago$/,
      days: [-1, 0],
    },
    {
      name: "custom warn_within",
      address: () => peers.d30!.address,
      within: { warn: 40 * 24 * HOUR },
      status: 1,
      output: /^SSL_CERT WARNING - .*, expires in 29 days$/,
    },
    {
      name: "custom crit_within",
      address: () => peers.d30!.address,
      within: { warn: 60 * 24 * HOUR, crit: 31 * 24 * HOUR },
      status: 2,
      output: /^SSL_CERT CRITICAL - .*expires in 29 days$/,
    },
    {
      name: "intermediate expiring in 2 days",
      address: () => peers.intermediate2!.address,
      status: 2,
      output:
        /^SSL_CERT CRITICAL - 127\.0\.0\.1 port \d+: certificate '127\.0\.0\.1' from 'Lookout Test Intermediate \d+' .*, intermediate 'Lookout Test Intermediate \d+' expires in 4[78]\.\d hours$/,
      days: [1, 1],
    },
    {
      name: "healthy intermediate",
      address: () => peers.intermediate90!.address,
      status: 0,
      output: /^SSL_CERT OK - .* from 'Lookout Test Intermediate \d+' .*, expires in (29|30) days$/,
      days: [29, 30],
    },
    {
      name: "self-signed",
      address: () => peers.selfSigned!.address,
      status: 2,
      output:
        /^SSL_CERT CRITICAL - .*, chain not trusted: self-signed certificate \(DEPTH_ZERO_SELF_SIGNED_CERT\)$/,
    },
    {
      name: "unknown CA",
      address: () => peers.d90!.address,
      untrusted: true,
      status: 2,
      output:
        /chain not trusted: unable to verify the first certificate \(UNABLE_TO_VERIFY_LEAF_SIGNATURE\)$/,
    },
    {
      name: "wrong host name",
      address: () => peers.wrongName!.address,
      status: 2,
      output:
        /^SSL_CERT CRITICAL - 127\.0\.0\.1 port \d+: certificate 'other\.example\.test' .*, does not match 127\.0\.0\.1 \(certificate names DNS:other\.example\.test\)$/,
    },
    {
      name: "by name",
      address: () => `localhost:${peers.d90!.port}`,
      status: 0,
      output: /^SSL_CERT OK - localhost port \d+: /,
    },
    { name: "IPv6", address: () => peers.v6!.address, status: 0, output: /^SSL_CERT OK - ::1 port \d+: / },
    {
      name: "connection refused",
      address: () => `127.0.0.1:${closed}`,
      status: 2,
      output: /^SSL_CERT CRITICAL - connect to 127\.0\.0\.1 port \d+: Connection refused$/,
    },
    {
      name: "not TLS",
      address: () => peers.plainTcp!.address,
      status: 2,
      output: /^SSL_CERT CRITICAL - TLS handshake with 127\.0\.0\.1 port \d+ failed: /,
    },
    {
      name: "handshake never answered",
      address: () => peers.silent!.address,
      abortAfterMs: 200,
      status: 2,
      output:
        /^SSL_CERT CRITICAL - TLS handshake with 127\.0\.0\.1 port \d+: timed out after \d\.\d{3} seconds$/,
    },
    {
      name: "connect never completes",
      address: () => peers.hole!.address,
      abortAfterMs: 200,
      status: 2,
      output: /timed out after \d\.\d{3} seconds$/,
    },
    {
      name: "bad address",
      address: () => "127.0.0.1:http",
      status: 3,
      output: /^SSL_CERT UNKNOWN - invalid address/,
    },
  ];

  for (const c of cases) {
    it(c.name, async () => {
      const checker = c.untrusted === true ? plain : trusting;
      const o = await checker.run(tls(c.address(), c.within), AbortSignal.timeout(c.abortAfterMs ?? 5_000));
      assert.equal(o.exitStatus, c.status, o.output);
      assert.match(o.output, c.output);
      const days = o.perfdata.find((p) => p.label === "days");
      if (c.days !== undefined) {
        assert.ok(days !== undefined, "days perfdata");
        assert.ok(days.value >= c.days[0] && days.value <= c.days[1], `days ${days.value}`);
        assert.equal(days.warn, "14:");
        assert.equal(days.crit, "3:");
        assert.equal(o.perfdata[0]!.label, "time");
        // The output and the perfdata say the same whole days.
        const said = /expires in (\d+) days$/.exec(o.output);
        if (said !== null) assert.equal(days.value, Number(said[1]), o.output);
      }
    });
  }

  it("lists every problem, the worst state winning", async () => {
    const o = await plain.run(tls(peers.wrongName!.address), AbortSignal.timeout(5_000));
    assert.equal(o.exitStatus, 2);
    assert.match(o.output, /chain not trusted: .*; does not match 127\.0\.0\.1/);
  });
});
