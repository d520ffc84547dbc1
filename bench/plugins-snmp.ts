/**
 * `snmp` check throughput against a local Debian snmpd: v3 authPriv (SHA + AES, and SHA + DES via
 * the 3DES stand-in) and v2c for reference, each GET a fresh session as the check does.
 * Usage: node dist/bench/plugins-snmp.js [seconds-per-step]
 */
import { createSnmpChecker } from "../src/checks/snmp/index.js";
import { AUTH_PASS, COMMUNITY, PRIV_PASS, startSnmpd, TEST_OIDS } from "../src/checks/snmp/snmpd-peer.js";
import type { SnmpProbe } from "../src/model/config.js";
import { checkTarget } from "../src/testing/check-contract.js";
import { closedLoop, row } from "./plugins-common.js";

const seconds = Number(process.argv[2] ?? 3);
const agent = await startSnmpd();
try {
  const checker = createSnmpChecker();
  const base = {
    type: "snmp" as const,
    address: agent.address,
    oid: TEST_OIDS.integer42,
    authProto: "" as const,
    authPass: "",
    privProto: "" as const,
    privPass: "",
    warn: "50",
    crit: "60",
    expect: "",
    label: "",
    uom: "",
  };
  const probes: [string, SnmpProbe][] = [
    [
      "v3 authPriv SHA/AES",
      {
        ...base,
        user: "ap-SHA-AES",
        authProto: "SHA",
        authPass: AUTH_PASS,
        privProto: "AES",
        privPass: PRIV_PASS,
      },
    ],
    [
      "v3 authPriv SHA512/AES256C",
      {
        ...base,
        user: "ap-SHA512-AES256C",
        authProto: "SHA512",
        authPass: AUTH_PASS,
        privProto: "AES256C",
        privPass: PRIV_PASS,
      },
    ],
    [
      "v3 authPriv SHA/DES",
      {
        ...base,
        user: "ap-SHA-DES",
        authProto: "SHA",
        authPass: AUTH_PASS,
        privProto: "DES",
        privPass: PRIV_PASS,
      },
    ],
    ["v2c", { ...base, community: COMMUNITY }],
  ];
  console.log(`snmp GET against local snmpd, ${seconds}s per step (snmpd's own CPU not counted)`);
  for (const [name, probe] of probes) {
    const target = checkTarget(probe);
    const once = async (): Promise<boolean> =>
      (await checker.run(target, AbortSignal.timeout(10_000))).exitStatus === 0;
    for (const c of [1, 16]) console.log(row(`${name} x${c}`, await closedLoop(c, seconds, once)));
  }
} finally {
  await agent.stop();
}
