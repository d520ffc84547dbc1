import { type ChildProcess, spawn } from "node:child_process";
import { createSocket, type Socket as UdpSocket } from "node:dgram";
import { Resolver } from "node:dns";
import { createServer } from "node:net";
import { joinHostPort, killChild, type Peer } from "./peer.js";

/** A record dnsmasq serves: `--address=/<domain>/<ip>`; an empty ip answers NXDOMAIN. */
export interface DnsRecord {
  readonly domain: string;
  readonly ip: string;
}

/**
 * Starts Debian's dnsmasq on a free loopback port (UDP and TCP) serving only `records`: no
 * upstream servers, no /etc/hosts, no config file. Names under a `local` domain it does not know
 * get NXDOMAIN; names anywhere else get REFUSED. Stopped by killing its PID.
 */
export async function startDnsmasq(
  records: readonly DnsRecord[],
  local: readonly string[] = [],
): Promise<Peer> {
  for (let attempt = 0; ; attempt++) {
    const port = await freeUdpAndTcpPort();
    const args = [
      "--no-daemon",
      "--conf-file=/dev/null",
      "--pid-file=",
      `--port=${port}`,
      "--listen-address=127.0.0.1",
      "--bind-interfaces",
      "--no-resolv",
      "--no-hosts",
      ...local.map((d) => `--local=/${d}/`),
      ...records.map((r) => `--address=/${r.domain}/${r.ip}`),
    ];
    const child: ChildProcess = spawn("dnsmasq", args, { stdio: "ignore" });
    const failed = new Promise<boolean>((resolve) => {
      child.once("exit", () => resolve(true));
      child.once("error", () => resolve(true));
    });
    const ready = waitForAnswer(port, records[0]?.domain ?? "ready.test");
    if (!(await Promise.race([ready, failed.then(() => false)]))) {
      await killChild(child);
      if (attempt < 3) continue;
      throw new Error("dnsmasq did not start (is the dnsmasq package installed?)");
    }
    return {
      host: "127.0.0.1",
      port,
      address: joinHostPort("127.0.0.1", port),
      stop: () => killChild(child),
    };
  }
}

/** Polls until the server answers anything at all (an answer or a DNS error, not a timeout). */
async function waitForAnswer(port: number, name: string): Promise<boolean> {
  const deadline = Date.now() + 5_000;
  while (Date.now() < deadline) {
    const r = new Resolver({ timeout: 200, tries: 1 });
    r.setServers([`127.0.0.1:${port}`]);
    const code = await new Promise<string | undefined>((resolve) =>
      r.resolve4(name, (err) => resolve(err === null ? undefined : err.code)),
    );
    if (code !== "ECONNREFUSED" && code !== "ETIMEOUT") return true;
    await new Promise((res) => setTimeout(res, 50));
  }
  return false;
}

/** A port free for both TCP and UDP on 127.0.0.1 at the moment of asking. */
async function freeUdpAndTcpPort(): Promise<number> {
  for (;;) {
    const tcp = createServer();
    const port = await new Promise<number>((resolve, reject) => {
      tcp.once("error", reject);
      tcp.listen({ host: "127.0.0.1", port: 0 }, () => {
        const a = tcp.address();
        resolve(typeof a === "object" && a !== null ? a.port : 0);
      });
    });
    const udp = createSocket("udp4");
    const udpOk = await new Promise<boolean>((resolve) => {
      udp.once("error", () => resolve(false));
      udp.bind(port, "127.0.0.1", () => resolve(true));
    });
    await new Promise<void>((resolve) => udp.close(() => resolve()));
    await new Promise<void>((resolve) => tcp.close(() => resolve()));
    if (udpOk) return port;
  }
}

/** How a stub DNS server treats every query. */
export type DnsStubMode = "servfail" | "silent" | "garbage";

/**
 * Starts an in-process UDP DNS stub on a free loopback port: `servfail` answers every query with
 * RCODE 2, `silent` never answers (a query hangs until the checker gives up), `garbage` answers
 * with bytes that are not DNS.
 */
export async function startDnsStub(mode: DnsStubMode, host = "127.0.0.1"): Promise<Peer> {
  const socket: UdpSocket = createSocket(host.includes(":") ? "udp6" : "udp4");
  socket.on("message", (msg, from) => {
    switch (mode) {
      case "servfail": {
        if (msg.length < 12) return;
        const reply = Buffer.from(msg);
        // QR=1, keep opcode and RD; RA=1, RCODE=2; no answer, authority or additional records.
        reply[2] = 0x80 | ((msg[2] ?? 0) & 0x79);
        reply[3] = 0x80 | 0x02;
        reply.fill(0, 6, 12);
        socket.send(reply, from.port, from.address);
        return;
      }
      case "silent":
        return;
      case "garbage":
        socket.send(Buffer.from([msg[0] ?? 0, msg[1] ?? 0, 0xff]), from.port, from.address);
        return;
      default: {
        const never: never = mode;
        throw new Error(`unknown mode ${String(never)}`);
      }
    }
  });
  await new Promise<void>((resolve) => socket.bind(0, host, () => resolve()));
  const port = socket.address().port;
  return {
    host,
    port,
    address: joinHostPort(host, port),
    stop: () => new Promise<void>((resolve) => socket.close(() => resolve())),
  };
}

/** A loopback UDP port nothing listens on: a query to it is refused (ICMP port unreachable). */
export async function closedUdpPort(host = "127.0.0.1"): Promise<number> {
  const socket = createSocket(host.includes(":") ? "udp6" : "udp4");
  await new Promise<void>((resolve) => socket.bind(0, host, () => resolve()));
  const port = socket.address().port;
  await new Promise<void>((resolve) => socket.close(() => resolve()));
  return port;
}
