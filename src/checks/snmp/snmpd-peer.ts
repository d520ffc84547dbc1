/**
 * A real Net-SNMP agent (Debian's `snmpd`) for tests and benchmarks: started on a free loopback UDP
 * port with a generated config (a v2c community, fixed test values via `override`, and one v3 user
 * per protocol combination), in a temp directory that also serves as its persistent dir, and
 * stopped by PID. `createUser` lines sit in the generated snmpd.conf: with `-C -c` (which keeps the
 * agent away from /etc/snmp) snmpd does not read createUser from the persistent dir's file.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { createSocket } from "node:dgram";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { SnmpAuthProto, SnmpPrivProto } from "../../model/config.js";

/** A v3 user the agent knows. */
export interface SnmpdUser {
  readonly name: string;
  readonly auth: SnmpAuthProto;
  readonly priv: SnmpPrivProto;
}

export const AUTH_PASS = "auth-pass-123";
export const PRIV_PASS = "priv-pass-456";
export const COMMUNITY = "lookout-ro";

/** Fixed values served by the agent. */
export const TEST_OIDS = {
  sysLocation: "1.3.6.1.2.1.1.6.0",
  sysUpTime: "1.3.6.1.2.1.1.3.0",
  integer42: "1.3.6.1.4.1.8072.9999.1.0",
  counter: "1.3.6.1.4.1.8072.9999.2.0",
  numericString: "1.3.6.1.4.1.8072.9999.3.0",
  gauge7: "1.3.6.1.4.1.8072.9999.4.0",
  negative: "1.3.6.1.4.1.8072.9999.5.0",
  objectId: "1.3.6.1.4.1.8072.9999.8.0",
  missing: "1.3.6.1.4.1.8072.9999.99.0",
} as const;
export const SYS_LOCATION = "Lookout test lab";
export const COUNTER_VALUE = 123456;

const AUTH_NAMES: Record<Exclude<SnmpAuthProto, "">, string> = {
  MD5: "MD5",
  SHA: "SHA",
  SHA224: "SHA-224",
  SHA256: "SHA-256",
  SHA384: "SHA-384",
  SHA512: "SHA-512",
};
const PRIV_NAMES: Record<Exclude<SnmpPrivProto, "">, string> = {
  DES: "DES",
  AES: "AES",
  AES192: "AES-192",
  AES256: "AES-256",
  AES192C: "AES-192-C",
  AES256C: "AES-256-C",
};

/**
 * The users: every auth protocol without privacy and with AES, every priv protocol with MD5 and
 * SHA-1 (whose short keys make the AES-192/256 key extension matter) and SHA-512, and one user
 * without authentication.
 */
export function defaultUsers(): SnmpdUser[] {
  const users: SnmpdUser[] = [{ name: "noauth", auth: "", priv: "" }];
  for (const auth of Object.keys(AUTH_NAMES) as Exclude<SnmpAuthProto, "">[]) {
    users.push({ name: `a-${auth}`, auth, priv: "" });
    users.push({ name: `ap-${auth}-AES`, auth, priv: "AES" });
  }
  for (const priv of Object.keys(PRIV_NAMES) as Exclude<SnmpPrivProto, "">[]) {
    for (const auth of ["MD5", "SHA", "SHA512"] as const) {
      if (priv === "AES") continue;
      users.push({ name: `ap-${auth}-${priv}`, auth, priv });
    }
  }
  return users;
}

export interface Snmpd {
  readonly port: number;
  /** `127.0.0.1:port` */
  readonly address: string;
  /** `[::1]:port`: the agent listens on IPv6 loopback too. */
  readonly address6: string;
  readonly users: readonly SnmpdUser[];
  stop(): Promise<void>;
}

async function freeUdpPort(): Promise<number> {
  const s = createSocket("udp4");
  await new Promise<void>((resolve) => s.bind(0, "127.0.0.1", resolve));
  const { port } = s.address();
  await new Promise<void>((resolve) => s.close(() => resolve()));
  return port;
}

function config(port: number, users: readonly SnmpdUser[]): string {
  const lines = [
    `agentAddress udp:127.0.0.1:${port},udp6:[::1]:${port}`,
    `rocommunity ${COMMUNITY} 127.0.0.1`,
    `rocommunity6 ${COMMUNITY} ::1`,
    `sysLocation ${SYS_LOCATION}`,
    "sysContact ops@example.org",
    `override .${TEST_OIDS.integer42} integer 42`,
    `override .${TEST_OIDS.counter} counter ${COUNTER_VALUE}`,
    `override .${TEST_OIDS.numericString} octet_str "0.75"`,
    `override .${TEST_OIDS.gauge7} uinteger 7`,
    `override .${TEST_OIDS.negative} integer -5`,
    `override .${TEST_OIDS.objectId} object_id .1.3.6.1.4.1.8072`,
  ];
  for (const u of users) {
    const level = u.auth === "" ? "noauth" : u.priv === "" ? "authNoPriv" : "authPriv";
    lines.push(`rouser -s usm ${u.name} ${level}`);
    if (u.auth === "") lines.push(`createUser ${u.name}`);
    else if (u.priv === "") lines.push(`createUser ${u.name} ${AUTH_NAMES[u.auth]} ${AUTH_PASS}`);
    else
      lines.push(
        `createUser ${u.name} ${AUTH_NAMES[u.auth]} ${AUTH_PASS} ${PRIV_NAMES[u.priv]} ${PRIV_PASS}`,
      );
  }
  return `${lines.join("\n")}\n`;
}

function waitReady(child: ChildProcess, ms: number): Promise<string | undefined> {
  return new Promise((resolve) => {
    let log = "";
    const timer = setTimeout(() => resolve(`snmpd not ready after ${ms} ms:\n${log}`), ms);
    const onData = (b: Buffer): void => {
      log += b.toString();
      if (log.includes("NET-SNMP version")) {
        clearTimeout(timer);
        resolve(undefined);
      }
    };
    child.stdout?.on("data", onData);
    child.stderr?.on("data", onData);
    child.on("exit", (code) => {
      clearTimeout(timer);
      resolve(`snmpd exited with ${code}:\n${log}`);
    });
  });
}

/** Starts snmpd; tries a few ports if one is taken between probing and binding. */
export async function startSnmpd(users: readonly SnmpdUser[] = defaultUsers()): Promise<Snmpd> {
  let lastError = "";
  for (let attempt = 0; attempt < 3; attempt++) {
    const dir = mkdtempSync(join(tmpdir(), "lookout-snmpd-"));
    const port = await freeUdpPort();
    const conf = join(dir, "snmpd.conf");
    writeFileSync(conf, config(port, users));
    const child = spawn(
      "/usr/sbin/snmpd",
      ["-f", "-Lo", "-C", "-c", conf, `--persistentDir=${dir}`, "-p", join(dir, "snmpd.pid"), "-I", "-smux"],
      // No MIBs: the test speaks numeric OIDs, and Debian ships only a few MIB files.
      {
        env: { PATH: "/usr/sbin:/usr/bin:/bin", MIBS: "", MIBDIRS: join(dir, "no-mibs") },
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    const failed = await waitReady(child, 5000);
    if (failed === undefined) {
      child.stdout?.resume();
      child.stderr?.resume();
      return {
        port,
        address: `127.0.0.1:${port}`,
        address6: `[::1]:${port}`,
        users,
        async stop() {
          if (child.exitCode === null && child.pid !== undefined) {
            const exited = new Promise((r) => child.once("exit", r));
            process.kill(child.pid, "SIGTERM");
            await exited;
          }
          rmSync(dir, { recursive: true, force: true });
        },
      };
    }
    lastError = failed;
    if (child.exitCode === null && child.pid !== undefined) process.kill(child.pid, "SIGKILL");
    rmSync(dir, { recursive: true, force: true });
  }
  throw new Error(lastError);
}
