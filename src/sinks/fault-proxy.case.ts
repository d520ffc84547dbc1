/**
 * A loopback HTTP proxy for the sink contract suite: it forwards to a real backend (Prometheus,
 * ClickHouse, nginx, an OTLP receiver) and can be told to answer 503 (down), to wait before
 * forwarding (slow) or to answer bytes that are not HTTP (garbage).
 */
import { createServer, request } from "node:http";
import type { AddressInfo } from "node:net";
import type { FaultMode } from "./contract.case.js";

export interface FaultProxy {
  /** The proxy's base URL (`http://127.0.0.1:port`). */
  readonly url: string;
  fault(m: FaultMode): void;
  stop(): Promise<void>;
}

export async function startFaultProxy(target: string): Promise<FaultProxy> {
  const t = new URL(target);
  let mode: FaultMode = "ok";
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const forward = (): void => {
        const up = request(
          {
            host: t.hostname,
            port: t.port,
            method: req.method,
            path: req.url,
            headers: { ...req.headers, host: t.host },
          },
          (ur) => {
            res.writeHead(ur.statusCode ?? 502, ur.headers);
            ur.pipe(res);
          },
        );
        up.on("error", () => res.writeHead(502).end());
        up.end(Buffer.concat(chunks));
      };
      switch (mode) {
        case "down":
          res.writeHead(503, { "Retry-After": "0" }).end("down");
          return;
        case "garbage":
          req.socket.end("\u0000\u0001garbage\r\n\r\n");
          return;
        case "slow":
          setTimeout(forward, 300);
          return;
        case "ok":
          forward();
          return;
      }
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    fault: (m) => {
      mode = m;
    },
    stop: () =>
      new Promise((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

/** A free loopback port (listen on 0, close): for servers that take a port on the command line. */
export async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, "127.0.0.1", r));
  const { port } = s.address() as AddressInfo;
  await new Promise((r) => s.close(r));
  return port;
}

/** Polls `url` until it answers 2xx, or throws after `ms`. */
export async function waitReady(url: string, ms = 30_000): Promise<void> {
  const end = Date.now() + ms;
  for (;;) {
    try {
      const r = await fetch(url, { signal: AbortSignal.timeout(5_000) });
      if (r.ok) return;
    } catch {
      // not listening yet
    }
    if (Date.now() > end) throw new Error(`${url} not ready after ${ms} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
