import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import type { FaultMode } from "../contract.case.js";

/** A loopback NDJSON receiver with faults. */
export async function ndjsonReceiver(): Promise<{
  url: string;
  body: () => string;
  requests: IncomingMessage[];
  fault: (m: FaultMode | "reject") => void;
  stop: () => Promise<void>;
}> {
  let mode: FaultMode | "reject" = "ok";
  let body = "";
  const requests: IncomingMessage[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      requests.push(req);
      switch (mode) {
        case "down":
          res.writeHead(503).end("down");
          return;
        case "reject":
          res.writeHead(400).end("bad batch");
          return;
        case "garbage":
          req.socket.end("garbage\r\n\r\n\u0000\u0001");
          return;
        case "slow":
          setTimeout(() => {
            body += Buffer.concat(chunks).toString();
            res.writeHead(200).end();
          }, 300);
          return;
        case "ok":
          body += Buffer.concat(chunks).toString();
          res.writeHead(204).end();
          return;
      }
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/ingest`,
    body: () => body,
    requests,
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
