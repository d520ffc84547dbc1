import { type ChildProcess, spawn } from "node:child_process";
import { connect, createServer, type Server, type Socket } from "node:net";
import { joinHostPort, killChild, type Peer } from "./peer.js";

export type { Peer } from "./peer.js";

/**
 * Starts a TCP listener on a free loopback port that accepts every connection and closes it
 * straight away, or with `silent` holds it open and never sends a byte (a TLS handshake or an
 * HTTP request then hangs). `host` is 127.0.0.1 unless given (use "::1" for IPv6).
 */
export async function startTcpListener(
  host = "127.0.0.1",
  options: { silent?: boolean } = {},
): Promise<Peer> {
  const sockets = new Set<Socket>();
  const server = createServer((s) => {
    sockets.add(s);
    s.on("error", () => {});
    s.on("close", () => sockets.delete(s));
    if (options.silent !== true) s.end();
  });
  const port = await listen(server, host);
  return {
    host,
    port,
    address: joinHostPort(host, port),
    async stop() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/**
 * A loopback port that nothing listens on: bound once to learn a free number, then released.
 * Connecting to it is refused at once.
 */
export async function closedTcpPort(host = "127.0.0.1"): Promise<number> {
  const server = createServer();
  const port = await listen(server, host);
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/**
 * The child's program: listen with a backlog of 1, print the port, then block the event loop for
 * good, so the kernel completes handshakes into the accept queue but nothing ever accepts.
 */
const BLACKHOLE_SOURCE = `
const net = require("node:net");
const s = net.createServer();
s.listen({ host: process.argv[1], port: 0, backlog: 1 }, () => {
  process.stdout.write(String(s.address().port) + "\\n");
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0);
});
`;

/**
 * Starts a TCP "black hole" on loopback: a listener in a child process whose accept queue is full,
 * so a new connection attempt never completes (Linux drops the SYN of a listener whose accept queue
 * is full, and the client keeps retransmitting). This is the loopback way to make a connect hang
 * until the checker's signal aborts it. Stopped by killing the child's PID.
 */
export async function startTcpBlackhole(host = "127.0.0.1"): Promise<Peer> {
  const child: ChildProcess = spawn(process.execPath, ["-e", BLACKHOLE_SOURCE, host], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  const port = await readPort(child);
  // Fill the accept queue (backlog + 1 on Linux) until a connect stops completing.
  const fillers: Socket[] = [];
  for (let i = 0; i < 8; i++) {
    const s = connect(port, host);
    s.on("error", () => {});
    fillers.push(s);
    // A loopback connect takes well under a millisecond; 500 ms leaves room for a loaded machine.
    const connected = await connectsWithin(s, 500);
    if (!connected) break;
  }
  return {
    host,
    port,
    address: joinHostPort(host, port),
    async stop() {
      for (const s of fillers) s.destroy();
      await killChild(child);
    },
  };
}

function connectsWithin(s: Socket, ms: number): Promise<boolean> {
  return new Promise((resolve) => {
    const t = setTimeout(() => resolve(false), ms);
    s.once("connect", () => {
      clearTimeout(t);
      resolve(true);
    });
  });
}

async function readPort(child: ChildProcess): Promise<number> {
  const out = child.stdout;
  if (out === null) throw new Error("child has no stdout");
  let text = "";
  for await (const chunk of out) {
    text += String(chunk);
    const nl = text.indexOf("\n");
    if (nl >= 0) {
      out.destroy();
      const port = Number(text.slice(0, nl));
      if (!Number.isInteger(port) || port <= 0) throw new Error(`bad port from child: ${text}`);
      return port;
    }
  }
  throw new Error("child exited before printing its port");
}

function listen(server: Server, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen({ host, port: 0 }, () => {
      const a = server.address();
      if (a === null || typeof a === "string") reject(new Error("no address"));
      else resolve(a.port);
    });
  });
}
