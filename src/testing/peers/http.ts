import { createServer as createHttpServer, type IncomingMessage, type ServerResponse } from "node:http";
import { createServer as createHttpsServer } from "node:https";
import type { AddressInfo } from "node:net";
import type { TestCert } from "./certs.js";
import { joinHostPort, type Peer } from "./peer.js";

/** A running HTTP(S) test server; `base` is its URL without a trailing slash. */
export interface HttpPeer extends Peer {
  readonly base: string;
}

/**
 * The routes every test server answers:
 * - `/status/<code>`: that status, body `status <code>\n`;
 * - `/bytes/<n>`: status 200 and a body of n bytes;
 * - `/slow/<ms>`: status 200 after ms milliseconds;
 * - `/hang`: never answers;
 * - `/redirect`: 302 to `/status/200`;
 * - `/reason`: status 200 with a reason phrase holding a `|`;
 * - `/truncate`: promises 100 bytes, sends 3, then drops the connection;
 * - `/chunked/<n>`: status 200 and n chunks of 1000 bytes, one per event-loop turn;
 * - `/to/<port>/<path>`: 302 to `http://127.0.0.1:<port>/<path>` (another origin).
 * Anything else is 404.
 */
function handle(req: IncomingMessage, res: ServerResponse): void {
  const parts = (req.url ?? "/").split("/");
  const arg = Number(parts[2]);
  switch (parts[1]) {
    case "status":
      res.writeHead(arg, { "content-type": "text/plain" }).end(`status ${arg}\n`);
      return;
    case "bytes":
      res.writeHead(200, { "content-type": "application/octet-stream" }).end(Buffer.alloc(arg, 120));
      return;
    case "slow": {
      const t = setTimeout(() => res.writeHead(200).end("slow\n"), arg);
      res.on("close", () => clearTimeout(t));
      return;
    }
    case "hang":
      return;
    case "redirect":
      res.writeHead(302, { location: "/status/200" }).end();
      return;
    case "chunked": {
      res.writeHead(200, { "content-type": "text/plain" });
      let left = arg;
      const next = (): void => {
        if (left-- <= 0) res.end();
        else res.write(Buffer.alloc(1000, 121), () => setImmediate(next));
      };
      next();
      return;
    }
    case "truncate":
      res.writeHead(200, { "content-length": "100" });
      res.write("abc", () => res.socket?.destroy());
      return;
    case "to":
      res.writeHead(302, { location: `http://127.0.0.1:${arg}/${parts.slice(3).join("/")}` }).end();
      return;
    case "reason":
      res.writeHead(200, "Fine | Dandy").end("ok\n");
      return;
    default:
      res.writeHead(404).end("not found\n");
  }
}

/**
 * Starts an HTTP server on a free loopback port, or HTTPS when `tls` is given. Stopping it closes
 * every connection, including requests left hanging.
 */
export async function startHttpServer(options: { host?: string; tls?: TestCert } = {}): Promise<HttpPeer> {
  const host = options.host ?? "127.0.0.1";
  const server =
    options.tls === undefined
      ? createHttpServer(handle)
      : createHttpsServer({ cert: options.tls.cert, key: options.tls.key }, handle);
  // Handshake failures (a client refusing our test certificate) are expected; keep them quiet.
  server.on("tlsClientError", () => {});
  server.on("clientError", (_err, socket) => socket.destroy());
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen({ host, port: 0 }, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  const address = joinHostPort(host, port);
  return {
    host,
    port,
    address,
    base: `${options.tls === undefined ? "http" : "https"}://${address}`,
    async stop() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
