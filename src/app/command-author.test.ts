import assert from "node:assert/strict";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { hashPassword, tokenSha256 } from "../auth/index.js";
import { type ServerProcess, startServer } from "../testing/server-process.js";

// Who a command's author is, against the real binary: someone signed in to the dashboard is the
// author (as in Icinga Web), whatever the request says; a token's caller says who it acts for.

const PASSWORD = "alice's password";
const OPS = "ops-bearer-token";
const API = "the-api-token";
const HOSTS = ["h1", "h2", "h3", "h4", "h5", "h6"];
const CONFIG = HOSTS.map(
  (h) => `hosts: ${h}: {address: "127.0.0.1", check: {type: "passive", freshness_threshold: "24h"}}\n`,
).join("");

let dir: string;
before(async () => {
  dir = await mkdtemp(join(tmpdir(), "lookout-author-"));
  await writeFile(join(dir, "c.cue"), CONFIG);
  await writeFile(
    join(dir, "auth.cue"),
    `identities: {\n\talice: {role: "operator", password: "${await hashPassword(PASSWORD)}"}\n\tops: {role: "operator", token_sha256: "${tokenSha256(OPS)}"}\n}\n`,
  );
});
after(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function post(srv: ServerProcess, path: string, body: unknown, headers: Record<string, string>) {
  const res = await fetch(`${srv.url}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

/** Makes `host` DOWN, acknowledges it and schedules a downtime with `author`; the two authors recorded. */
async function act(srv: ServerProcess, host: string, author: string, headers: Record<string, string>) {
  const cmd = "/svc.v1.CommandService/";
  assert.equal((await post(srv, `${cmd}ProcessCheckResult`, { host, exitStatus: 2 }, headers)).status, 200);
  const target = { object: { host } };
  for (let i = 0; ; i++) {
    const r = await post(srv, `${cmd}AcknowledgeProblem`, { target, author, comment: "c" }, headers);
    if (r.status === 200) break;
    assert.equal(r.body.code, "failed_precondition", JSON.stringify(r.body)); // not applied yet
    assert.ok(i < 200, "the result was applied");
    await new Promise((r) => setTimeout(r, 50));
  }
  const now = Date.now();
  const downtime = {
    target,
    start: new Date(now).toISOString(),
    end: new Date(now + 3_600_000).toISOString(),
    author,
    comment: "c",
  };
  assert.equal((await post(srv, `${cmd}ScheduleDowntime`, downtime, headers)).status, 200);
  for (let i = 0; ; i++) {
    const entries = ((await post(srv, "/svc.v1.QueryService/ListHistory", { host }, headers)).body.entries ??
      []) as { kind: string; author?: string }[];
    const ack = entries.find((e) => e.kind === "AcknowledgementSet");
    const dt = entries.find((e) => e.kind === "DowntimeScheduled");
    if (ack !== undefined && dt !== undefined) return { ack: ack.author ?? "", downtime: dt.author ?? "" };
    assert.ok(i < 200, `history of ${host}: ${JSON.stringify(entries)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe("the author of acknowledgements and downtimes", () => {
  let srv: ServerProcess;
  let cookie: string;
  before(async () => {
    srv = await startServer(
      ["-config", join(dir, "c.cue"), "-auth-config", join(dir, "auth.cue"), "-data-dir", join(dir, "d")],
      {
        env: {
          PATH: process.env.PATH ?? "/usr/bin:/bin",
          LOOKOUT_SESSION_SECRET: "command-author-test-session-secret-0123456789",
          LOOKOUT_API_TOKEN: API,
        },
      },
    );
    const res = await fetch(`${srv.url}/auth/login`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ name: "alice", password: PASSWORD }),
    });
    assert.equal(res.status, 200);
    cookie = (res.headers.get("set-cookie") ?? "").split(";")[0] as string;
  });
  after(async () => {
    await srv?.stop();
  });

  const cases: {
    name: string;
    host: string;
    author: string;
    auth: () => Record<string, string>;
    want: string;
  }[] = [
    {
      name: "signed in: the signed-in name, not the dialog's default",
      host: "h1",
      author: "dashboard",
      auth: () => ({ cookie }),
      want: "alice",
    },
    {
      name: "signed in: another name sent is not believed",
      host: "h2",
      author: "mallory",
      auth: () => ({ cookie }),
      want: "alice",
    },
    {
      name: "a token identity acting for someone: the given author",
      host: "h3",
      author: "bob (via chatops)",
      auth: () => ({ authorization: `Bearer ${OPS}` }),
      want: "bob (via chatops)",
    },
    {
      name: "a token identity with no author: its name",
      host: "h4",
      author: "",
      auth: () => ({ authorization: `Bearer ${OPS}` }),
      want: "ops",
    },
    {
      name: "the -api-token (nobody): the given author",
      host: "h5",
      author: "ci",
      auth: () => ({ authorization: `Bearer ${API}` }),
      want: "ci",
    },
  ];
  for (const c of cases) {
    test(c.name, async () => {
      assert.deepEqual(await act(srv, c.host, c.author, c.auth()), { ack: c.want, downtime: c.want });
    });
  }

  test("without -auth-config the given author is kept", async () => {
    const open = await startServer(["-config", join(dir, "c.cue"), "-data-dir", join(dir, "d-open")]);
    try {
      assert.deepEqual(await act(open, "h6", "dashboard", {}), { ack: "dashboard", downtime: "dashboard" });
    } finally {
      await open.stop();
    }
  });
});
