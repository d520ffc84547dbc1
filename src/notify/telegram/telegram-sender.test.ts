import assert from "node:assert/strict";
import { createServer, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { test } from "node:test";
import { EMPTY_CONFIG } from "../../model/config.js";
import { contractNotification, type PeerMode, senderContract } from "../../testing/sender-contract.js";
import { createTelegramSender } from "./telegram-sender.js";

const TOKEN = "123456:AAFakeBotTokenForTests";

/** A loopback fake of the Bot API's sendMessage. */
async function fakeBotApi() {
  let mode: PeerMode | "429" = "ok";
  const got: { path: string; body: Record<string, unknown> }[] = [];
  const hanging: ServerResponse[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const json = (status: number, body: unknown) =>
        res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
      if (req.url !== `/bot${TOKEN}/sendMessage`) {
        json(404, { ok: false, error_code: 404, description: "Not Found" });
        return;
      }
      switch (mode) {
        case "ok":
          got.push({ path: req.url, body: JSON.parse(Buffer.concat(chunks).toString()) });
          json(200, { ok: true, result: { message_id: got.length } });
          return;
        case "retryable":
          json(502, { ok: false, error_code: 502, description: "Bad Gateway" });
          return;
        case "permanent":
          json(400, { ok: false, error_code: 400, description: `Bad Request: chat not found (bot${TOKEN})` });
          return;
        case "429":
          json(429, {
            ok: false,
            error_code: 429,
            description: "Too Many Requests: retry after 3",
            parameters: { retry_after: 3 },
          });
          return;
        case "hang":
          hanging.push(res);
          return;
      }
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    got,
    setMode: (m: PeerMode | "429") => {
      mode = m;
    },
    close: async () => {
      for (const h of hanging) h.destroy();
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}

senderContract("telegram", async () => {
  const api = await fakeBotApi();
  return {
    sender: createTelegramSender({ token: TOKEN, apiBase: api.url }),
    contact: { name: "chat", labels: {}, type: "telegram", chatId: "-100123" },
    config: EMPTY_CONFIG,
    setMode: api.setMode,
    received: () => api.got.length,
    secrets: [TOKEN],
    logs: () => [],
    close: api.close,
  };
});

test("telegram sends the text to the chat and honours 429 retry_after", async () => {
  const api = await fakeBotApi();
  try {
    const sender = createTelegramSender({ token: TOKEN, apiBase: `${api.url}/` });
    const contact = { name: "chat", labels: {}, type: "telegram" as const, chatId: "-100123" };
    const ok = await sender.send(
      contractNotification("9.1.chat"),
      contact,
      EMPTY_CONFIG,
      AbortSignal.timeout(5000),
    );
    assert.deepEqual(ok, { ok: true });
    assert.equal(api.got[0]?.body.chat_id, "-100123");
    assert.match(String(api.got[0]?.body.text), /^PROBLEM web\/http is CRITICAL\n/);
    assert.match(String(api.got[0]?.body.text), /Id: 9\.1\.chat/);
    api.setMode("429");
    const busy = await sender.send(
      contractNotification("9.2.chat"),
      contact,
      EMPTY_CONFIG,
      AbortSignal.timeout(5000),
    );
    assert.equal(!busy.ok && busy.retryable, true);
    assert.equal(!busy.ok && busy.retryAfterMs, 3000);
    const none = await createTelegramSender({ token: "" }).send(
      contractNotification("x"),
      contact,
      EMPTY_CONFIG,
      AbortSignal.timeout(5000),
    );
    assert.equal(!none.ok && none.retryable, false);
  } finally {
    await api.close();
  }
});
