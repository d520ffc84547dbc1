import assert from "node:assert/strict";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import http from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import {
  FAILED_LOGINS_PER_ACCOUNT_PER_WINDOW,
  FAILED_LOGINS_PER_WINDOW,
  hashPassword,
} from "../auth/index.js";
import { type ServerProcess, startServer } from "../testing/server-process.js";

// The failed-login throttle of the real binary behind a reverse proxy: the proxy is this test,
// connecting from 127.0.0.1 and saying who its client is in X-Forwarded-For.

const SECRET = "login-throttle-test-session-secret-0123456789";
const PASSWORD = "the right password";

let dir: string;
before(async () => {
  dir = await mkdtemp(join(tmpdir(), "lookout-throttle-"));
  const hash = await hashPassword(PASSWORD);
  await writeFile(
    join(dir, "auth.cue"),
    `identities: {\n\talice: {role: "admin", password: "${hash}"}\n\tbob: {role: "viewer", password: "${hash}"}\n}\n`,
  );
});
after(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** POST /auth/login from 127.0.0.1, with X-Forwarded-For when given; the HTTP status. */
function login(srv: ServerProcess, name: string, password: string, forwardedFor?: string): Promise<number> {
  const body = JSON.stringify({ name, password });
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: "127.0.0.1",
        port: srv.port,
        path: "/auth/login",
        method: "POST",
        headers: {
          "content-type": "application/json",
          ...(forwardedFor === undefined ? {} : { "x-forwarded-for": forwardedFor }),
        },
      },
      (res) => {
        res.resume();
        res.on("end", () => resolve(res.statusCode ?? 0));
      },
    );
    req.once("error", reject);
    req.end(body);
  });
}

const start = (name: string, args: string[]) =>
  startServer(["-auth-config", join(dir, "auth.cue"), "-data-dir", join(dir, name), ...args], {
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", LOOKOUT_SESSION_SECRET: SECRET },
  });

describe("login throttle behind a proxy", () => {
  test("-trusted-proxies: two clients behind the proxy have a bucket each", async () => {
    const srv = await start("two", ["-trusted-proxies", "127.0.0.0/8,::1"]);
    try {
      for (let i = 0; i < FAILED_LOGINS_PER_WINDOW; i++) {
        assert.equal(await login(srv, "bob", "wrong", "203.0.113.1"), 401, `failure ${i + 1}`);
      }
      assert.equal(await login(srv, "bob", "wrong", "203.0.113.1"), 429, "the first client is throttled");
      // A spoofed entry to the left of the proxy's own does not buy a new bucket.
      assert.equal(await login(srv, "bob", "wrong", "198.51.100.77, 203.0.113.1"), 429);
      assert.equal(await login(srv, "bob", PASSWORD, "203.0.113.2"), 200, "the second is not");
      assert.equal(await login(srv, "bob", "wrong", "203.0.113.2"), 401);
      assert.match(srv.stderr(), /"msg":"failed login".*"client":"203\.0\.113\.2"/);
    } finally {
      await srv.stop();
    }
  });

  test("an untrusted peer's X-Forwarded-For is ignored: one bucket for the peer", async () => {
    const srv = await start("untrusted", ["-trusted-proxies", "10.0.0.0/8"]);
    try {
      for (let i = 0; i < FAILED_LOGINS_PER_WINDOW; i++) {
        assert.equal(await login(srv, "bob", "wrong", `203.0.113.${i + 1}`), 401);
      }
      assert.equal(await login(srv, "bob", PASSWORD, "203.0.113.200"), 429, "a fresh header does not help");
    } finally {
      await srv.stop();
    }
  });

  test("one name guessed from many addresses is throttled; the owner's known address still signs in", async () => {
    const srv = await start("account", ["-trusted-proxies", "127.0.0.1"]);
    try {
      assert.equal(await login(srv, "alice", PASSWORD, "192.0.2.10"), 200, "alice's usual address");
      for (let i = 0; i < FAILED_LOGINS_PER_ACCOUNT_PER_WINDOW; i++) {
        assert.equal(await login(srv, "alice", `guess ${i}`, `198.51.100.${i + 1}`), 401, `guess ${i + 1}`);
      }
      assert.equal(await login(srv, "alice", "another guess", "198.51.100.99"), 429, "from a new address");
      assert.equal(await login(srv, "alice", PASSWORD, "198.51.100.98"), 429, "even the right password");
      assert.equal(await login(srv, "bob", PASSWORD, "198.51.100.99"), 200, "another name is not held back");
      assert.equal(await login(srv, "alice", PASSWORD, "192.0.2.10"), 200, "alice is not locked out");
    } finally {
      await srv.stop();
    }
  });
});
