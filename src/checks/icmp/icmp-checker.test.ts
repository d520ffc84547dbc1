import assert from "node:assert/strict";
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import type { IcmpProbe } from "../../model/config.js";
import { checkTarget, describeCheckContract } from "../../testing/check-contract.js";
import { type NetnsPeer, startNetns } from "../../testing/peers/netns.js";
import { createIcmpChecker, parseFpingSummaries, pingVerdict } from "./index.js";

const icmp = (host: string) => checkTarget<IcmpProbe>({ type: "icmp", host });

// One namespace for the whole file; without one (not root) the cases that need it skip, saying so.
let netns: NetnsPeer | undefined;
let noNetns = "";
before(async () => {
  const r = await startNetns();
  if ("unavailable" in r) noNetns = r.unavailable;
  else netns = r;
});
after(async () => {
  await netns?.stop();
});

describeCheckContract(
  "icmp",
  async () => ({
    checker: createIcmpChecker(),
    ok: icmp("127.0.0.1"),
    // Without a namespace there is no loopback host that stays silent; a bad host is the
    // closest failing target that contacts nothing.
    failing: icmp(netns?.silent ?? "-bad"),
    failingOutput: netns === undefined ? /invalid host/ : /Packet loss = 100%/,
    hanging: netns === undefined ? undefined : icmp(netns.silent),
    teardown: async () => {},
  }),
  // 50 fping processes on a 2-core machine take a while to spawn.
  { timeoutMs: 30_000 },
);

describe("fping summary parsing", () => {
  const table: [string, string, [string, (number | undefined)[]][]][] = [
    ["all replies", "127.0.0.1 : 0.039 0.045 0.060\n", [["127.0.0.1", [0.039, 0.045, 0.06]]]],
    ["IPv6 padding", "::1       : 0.185 0.051 0.044\n", [["::1", [0.185, 0.051, 0.044]]]],
    ["some lost", "10.0.0.1 : 0.5 - 0.7 -\n", [["10.0.0.1", [0.5, undefined, 0.7, undefined]]]],
    ["all lost", "198.18.1.3 : - - -\n", [["198.18.1.3", [undefined, undefined, undefined]]]],
    [
      "several hosts and noise",
      "ICMP Host Unreachable from 198.18.1.1 for ICMP Echo sent to 198.18.1.3\nnope..test: Name or service not known\n\n198.18.1.3 : - -\n::1       : 0.1 0.2\n",
      [
        ["198.18.1.3", [undefined, undefined]],
        ["::1", [0.1, 0.2]],
      ],
    ],
    ["name error only", "nope.test: Name or service not known\n", []],
    ["empty", "", []],
  ];
  for (const [name, text, want] of table) {
    it(name, () => assert.deepEqual([...parseFpingSummaries(text)], want));
  }
});

describe("ping verdict thresholds", () => {
  const table: [string, (number | undefined)[], number, RegExp][] = [
    ["fast, no loss", [0.04, 0.05, 0.06, 0.05, 0.05], 0, /^PING OK - h: Packet loss = 0%, RTA = 0\.050 ms$/],
    ["one lost of five is OK", [1, 1, 1, 1, undefined], 0, /Packet loss = 20%/],
    ["two lost of five warns", [1, 1, 1, undefined, undefined], 1, /^PING WARNING - h: Packet loss = 40%/],
    [
      "four lost of five is critical",
      [1, undefined, undefined, undefined, undefined],
      2,
      /Packet loss = 80%/,
    ],
    [
      "all lost",
      [undefined, undefined, undefined, undefined, undefined],
      2,
      /^PING CRITICAL - h: Packet loss = 100%, no echo reply to 5 packets$/,
    ],
    ["rta exactly 100 is OK", [100, 100, 100], 0, /RTA = 100\.000 ms/],
    ["rta over 100 warns", [150, 150, 150], 1, /^PING WARNING - .*RTA = 150\.000 ms$/],
    ["rta over 200 is critical", [250, 250, 250], 2, /^PING CRITICAL - /],
  ];
  for (const [name, samples, status, output] of table) {
    it(name, () => {
      const o = pingVerdict("h", samples);
      assert.equal(o.exitStatus, status, o.output);
      assert.match(o.output, output);
      const pl = o.perfdata.find((p) => p.label === "pl");
      assert.deepEqual(pl && [pl.uom, pl.warn, pl.crit, pl.min, pl.max], ["%", "20", "60", 0, 100]);
      if (samples.some((s) => s !== undefined)) {
        assert.deepEqual(
          o.perfdata.map((p) => `${p.label}:${p.uom}`),
          ["rta:ms", "pl:%", "rtmin:ms", "rtmax:ms"],
        );
      }
    });
  }
});

describe("icmp checker with real fping", () => {
  const checker = createIcmpChecker();
  const cases: { name: string; host: () => string | undefined; status: number; output: RegExp }[] = [
    {
      name: "IPv4 loopback",
      host: () => "127.0.0.1",
      status: 0,
      output: /^PING OK - 127\.0\.0\.1: Packet loss = 0%, RTA = \d+\.\d{3} ms$/,
    },
    {
      name: "IPv6 loopback",
      host: () => "::1",
      status: 0,
      output: /^PING OK - ::1: Packet loss = 0%, RTA = /,
    },
    { name: "bracketed IPv6", host: () => "[::1]", status: 0, output: /^PING OK - ::1: / },
    { name: "localhost by name", host: () => "localhost", status: 0, output: /^PING OK - localhost: / },
    {
      name: "host in a namespace",
      host: () => netns?.reachable,
      status: 0,
      output: /^PING OK - 198\.18\.\d+\.2: Packet loss = 0%/,
    },
    {
      name: "silent address in a namespace",
      host: () => netns?.silent,
      status: 2,
      output: /^PING CRITICAL - 198\.18\.\d+\.3: Packet loss = 100%, no echo reply to 5 packets$/,
    },
    { name: "flag-like host", host: () => "-c1", status: 3, output: /^PING UNKNOWN - invalid host "-c1"$/ },
    {
      name: "host with a space",
      host: () => "127.0.0.1 ::1",
      status: 3,
      output: /^PING UNKNOWN - invalid host/,
    },
  ];
  for (const c of cases) {
    it(c.name, async (t) => {
      const host = c.host();
      if (host === undefined) {
        t.skip(`no network namespace: ${noNetns}`);
        return;
      }
      const o = await checker.run(icmp(host), AbortSignal.timeout(5_000));
      assert.equal(o.exitStatus, c.status, o.output);
      assert.match(o.output, c.output);
    });
  }

  it("reports a missing fping as UNKNOWN", async () => {
    const o = await createIcmpChecker({ fping: "/nonexistent/fping" }).run(
      icmp("127.0.0.1"),
      AbortSignal.timeout(5_000),
    );
    assert.equal(o.exitStatus, 3);
    assert.match(
      o.output,
      /^PING UNKNOWN - cannot run \/nonexistent\/fping: not found \(install the fping package\)$/,
    );
  });
});

describe("icmp batching", () => {
  // A wrapper that logs each invocation's arguments and then runs the real fping.
  const dir = mkdtempSync(join(tmpdir(), "lookout-fping-"));
  const log = join(dir, "calls.log");
  const wrapper = join(dir, "fping");
  writeFileSync(wrapper, `#!/bin/sh\necho "$@" >> '${log}'\nexec fping "$@"\n`);
  chmodSync(wrapper, 0o755);
  after(() => rmSync(dir, { recursive: true, force: true }));
  const calls = (): string[] => readFileSync(log, "utf8").trim().split("\n");

  it("runs that start together share one fping and each gets its own verdict", async () => {
    writeFileSync(log, "");
    const checker = createIcmpChecker({ fping: wrapper });
    // "nope..test" fails inside getaddrinfo (empty label): no DNS query leaves the machine.
    const hosts: [string, number, RegExp][] = [
      ["127.0.0.1", 0, /^PING OK - 127\.0\.0\.1: Packet loss = 0%/],
      ["::1", 0, /^PING OK - ::1: Packet loss = 0%/],
      ["127.0.0.1", 0, /^PING OK - 127\.0\.0\.1: /],
      ["nope..test", 2, /^PING CRITICAL - nope\.\.test: Name or service not known$/],
    ];
    if (netns !== undefined) hosts.push([netns.silent, 2, /Packet loss = 100%/]);
    const outcomes = await Promise.all(hosts.map(([h]) => checker.run(icmp(h), AbortSignal.timeout(5_000))));
    hosts.forEach(([h, status, output], i) => {
      const o = outcomes[i]!;
      assert.equal(o.exitStatus, status, `${h}: ${o.output}`);
      assert.match(o.output, output);
    });
    const lines = calls();
    assert.equal(lines.length, 1, lines.join("\n"));
    // The duplicate host is pinged once.
    assert.equal(lines[0]!.split(" ").filter((a) => a === "127.0.0.1").length, 1);
  });

  it("a full batch starts at once and the next run opens a new one", async () => {
    writeFileSync(log, "");
    const checker = createIcmpChecker({ fping: wrapper, batchMaxHosts: 2, batchWindowMs: 10_000 });
    const t0 = performance.now();
    const third = new AbortController();
    const first = ["127.0.0.1", "::1"].map((h) => checker.run(icmp(h), AbortSignal.timeout(15_000)));
    const late = checker.run(icmp("127.0.0.2"), third.signal);
    for (const o of await Promise.all(first)) assert.equal(o.exitStatus, 0, o.output);
    assert.ok(performance.now() - t0 < 5_000, "the full batch did not wait for its window");
    // The third run waits alone in a new batch with a 10 s window; aborting it cancels that batch.
    third.abort(new Error("shutdown"));
    assert.equal((await late).exitStatus, 3);
    assert.equal(calls().length, 1);
  });

  it("aborting every run of a waiting batch cancels it without spawning fping", async () => {
    writeFileSync(log, "");
    const checker = createIcmpChecker({ fping: wrapper, batchWindowMs: 200 });
    const ac = new AbortController();
    const run = checker.run(icmp("127.0.0.1"), ac.signal);
    ac.abort(new DOMException("t", "TimeoutError"));
    const o = await run;
    assert.equal(o.exitStatus, 2);
    assert.match(o.output, /^PING CRITICAL - ping 127\.0\.0\.1: timed out after /);
    await new Promise((r) => setTimeout(r, 300));
    assert.equal(readFileSync(log, "utf8"), "");
  });
});
