import assert from "node:assert/strict";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { tokenSha256 } from "../auth/index.js";
import { type ServerProcess, startServer } from "../testing/server-process.js";

// ApplyConfig x 50 concurrent, with SIGHUP in a loop and kill -9 mid-way: the served file is always
// one whole valid document (a watcher reads it throughout), and after a restart the running config
// is the file's.

const ADMIN = "apply-crash-admin";
const doc = (host: string) => `hosts: "${host}": {
	address: "127.0.0.1"
	check: {type: "passive", freshness_threshold: "1h"}
}
`;

let dir: string;
let file: string;
before(async () => {
  dir = await mkdtemp(join(tmpdir(), "lookout-apply-crash-"));
  file = join(dir, "served.cue");
  await writeFile(
    join(dir, "auth.cue"),
    `identities: root: {role: "admin", token_sha256: "${tokenSha256(ADMIN)}"}\n`,
  );
  await writeFile(file, doc("initial"));
});
after(async () => {
  await rm(dir, { recursive: true, force: true });
});

const start = () =>
  startServer([
    "-config",
    file,
    "-auth-config",
    join(dir, "auth.cue"),
    "-session-secret",
    "apply-crash-test-session-secret-0123456789",
    "-data-dir",
    join(dir, "data"),
  ]);

async function post(
  srv: ServerProcess,
  path: string,
  body: unknown,
): Promise<{ status: number; text: string }> {
  const res = await fetch(`${srv.url}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${ADMIN}` },
    body: JSON.stringify(body),
  });
  return { status: res.status, text: await res.text() };
}

async function runningHosts(srv: ServerProcess): Promise<string[]> {
  const r = await post(srv, "/svc.v1.QueryService/ListObjects", {});
  assert.equal(r.status, 200, r.text);
  return ((JSON.parse(r.text) as { objects?: { host: string }[] }).objects ?? []).map((o) => o.host);
}

/** The host a served document names; fails unless the text is exactly one of the known documents. */
function hostOf(text: string, known: ReadonlySet<string>): string {
  const m = /^hosts: "([^"]+)"/.exec(text);
  assert.ok(
    m !== null && known.has(m[1] as string) && text === doc(m[1] as string),
    `not a whole document: ${JSON.stringify(text)}`,
  );
  return m[1] as string;
}

test("ApplyConfig x 50 concurrent with SIGHUP and kill -9: the file is always whole, and restarts serve it", async () => {
  const known = new Set(["initial"]);
  for (const [round, killAfterMs] of [
    [0, undefined],
    [1, 1000],
    [2, 300],
  ] as const) {
    const srv = await start();
    // After every restart (and at first), the running config is the file's.
    assert.deepEqual(
      await runningHosts(srv),
      [hostOf(await readFile(file, "utf8"), known)],
      `round ${round} start`,
    );
    const hosts = Array.from({ length: 50 }, (_, i) => `r${round}-h${i}`);
    for (const h of hosts) known.add(h);
    let stop = false;
    let reads = 0;
    const watcher = (async () => {
      while (!stop) {
        hostOf(await readFile(file, "utf8"), known);
        reads++;
        await new Promise((r) => setTimeout(r, 2));
      }
    })();
    const hups = setInterval(() => srv.child.kill("SIGHUP"), 150);
    // One document is evaluated at a time and eight wait (docs/api.md): the others are answered
    // resource_exhausted (HTTP 429) at once, and retry as a client should.
    const apply = async (h: string): Promise<number> => {
      for (;;) {
        const r = await post(srv, "/svc.v1.AdminService/ApplyConfig", { cue: doc(h) });
        if (r.status !== 429) return r.status;
        assert.match(r.text, /resource_exhausted/);
        await new Promise((res) => setTimeout(res, 20 + Math.random() * 80));
      }
    };
    const applies = hosts.map((h) => apply(h).catch(() => 0)); // 0: killed while in flight.
    if (killAfterMs === undefined) {
      const statuses = await Promise.all(applies);
      assert.deepEqual(
        statuses,
        hosts.map(() => 200),
      );
      clearInterval(hups);
      // Let queued SIGHUP reloads drain: each reloads the file, which is the last apply's.
      await new Promise((r) => setTimeout(r, 500));
      const served = hostOf(await readFile(file, "utf8"), known);
      assert.deepEqual(await runningHosts(srv), [served], "running equals the file");
      const got = JSON.parse((await post(srv, "/svc.v1.AdminService/GetConfig", {})).text) as { cue: string };
      assert.equal(got.cue, doc(served));
      assert.equal(await srv.stop(), 0);
    } else {
      await new Promise((r) => setTimeout(r, killAfterMs));
      clearInterval(hups);
      await srv.kill();
      await Promise.all(applies);
    }
    stop = true;
    await watcher;
    assert.ok(reads > 0);
  }
  const last = await start();
  try {
    assert.deepEqual(await runningHosts(last), [hostOf(await readFile(file, "utf8"), known)]);
  } finally {
    await last.stop();
  }
});
