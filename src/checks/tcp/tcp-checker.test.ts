import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { TcpProbe } from "../../model/config.js";
import { checkTarget, describeCheckContract } from "../../testing/check-contract.js";
import { closedTcpPort, type Peer, startTcpBlackhole, startTcpListener } from "../../testing/peers/tcp.js";
import { createTcpChecker } from "./index.js";

describeCheckContract("tcp", async () => {
  const open = await startTcpListener();
  const hole = await startTcpBlackhole();
  const closed = await closedTcpPort();
  return {
    checker: createTcpChecker(),
    ok: checkTarget<TcpProbe>({ type: "tcp", address: open.address }),
    failing: checkTarget<TcpProbe>({ type: "tcp", address: `127.0.0.1:${closed}` }),
    failingOutput: /^TCP CRITICAL - connect to 127\.0\.0\.1 port \d+: Connection refused$/,
    hanging: checkTarget<TcpProbe>({ type: "tcp", address: hole.address }),
    async teardown() {
      await open.stop();
      await hole.stop();
    },
  };
});

describe("tcp checker", () => {
  const checker = createTcpChecker();
  let v4: Peer;
  let v6: Peer;
  let hole: Peer;
  let closed: number;
  before(async () => {
    v4 = await startTcpListener("127.0.0.1");
    v6 = await startTcpListener("::1");
    hole = await startTcpBlackhole();
    closed = await closedTcpPort();
  });
  after(async () => {
    await v4.stop();
    await v6.stop();
    await hole.stop();
  });

  const cases: {
    name: string;
    address: () => string;
    abortAfterMs?: number;
    status: number;
    output: RegExp;
    perfdata: boolean;
  }[] = [
    {
      name: "IPv4 listener",
      address: () => v4.address,
      status: 0,
      output: /^TCP OK - \d+\.\d{3} second response time on 127\.0\.0\.1 port \d+$/,
      perfdata: true,
    },
    {
      name: "IPv6 listener",
      address: () => v6.address,
      status: 0,
      output: /^TCP OK - \d+\.\d{3} second response time on ::1 port \d+$/,
      perfdata: true,
    },
    {
      name: "host name",
      address: () => `localhost:${v4.port}`,
      status: 0,
      output: /^TCP OK - .* on localhost port \d+$/,
      perfdata: true,
    },
    {
      name: "closed port",
      address: () => `127.0.0.1:${closed}`,
      status: 2,
      output: /^TCP CRITICAL - connect to 127\.0\.0\.1 port \d+: Connection refused$/,
      perfdata: false,
    },
    {
      name: "closed IPv6 port",
      address: () => `[::1]:${closed}`,
      status: 2,
      output: /: Connection refused$/,
      perfdata: false,
    },
    {
      name: "timeout",
      address: () => hole.address,
      abortAfterMs: 200,
      status: 2,
      output: /^TCP CRITICAL - connect to 127\.0\.0\.1 port \d+: timed out after \d\.\d{3} seconds$/,
      perfdata: false,
    },
    { name: "no port", address: () => "127.0.0.1", status: 3, output: /invalid address/, perfdata: false },
    { name: "port 0", address: () => "127.0.0.1:0", status: 3, output: /invalid address/, perfdata: false },
    { name: "port too big", address: () => "127.0.0.1:65536", status: 3, output: /invalid/, perfdata: false },
    { name: "bare IPv6", address: () => "::1", status: 3, output: /invalid address/, perfdata: false },
    { name: "empty host", address: () => ":80", status: 3, output: /invalid address/, perfdata: false },
  ];

  for (const c of cases) {
    it(c.name, async () => {
      const signal =
        c.abortAfterMs === undefined ? AbortSignal.timeout(5_000) : AbortSignal.timeout(c.abortAfterMs);
      const o = await checker.run(checkTarget<TcpProbe>({ type: "tcp", address: c.address() }), signal);
      assert.equal(o.exitStatus, c.status, o.output);
      assert.match(o.output, c.output);
      if (c.perfdata) {
        assert.equal(o.perfdata.length, 1);
        const p = o.perfdata[0]!;
        assert.equal(p.label, "time");
        assert.equal(p.uom, "s");
        assert.equal(p.min, 0);
        assert.equal(p.max, 10);
        assert.ok(p.value >= 0 && p.value < 1, `time ${p.value}`);
      } else {
        assert.deepEqual(o.perfdata, []);
      }
    });
  }
});
