import type { AddressInfo } from "node:net";
import { createServer, type TLSSocket } from "node:tls";
import type { TestCert } from "./certs.js";
import { joinHostPort, type Peer } from "./peer.js";

/**
 * Starts a TLS server on a free loopback port presenting `cert`; each connection is closed after
 * the handshake. Handshakes a client aborts are expected and ignored.
 */
export async function startTlsServer(cert: TestCert, host = "127.0.0.1"): Promise<Peer> {
  const sockets = new Set<TLSSocket>();
  const server = createServer({ cert: cert.cert, key: cert.key }, (s) => {
    sockets.add(s);
    s.on("error", () => {});
    s.on("close", () => sockets.delete(s));
    s.end();
  });
  server.on("tlsClientError", () => {});
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen({ host, port: 0 }, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
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
