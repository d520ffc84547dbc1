import assert from "node:assert/strict";
import http2 from "node:http2";
import { test } from "node:test";
import { DualProtocolServer, H2_SESSION_MEMORY_MIB } from "./listener.js";

const MIB = 1 << 20;
const big = Buffer.alloc(4 * MIB, 120);

/** Opens `held` streams for 4 MiB responses without reading them, then makes a small call. */
async function smallCallBehind(held: number): Promise<string> {
  const server = new DualProtocolServer((req, res) => {
    if (req.url === "/big") res.end(big);
    else res.end("small");
  });
  const { port } = await server.listen(0, "127.0.0.1");
  const client = http2.connect(`http://127.0.0.1:${port}`);
  try {
    const streams: http2.ClientHttp2Stream[] = [];
    for (let i = 0; i < held; i++) {
      const s = client.request({ ":path": "/big" });
      s.pause();
      s.on("error", () => {});
      streams.push(s);
    }
    // Let the server queue what it can of the held responses.
    await new Promise((r) => setTimeout(r, 500));
    return await new Promise<string>((resolve) => {
      const s = client.request({ ":path": "/small" });
      let body = "";
      s.setEncoding("utf8");
      s.on("data", (d: string) => {
        body += d;
      });
      s.on("end", () => resolve(`ok ${body}`));
      s.on("error", (e: NodeJS.ErrnoException) => resolve(`error ${e.message}`));
      s.end();
    });
  } finally {
    client.destroy();
    await server.close(100);
  }
}

test("HTTP/2: a client reading 32 MiB of responses slowly still gets its other calls answered", async () => {
  // Node's default session memory (10 MiB) refused this call with ENHANCE_YOUR_CALM.
  assert.equal(await smallCallBehind(8), "ok small");
});

test("HTTP/2: past the session memory limit, new streams are refused with ENHANCE_YOUR_CALM", async () => {
  const held = Math.ceil((H2_SESSION_MEMORY_MIB + 8) / 4);
  assert.match(await smallCallBehind(held), /ENHANCE_YOUR_CALM/);
});
