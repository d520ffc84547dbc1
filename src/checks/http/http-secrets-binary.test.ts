/**
 * An http check's header values in the real binary: the check sends them (a server that answers
 * 401 without the right Authorization shows it), and they appear in no read RPC (ListObjects,
 * ListStatus, ListHistory), no ValidateConfig diagnostic, and not in the server's log.
 */
import assert from "node:assert/strict";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { tokenSha256 } from "../../auth/index.js";
import { type ServerProcess, startServer } from "../../testing/server-process.js";

const SECRET = "s3cret-7f1c9a";
/** The test's own API identity (an admin, for ValidateConfig). */
const ADMIN = "http-secrets-test-token";
const QUERY = "/svc.v1.QueryService/";

async function post(url: string, body: unknown): Promise<{ status: number; text: string }> {
  const r = await fetch(url, {
    method: "POST",
    headers: { "Content-Type": "application/json", Authorization: `Bearer ${ADMIN}` },
    body: JSON.stringify(body),
  });
  return { status: r.status, text: await r.text() };
}

describe("http check header values in the lookout binary", () => {
  let dir: string;
  let api: Server;
  let apiPort = 0;
  let authorized = 0;
  let srv: ServerProcess | undefined;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), "lookout-http-secrets-"));
    api = createServer((req, res) => {
      const ok = req.headers.authorization === `Bearer ${SECRET}`;
      if (ok) authorized++;
      res.writeHead(ok ? 200 : 401).end(ok ? "healthy\n" : "who are you\n");
    });
    await new Promise<void>((resolve) => api.listen({ host: "127.0.0.1", port: 0 }, () => resolve()));
    apiPort = (api.address() as AddressInfo).port;
  });
  after(async () => {
    await srv?.stop();
    api.closeAllConnections();
    await new Promise<void>((resolve) => api.close(() => resolve()));
    await rm(dir, { recursive: true, force: true });
  });

  it("are sent, and shown nowhere", async () => {
    const cfg = join(dir, "lookout.cue");
    await writeFile(
      cfg,
      `hosts: web: {
	address: "127.0.0.1"
	check: {type: "passive", freshness_threshold: "1h"}
	services: api: check: {
		type: "http"
		url: "http://127.0.0.1:${apiPort}/health"
		headers: Authorization: "Bearer ${SECRET}"
		expect_status: [200]
		expect_body: "healthy"
		check_interval: "1s"
	}
}
`,
    );
    const auth = join(dir, "auth.cue");
    await writeFile(auth, `identities: root: {role: "admin", token_sha256: "${tokenSha256(ADMIN)}"}\n`);
    srv = await startServer(["-config", cfg, "-data-dir", join(dir, "data"), "-auth-config", auth]);
    const s = srv;
    try {
      const end = Date.now() + 60_000;
      let status = "";
      for (;;) {
        status = (await post(`${s.url}${QUERY}ListStatus`, {})).text;
        if (
          /"service":"api"[^}]*"state":"(STATE_)?OK"/.test(status) ||
          /"state":"(STATE_)?OK"[^}]*"service":"api"/.test(status)
        )
          break;
        if (Date.now() > end) throw new Error(`api never OK: ${status}`);
        await new Promise((r) => setTimeout(r, 200));
      }
      assert.ok(authorized > 0, "the check sent the Authorization header");
      const seen = [
        status,
        (await post(`${s.url}${QUERY}ListObjects`, {})).text,
        (await post(`${s.url}${QUERY}ListHistory`, {})).text,
      ];
      assert.match(seen[1] as string, /"checkType":"http"/);
      const bad = await post(`${s.url}/svc.v1.AdminService/ValidateConfig`, {
        cue: `hosts: web: {address: "a", check: {type: "http", url: "http://x", headers: Authorization: "Bearer ${SECRET}\\nX: y"}}\n`,
      });
      assert.notEqual(bad.status, 200, bad.text);
      assert.match(bad.text, /a value may not hold a line break/);
      seen.push(bad.text, s.stderr());
      for (const text of seen) assert.doesNotMatch(text, new RegExp(SECRET));
    } catch (e) {
      throw new Error(`${(e as Error).message}\nserver log:\n${s.stderr().slice(-20_000)}`, { cause: e });
    }
  });
});
