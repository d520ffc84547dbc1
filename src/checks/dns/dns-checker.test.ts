import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { DnsProbe } from "../../model/config.js";
import { checkTarget, describeCheckContract } from "../../testing/check-contract.js";
import { closedUdpPort, startDnsmasq, startDnsStub } from "../../testing/peers/dns.js";
import type { Peer } from "../../testing/peers/tcp.js";
import { createDnsChecker } from "./index.js";

const dns = (server: string, name: string) => checkTarget<DnsProbe>({ type: "dns", server, name });

const RECORDS = [
  { domain: "example.test", ip: "127.0.0.5" },
  { domain: "example.test", ip: "::5" },
  { domain: "v4only.test", ip: "127.0.0.4" },
  { domain: "v6only.test", ip: "::6" },
  { domain: "nx.test", ip: "" },
  { domain: "xn--bcher-kva.test", ip: "127.0.0.7" },
];

describeCheckContract("dns", async () => {
  const dnsmasq = await startDnsmasq(RECORDS, ["test"]);
  const silent = await startDnsStub("silent");
  return {
    checker: createDnsChecker(),
    ok: dns(dnsmasq.address, "example.test"),
    failing: dns(dnsmasq.address, "nx.test"),
    failingOutput: /^DNS CRITICAL - 127\.0\.0\.1 port \d+ answered NXDOMAIN for nx\.test$/,
    hanging: dns(silent.address, "example.test"),
    malformed: [dns(dnsmasq.address, "a..b"), dns(dnsmasq.address, `${"x".repeat(64)}.test`)],
    async teardown() {
      await dnsmasq.stop();
      await silent.stop();
    },
  };
});

describe("dns checker", () => {
  const checker = createDnsChecker();
  const peers: Record<string, Peer> = {};
  let closed = 0;
  before(async () => {
    peers.dnsmasq = await startDnsmasq(RECORDS, ["test"]);
    peers.servfail = await startDnsStub("servfail");
    peers.silent = await startDnsStub("silent");
    peers.garbage = await startDnsStub("garbage");
    peers.v6 = await startDnsStub("servfail", "::1");
    closed = await closedUdpPort();
  });
  after(async () => {
    for (const p of Object.values(peers)) await p.stop();
  });

  const cases: {
    name: string;
    server: () => string;
    query: string;
    abortAfterMs?: number;
    status: number;
    output: RegExp;
  }[] = [
    {
      name: "A and AAAA",
      server: () => peers.dnsmasq!.address,
      query: "example.test",
      status: 0,
      output: /^DNS OK - \d+\.\d{3} seconds response time, example\.test returns 127\.0\.0\.5, ::5$/,
    },
    {
      name: "subdomain",
      server: () => peers.dnsmasq!.address,
      query: "www.example.test",
      status: 0,
      output: / www\.example\.test returns 127\.0\.0\.5, ::5$/,
    },
    {
      name: "A only",
      server: () => peers.dnsmasq!.address,
      query: "v4only.test",
      status: 0,
      output: / returns 127\.0\.0\.4$/,
    },
    {
      name: "AAAA only",
      server: () => peers.dnsmasq!.address,
      query: "v6only.test",
      status: 0,
      output: / returns ::6$/,
    },
    {
      name: "trailing dot",
      server: () => peers.dnsmasq!.address,
      query: "v4only.test.",
      status: 0,
      output: / returns 127\.0\.0\.4$/,
    },
    {
      name: "NXDOMAIN",
      server: () => peers.dnsmasq!.address,
      query: "nx.test",
      status: 2,
      output: /^DNS CRITICAL - 127\.0\.0\.1 port \d+ answered NXDOMAIN for nx\.test$/,
    },
    {
      name: "REFUSED",
      server: () => peers.dnsmasq!.address,
      query: "elsewhere.example",
      status: 2,
      output: /^DNS CRITICAL - 127\.0\.0\.1 port \d+ answered REFUSED for elsewhere\.example$/,
    },
    {
      name: "SERVFAIL",
      server: () => peers.servfail!.address,
      query: "example.test",
      status: 2,
      output: /^DNS CRITICAL - 127\.0\.0\.1 port \d+ answered SERVFAIL for example\.test$/,
    },
    {
      name: "IPv6 server",
      server: () => peers.v6!.address,
      query: "example.test",
      status: 2,
      output: /^DNS CRITICAL - ::1 port \d+ answered SERVFAIL for example\.test$/,
    },
    {
      name: "no answer",
      server: () => peers.silent!.address,
      query: "example.test",
      abortAfterMs: 300,
      status: 2,
      output:
        /^DNS CRITICAL - query 127\.0\.0\.1 port \d+ for example\.test: timed out after \d\.\d{3} seconds$/,
    },
    {
      name: "malformed response",
      server: () => peers.garbage!.address,
      query: "example.test",
      status: 2,
      output: /^DNS CRITICAL - .*127\.0\.0\.1 port \d+/,
    },
    {
      name: "closed port",
      server: () => `127.0.0.1:${closed}`,
      query: "example.test",
      status: 2,
      output: /^DNS CRITICAL - query 127\.0\.0\.1 port \d+ for example\.test: Connection refused$/,
    },
    {
      name: "bad server",
      server: () => "127.0.0.1:99999",
      query: "example.test",
      status: 3,
      output: /^DNS UNKNOWN - invalid server/,
    },
    {
      name: "empty name",
      server: () => peers.dnsmasq!.address,
      query: "",
      status: 3,
      output: /^DNS UNKNOWN - invalid name ""$/,
    },
    {
      name: "internationalized name",
      server: () => peers.dnsmasq!.address,
      query: "bücher.test",
      status: 0,
      output: / xn--bcher-kva\.test returns 127\.0\.0\.7$/,
    },
    {
      name: "name with a space",
      server: () => peers.dnsmasq!.address,
      query: "a b.test",
      status: 3,
      output: /^DNS UNKNOWN - invalid name/,
    },
  ];

  for (const c of cases) {
    it(c.name, async () => {
      const o = await checker.run(dns(c.server(), c.query), AbortSignal.timeout(c.abortAfterMs ?? 5_000));
      assert.equal(o.exitStatus, c.status, o.output);
      assert.match(o.output, c.output);
      if (c.status === 0) {
        assert.equal(o.perfdata.length, 1);
        assert.equal(o.perfdata[0]!.label, "time");
        assert.equal(o.perfdata[0]!.uom, "s");
      } else {
        assert.deepEqual(o.perfdata, []);
      }
    });
  }
});
