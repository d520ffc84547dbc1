import assert from "node:assert/strict";
import { createSocket, type Socket } from "node:dgram";
import { after, before, describe, it } from "node:test";
import type { SnmpProbe } from "../../model/config.js";
import { checkTarget, describeCheckContract } from "../../testing/check-contract.js";
import { createSnmpChecker, snmpProbeProblems, snmpSupport } from "./index.js";
import { snmp } from "./net-snmp-extensions.js";
import { reading } from "./snmp-checker.js";
import {
  AUTH_PASS,
  COMMUNITY,
  COUNTER_VALUE,
  PRIV_PASS,
  type Snmpd,
  SYS_LOCATION,
  startSnmpd,
  TEST_OIDS,
} from "./snmpd-peer.js";

const base: Omit<SnmpProbe, "address" | "oid"> = {
  type: "snmp",
  authProto: "",
  authPass: "",
  privProto: "",
  privPass: "",
  warn: "",
  crit: "",
  expect: "",
  label: "",
  uom: "",
};
const v2 = (address: string, oid: string, extra: Partial<SnmpProbe> = {}): SnmpProbe => ({
  ...base,
  address,
  oid,
  community: COMMUNITY,
  ...extra,
});

/** A UDP socket that swallows every request: an agent that never answers. */
async function silentPeer(): Promise<{ address: string; close(): Promise<void> }> {
  const s: Socket = createSocket("udp4");
  s.on("message", () => {});
  await new Promise<void>((r) => s.bind(0, "127.0.0.1", r));
  return {
    address: `127.0.0.1:${s.address().port}`,
    close: () => new Promise<void>((r) => s.close(() => r())),
  };
}

describeCheckContract(
  "snmp",
  async () => {
    const agent = await startSnmpd();
    const silent = await silentPeer();
    return {
      checker: createSnmpChecker(),
      ok: checkTarget(v2(agent.address, TEST_OIDS.integer42)),
      failing: checkTarget(v2(agent.address, TEST_OIDS.integer42, { crit: "0:10" })),
      failingOutput: /^SNMP CRITICAL - 1\.3\.6\.1\.4\.1\.8072\.9999\.1\.0 = 42$/,
      hanging: checkTarget(v2(silent.address, TEST_OIDS.integer42), { timeoutMs: 60_000 }),
      malformed: [
        checkTarget(v2(agent.address, "sysDescr.0")),
        checkTarget({ ...v2(agent.address, TEST_OIDS.integer42), user: "x" }),
        checkTarget(v2("not an address::", TEST_OIDS.integer42)),
      ],
      async teardown() {
        await silent.close();
        await agent.stop();
      },
    };
  },
  { concurrency: 50 },
);

describe("snmp checker against snmpd", () => {
  let agent: Snmpd;
  let silent: Awaited<ReturnType<typeof silentPeer>>;
  const checker = createSnmpChecker();
  before(async () => {
    agent = await startSnmpd();
    silent = await silentPeer();
  });
  after(async () => {
    await silent.close();
    await agent.stop();
  });

  it("reads through every v3 user: each auth and priv protocol of the schema", async () => {
    assert.ok(agent.users.length >= 25);
    for (const u of agent.users) {
      const o = await checker.run(
        checkTarget({
          ...base,
          address: agent.address,
          oid: TEST_OIDS.sysLocation,
          user: u.name,
          authProto: u.auth,
          authPass: u.auth === "" ? "" : AUTH_PASS,
          privProto: u.priv,
          privPass: u.priv === "" ? "" : PRIV_PASS,
          label: "location",
        }),
        AbortSignal.timeout(10_000),
      );
      assert.equal(o.exitStatus, 0, `${u.name}: ${o.output}`);
      assert.equal(o.output, `SNMP OK - location = "${SYS_LOCATION}"`, u.name);
    }
  });

  const cases: {
    name: string;
    probe: () => SnmpProbe;
    timeoutMs?: number;
    status: number;
    output: string | RegExp;
    perf?: { label: string; value: number; uom: string; warn: string; crit: string }[];
  }[] = [
    {
      name: "integer within thresholds",
      probe: () => v2(agent.address, TEST_OIDS.integer42, { warn: "50", crit: "60", label: "answer" }),
      status: 0,
      output: "SNMP OK - answer = 42",
      perf: [{ label: "answer", value: 42, uom: "", warn: "50", crit: "60" }],
    },
    {
      name: "v2c over IPv6",
      probe: () => v2(agent.address6, TEST_OIDS.integer42, { label: "answer" }),
      status: 0,
      output: "SNMP OK - answer = 42",
    },
    {
      name: "v3 authPriv over IPv6",
      probe: () => ({
        ...base,
        address: agent.address6,
        oid: TEST_OIDS.integer42,
        user: "ap-SHA256-AES",
        authProto: "SHA256",
        authPass: AUTH_PASS,
        privProto: "AES",
        privPass: PRIV_PASS,
      }),
      status: 0,
      output: `SNMP OK - ${TEST_OIDS.integer42} = 42`,
    },
    {
      name: "integer above warn",
      probe: () => v2(agent.address, TEST_OIDS.integer42, { warn: "40", crit: "60" }),
      status: 1,
      output: `SNMP WARNING - ${TEST_OIDS.integer42} = 42`,
    },
    {
      name: "inside an @ range is critical",
      probe: () => v2(agent.address, TEST_OIDS.integer42, { warn: "40", crit: "@40:50" }),
      status: 2,
      output: `SNMP CRITICAL - ${TEST_OIDS.integer42} = 42`,
    },
    {
      name: "negative integer against ~:0",
      probe: () => v2(agent.address, TEST_OIDS.negative, { crit: "~:-10" }),
      status: 2,
      output: `SNMP CRITICAL - ${TEST_OIDS.negative} = -5`,
    },
    {
      name: "counter: uom c whatever uom says",
      probe: () => v2(agent.address, TEST_OIDS.counter, { uom: "B", label: "octets" }),
      status: 0,
      output: `SNMP OK - octets = ${COUNTER_VALUE}`,
      perf: [{ label: "octets", value: COUNTER_VALUE, uom: "c", warn: "", crit: "" }],
    },
    {
      name: "gauge with uom",
      probe: () => v2(agent.address, TEST_OIDS.gauge7, { uom: "B", crit: "5" }),
      status: 2,
      output: `SNMP CRITICAL - ${TEST_OIDS.gauge7} = 7B`,
      perf: [{ label: TEST_OIDS.gauge7, value: 7, uom: "B", warn: "", crit: "5" }],
    },
    {
      name: "timeticks are a number",
      probe: () => v2(agent.address, TEST_OIDS.sysUpTime, { warn: "0:" }),
      status: 0,
      output: /^SNMP OK - 1\.3\.6\.1\.2\.1\.1\.3\.0 = \d+$/,
    },
    {
      name: "numeric string with thresholds",
      probe: () => v2(agent.address, TEST_OIDS.numericString, { warn: "0.5", label: "load" }),
      status: 1,
      output: "SNMP WARNING - load = 0.75",
      perf: [{ label: "load", value: 0.75, uom: "", warn: "0.5", crit: "" }],
    },
    {
      name: "string matches expect",
      probe: () => v2(agent.address, TEST_OIDS.sysLocation, { expect: SYS_LOCATION }),
      status: 0,
      output: `SNMP OK - ${TEST_OIDS.sysLocation} = "${SYS_LOCATION}"`,
      perf: [],
    },
    {
      name: "an OID value matches expect",
      probe: () =>
        v2(agent.address, TEST_OIDS.objectId, { expect: "1.3.6.1.4.1.8072", label: "sysObjectID" }),
      status: 0,
      output: 'SNMP OK - sysObjectID = "1.3.6.1.4.1.8072"',
    },
    {
      name: "string differs from expect",
      probe: () => v2(agent.address, TEST_OIDS.sysLocation, { expect: "Moon base" }),
      status: 2,
      output: `SNMP CRITICAL - ${TEST_OIDS.sysLocation} = "${SYS_LOCATION}", expected "Moon base"`,
    },
    {
      name: "thresholds on a non-numeric string",
      probe: () => v2(agent.address, TEST_OIDS.sysLocation, { warn: "10" }),
      status: 3,
      output: /is not a number; warn\/crit need one$/,
    },
    {
      name: "missing OID",
      probe: () => v2(agent.address, TEST_OIDS.missing),
      status: 3,
      output: /^SNMP UNKNOWN - 127\.0\.0\.1:\d+: .*(NoSuch|No Such)/,
    },
    {
      name: "wrong community gets no answer",
      probe: () => v2(agent.address, TEST_OIDS.integer42, { community: "wrong" }),
      timeoutMs: 400,
      status: 2,
      output: /^SNMP CRITICAL - 127\.0\.0\.1:\d+: No response for /,
    },
    {
      name: "wrong v3 auth password",
      probe: () => ({
        ...base,
        address: agent.address,
        oid: TEST_OIDS.integer42,
        user: "ap-SHA-AES",
        authProto: "SHA",
        authPass: "not-the-password",
        privProto: "AES",
        privPass: PRIV_PASS,
      }),
      timeoutMs: 1000,
      status: 3,
      output: /^SNMP UNKNOWN - 127\.0\.0\.1:\d+: /,
    },
    {
      name: "unknown v3 user",
      probe: () => ({ ...base, address: agent.address, oid: TEST_OIDS.integer42, user: "nobody" }),
      timeoutMs: 1000,
      status: 3,
      output: /^SNMP UNKNOWN - 127\.0\.0\.1:\d+: /,
    },
    {
      name: "silent agent times out",
      probe: () => v2(silent.address, TEST_OIDS.integer42),
      timeoutMs: 300,
      status: 2,
      output: /No response/,
    },
  ];
  for (const c of cases) {
    it(c.name, async () => {
      const o = await checker.run(
        checkTarget(c.probe(), { timeoutMs: c.timeoutMs ?? 5000 }),
        AbortSignal.timeout(10_000),
      );
      assert.equal(o.exitStatus, c.status, o.output);
      if (typeof c.output === "string") assert.equal(o.output, c.output);
      else assert.match(o.output, c.output);
      if (c.perf !== undefined) {
        assert.deepEqual(
          o.perfdata.map((p) => ({ label: p.label, value: p.value, uom: p.uom, warn: p.warn, crit: p.crit })),
          c.perf,
        );
      }
    });
  }
});

describe("snmp value reading", () => {
  const T = snmp.ObjectType;
  const cases: { name: string; type: number; value: unknown; want: ReturnType<typeof reading> }[] = [
    {
      name: "Counter64 as big-endian bytes",
      type: T.Counter64 as number,
      value: Buffer.from("0b3a73ce2ff2", "hex"),
      want: { kind: "number", value: 12345678901234, counter: true, text: "12345678901234" },
    },
    {
      name: "Counter64 past 2^53 keeps its exact text",
      type: T.Counter64 as number,
      value: Buffer.from("ffffffffffffffff", "hex"),
      want: { kind: "number", value: 18446744073709552000, counter: true, text: "18446744073709551615" },
    },
    {
      name: "Counter32",
      type: T.Counter32 as number,
      value: 5,
      want: { kind: "number", value: 5, counter: true, text: "5" },
    },
    {
      name: "Gauge32",
      type: T.Gauge32 as number,
      value: 7,
      want: { kind: "number", value: 7, counter: false, text: "7" },
    },
    {
      name: "TimeTicks",
      type: T.TimeTicks as number,
      value: 100,
      want: { kind: "number", value: 100, counter: false, text: "100" },
    },
    {
      name: "text",
      type: T.OctetString as number,
      value: Buffer.from("lab 1"),
      want: { kind: "string", text: "lab 1" },
    },
    {
      name: "binary octets as hex",
      type: T.OctetString as number,
      value: Buffer.from([0x00, 0x1b, 0x21, 0xff]),
      want: { kind: "string", text: "00:1b:21:ff" },
    },
    {
      name: "IpAddress",
      type: T.IpAddress as number,
      value: "10.1.2.3",
      want: { kind: "string", text: "10.1.2.3" },
    },
  ];
  for (const c of cases) it(c.name, () => assert.deepEqual(reading(c.type, c.value), c.want));
});

describe("snmp support table and probe problems", () => {
  it("supports every protocol the schema lists", () => {
    for (const [name, s] of [...Object.entries(snmpSupport.auth), ...Object.entries(snmpSupport.priv)]) {
      assert.equal(s.supported, true, name);
      assert.ok(s.note.length > 0);
    }
  });

  const ok: SnmpProbe = {
    ...base,
    address: "127.0.0.1:161",
    oid: "1.3.6.1.2.1.1.3.0",
    user: "u",
    authProto: "SHA",
    authPass: "12345678",
  };
  const cases: { name: string; probe: SnmpProbe; problems: RegExp[] }[] = [
    { name: "valid v3", probe: ok, problems: [] },
    { name: "valid v2c", probe: v2("h", ".1.3.6.1.2.1.1.3.0"), problems: [] },
    { name: "MIB name", probe: { ...ok, oid: "sysUpTime.0" }, problems: [/not a numeric OID/] },
    {
      name: "both community and user",
      probe: { ...ok, community: "x" },
      problems: [/exactly one of/, /need user/],
    },
    { name: "neither", probe: { ...ok, user: undefined as unknown as string }, problems: [/exactly one of/] },
    {
      name: "priv without auth",
      probe: { ...ok, authProto: "", authPass: "", privProto: "AES", privPass: "12345678" },
      problems: [/needs auth_proto/],
    },
    {
      name: "short auth pass",
      probe: { ...ok, authPass: "short" },
      problems: [/auth_pass must be at least 8/],
    },
    {
      name: "short priv pass",
      probe: { ...ok, privProto: "DES", privPass: "x" },
      problems: [/priv_pass must be at least 8/],
    },
    {
      name: "unknown priv",
      probe: { ...ok, privProto: "3DES" as SnmpProbe["privProto"], privPass: "12345678" },
      problems: [/priv_proto "3DES" is not one of/],
    },
    { name: "bad range", probe: { ...ok, warn: "10:5" }, problems: [/warn: invalid threshold range/] },
    { name: "bad uom", probe: { ...ok, uom: "10s" }, problems: [/uom "10s" may not contain digits/] },
    {
      name: "expect with crit",
      probe: { ...ok, expect: "x", crit: "5" },
      problems: [/expect cannot be combined/],
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const got = snmpProbeProblems(c.probe);
      assert.equal(got.length, c.problems.length, got.join("; "));
      for (const [i, re] of c.problems.entries()) assert.match(got[i] as string, re);
    });
  }
});
