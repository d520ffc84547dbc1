import assert from "node:assert/strict";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { type AddressInfo, createServer as createTcpServer } from "node:net";
import { test } from "node:test";
import { EMPTY_CONFIG } from "../../model/config.js";
import { contractNotification, type PeerMode, senderContract } from "../../testing/sender-contract.js";
import { createWebhookSender } from "./webhook-sender.js";

interface Received {
  readonly headers: IncomingMessage["headers"];
  readonly body: Record<string, unknown>;
}

async function receiver() {
  let mode: PeerMode = "ok";
  const got: Received[] = [];
  const hanging: ServerResponse[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      switch (mode) {
        case "ok":
          got.push({ headers: req.headers, body: JSON.parse(Buffer.concat(chunks).toString()) });
          res.writeHead(204).end();
          return;
        case "retryable":
          res.writeHead(503).end("busy");
          return;
        case "permanent":
          res.writeHead(404).end("no such hook");
          return;
        case "hang":
          hanging.push(res);
          return;
      }
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    got,
    setMode: (m: PeerMode) => {
      mode = m;
    },
    close: async () => {
      for (const h of hanging) h.destroy();
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}

const SECRET = "s3cr3t-hook-token";

senderContract("webhook", async () => {
  const r = await receiver();
  return {
    sender: createWebhookSender(),
    contact: {
      name: "hook",
      labels: {},
      type: "webhook",
      url: `http://bot:${SECRET}@127.0.0.1:${r.port}/hooks/${SECRET}`,
    },
    config: EMPTY_CONFIG,
    setMode: r.setMode,
    received: () => r.got.length,
    secrets: [SECRET],
    logs: () => [],
    close: r.close,
  };
});

test("the webhook body is the documented JSON, with the id as Idempotency-Key and credentials as Basic auth", async () => {
  const r = await receiver();
  try {
    const sender = createWebhookSender({ now: () => Date.UTC(2026, 0, 1, 0, 0, 5) });
    const n = contractNotification("42.1.hook");
    const o = await sender.send(
      n,
      { name: "hook", labels: {}, type: "webhook", url: `http://bot:pw@127.0.0.1:${r.port}/x` },
      EMPTY_CONFIG,
      AbortSignal.timeout(5000),
    );
    assert.deepEqual(o, { ok: true });
    const [g] = r.got;
    assert.equal(g?.headers["idempotency-key"], "42.1.hook");
    assert.equal(g?.headers.authorization, `Basic ${Buffer.from("bot:pw").toString("base64")}`);
    assert.deepEqual(g?.body, {
      id: "42.1.hook",
      kind: "PROBLEM",
      object: { key: "web!http", host: "web", service: "http" },
      state: "CRITICAL",
      output: "CRITICAL - connection refused",
      level: 1,
      policy: "standard",
      contact: "hook",
      number: 1,
      decidedAt: "2026-01-01T00:00:00.000Z",
      sentAt: "2026-01-01T00:00:05.000Z",
      labels: { team: "web" },
      author: "",
      comment: "",
      replaces: 0,
    });
  } finally {
    await r.close();
  }
});

test("webhook statuses: 5xx and 429 retry, other 4xx never, a closed port retries", async () => {
  const cases: { status: number; retryable: boolean }[] = [
    { status: 500, retryable: true },
    { status: 502, retryable: true },
    { status: 429, retryable: true },
    { status: 400, retryable: false },
    { status: 401, retryable: false },
    { status: 410, retryable: false },
  ];
  let status = 200;
  const server = createServer((_req, res) => {
    res.writeHead(status, status === 429 ? { "retry-after": "7" } : {}).end();
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const port = (server.address() as AddressInfo).port;
  const sender = createWebhookSender();
  const contact = { name: "hook", labels: {}, type: "webhook" as const, url: `http://127.0.0.1:${port}/` };
  try {
    for (const c of cases) {
      status = c.status;
      const o = await sender.send(
        contractNotification("x"),
        contact,
        EMPTY_CONFIG,
        AbortSignal.timeout(5000),
      );
      assert.equal(o.ok, false, String(c.status));
      assert.equal(!o.ok && o.retryable, c.retryable, String(c.status));
      if (c.status === 429) assert.equal(!o.ok && o.retryAfterMs, 7000);
    }
  } finally {
    server.closeAllConnections();
    await new Promise<void>((r) => server.close(() => r()));
  }
  // A fresh sender: no kept-alive connection to the closed server.
  const o = await createWebhookSender().send(
    contractNotification("x"),
    contact,
    EMPTY_CONFIG,
    AbortSignal.timeout(5000),
  );
  assert.equal(!o.ok && o.retryable, true, JSON.stringify(o));
  assert.match(!o.ok ? o.error : "", /ECONNREFUSED/);
});

test("a webhook that answers garbage or drops the connection is a retryable failure, never a crash", async () => {
  const cases: { name: string; answer(sock: import("node:net").Socket): void }[] = [
    { name: "garbage", answer: (s) => s.end("this is not HTTP\r\n\r\n") },
    { name: "drop", answer: (s) => s.destroy() },
    { name: "half a response", answer: (s) => s.end("HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nshort") },
  ];
  for (const c of cases) {
    const server = createTcpServer((sock) => sock.once("data", () => c.answer(sock)));
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    const port = (server.address() as AddressInfo).port;
    try {
      const o = await createWebhookSender().send(
        contractNotification("x"),
        { name: "hook", labels: {}, type: "webhook", url: `http://127.0.0.1:${port}/` },
        EMPTY_CONFIG,
        AbortSignal.timeout(3000),
      );
      assert.equal(o.ok, false, c.name);
      assert.equal(!o.ok && o.retryable, true, `${c.name}: ${JSON.stringify(o)}`);
    } finally {
      await new Promise<void>((r) => server.close(() => r()));
    }
  }
});
