/**
 * The run-time switches in the real `lookout` binary: each switch turned off through the external
 * command file, then asserted shown (ListStatus) and honoured after a kill -9 (replayed from the
 * log), after a reload that changes the objects (SIGHUP), and after a graceful restart (from the
 * snapshot); then turned back on by selector through the API.
 */
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { promisify } from "node:util";
import { connectJson } from "../api/core-test-server.js";
import { type ServerProcess, startServer } from "../testing/server-process.js";

const run = promisify(execFile);

interface Status {
  host: string;
  service?: string;
  state: string;
  lastCheck?: string;
  flapping?: boolean;
  flapPercent?: number;
  activeChecksDisabled?: boolean;
  passiveChecksDisabled?: boolean;
  notificationsDisabled?: boolean;
  flapDetectionDisabled?: boolean;
}

/** The objects: one per switch, and an active sibling that shows the scheduler runs. */
function document(tcpPort: number, maxAttempts: number): string {
  const passive = `type: "passive", freshness_threshold: "24h", max_attempts: ${maxAttempts}`;
  const tcp = `type: "tcp", address: "127.0.0.1:${tcpPort}", check_interval: "1s", max_attempts: ${maxAttempts}`;
  return `
contacts: hook: {type: "webhook", url: "http://127.0.0.1:9/"}
notifications: standard: levels: [{contacts: ["hook"]}]
hosts: web: {
	address: "127.0.0.1"
	check: {${passive}}
	labels: {switches: "yes"}
	services: {
		a: check: {${tcp}}
		sibling: check: {${tcp}}
		p: check: {${passive}}
		n: {check: {${passive}}, notification: "standard"}
		f: check: {${passive}, flap: {alpha: 0.5, high_threshold: 0.6, low_threshold: 0.2}}
	}
}
`;
}

async function call(srv: ServerProcess, rpc: string, body: unknown) {
  return connectJson(srv.url, rpc, body);
}

async function statuses(srv: ServerProcess): Promise<Status[]> {
  const r = await call(srv, "/svc.v1.QueryService/ListStatus", { host: "web" });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return (r.body as { statuses: Status[] }).statuses;
}

async function statusOf(srv: ServerProcess, service: string): Promise<Status> {
  const s = (await statuses(srv)).find((x) => x.service === service);
  assert.ok(s, `no status for web!${service}`);
  return s;
}

async function until<T>(what: string, get: () => Promise<T>, ok: (v: T) => boolean, ms = 30_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await get();
    if (ok(v)) return v;
    if (Date.now() > end) assert.fail(`${what}: still ${JSON.stringify(v)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function result(srv: ServerProcess, service: string, exitStatus: number) {
  return call(srv, "/svc.v1.CommandService/ProcessCheckResult", { host: "web", service, exitStatus });
}

interface SwitchCase {
  readonly name: string;
  readonly service: string;
  /** The command file line that turns it off. */
  readonly disable: string;
  readonly field: keyof Status;
  /** Asserts the switch, off, is honoured by the running server. */
  readonly honoured: (srv: ServerProcess) => Promise<void>;
}

const cases: readonly SwitchCase[] = [
  {
    name: "active checks",
    service: "a",
    disable: "DISABLE_SVC_CHECK;web;a",
    field: "activeChecksDisabled",
    async honoured(srv) {
      // The sibling on the same interval runs three times; the switched-off one not once. A run of
      // web!a already under way when the switch went off still reports: wait for the sibling's
      // next run first, by which time it has.
      const first = (await statusOf(srv, "sibling")).lastCheck;
      await until(
        "the sibling's next run",
        async () => (await statusOf(srv, "sibling")).lastCheck,
        (t) => t !== first,
      );
      const before = (await statusOf(srv, "a")).lastCheck;
      const seen = new Set<string | undefined>();
      await until(
        "the sibling to run three times",
        async () => (await statusOf(srv, "sibling")).lastCheck,
        (t) => {
          seen.add(t);
          return seen.size >= 4;
        },
      );
      assert.equal((await statusOf(srv, "a")).lastCheck, before, "web!a was not run");
    },
  },
  {
    name: "passive checks",
    service: "p",
    disable: "DISABLE_PASSIVE_SVC_CHECKS;web;p",
    field: "passiveChecksDisabled",
    async honoured(srv) {
      const r = await result(srv, "p", 2);
      assert.equal(r.body.code, "failed_precondition", JSON.stringify(r.body));
    },
  },
  {
    name: "notifications",
    service: "n",
    disable: "DISABLE_SVC_NOTIFICATIONS;web;n",
    field: "notificationsDisabled",
    async honoured(srv) {
      // The notifier follows the log: the preview says so once it has read the switch.
      await until(
        "the preview to say notifications_disabled",
        async () => {
          const r = await call(srv, "/svc.v1.QueryService/PreviewNotifications", {
            host: "web",
            service: "n",
            state: "STATE_CRITICAL",
          });
          return (r.body as { previews?: { suppressed?: string }[] }).previews?.[0]?.suppressed;
        },
        (s) => s === "notifications_disabled",
      );
    },
  },
  {
    name: "flap detection",
    service: "f",
    disable: "DISABLE_SVC_FLAP_DETECTION;web;f",
    field: "flapDetectionDisabled",
    async honoured(srv) {
      for (const s of [0, 2, 0, 2, 0]) {
        const r = await result(srv, "f", s);
        assert.equal(r.status, 200, JSON.stringify(r.body));
      }
      const f = await until(
        "the results to apply",
        () => statusOf(srv, "f"),
        (x) => x.state === "STATE_OK" && (x.flapPercent ?? 0) > 60,
      );
      assert.equal(f.flapping, undefined, `web!f is not flapping at ${f.flapPercent}%`);
    },
  },
];

describe("run-time switches in the real binary: command file, restart, reload", () => {
  let dir: string;
  let fifo: string;
  let cfg: string;
  let tcp: Server;
  let tcpPort: number;
  let srv: ServerProcess | undefined;
  const start = async () => {
    srv = await startServer(["-config", cfg, "-command-file", fifo, "-data-dir", join(dir, "data")]);
    return srv;
  };

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), "lookout-switches-"));
    fifo = join(dir, "lookout.cmd");
    cfg = join(dir, "lookout.cue");
    tcp = createServer((s) => s.destroy());
    await new Promise<void>((r) => tcp.listen(0, "127.0.0.1", r));
    tcpPort = (tcp.address() as { port: number }).port;
    await writeFile(cfg, document(tcpPort, 1));
    await start();
  });
  after(async () => {
    if (srv !== undefined) {
      const log = srv.stderr();
      const code = await srv.stop();
      if (code !== 0) console.error(log);
    }
    tcp?.close();
    await rm(dir, { recursive: true, force: true });
  });

  const assertAll = async (when: string) => {
    const s = srv as ServerProcess;
    const all = await until(
      `${when}: every switch shown off`,
      () => statuses(s),
      (xs) => cases.every((c) => xs.find((x) => x.service === c.service)?.[c.field] === true),
    );
    for (const c of cases) {
      const row = all.find((x) => x.service === c.service) as Status;
      for (const other of cases) {
        if (other !== c) assert.equal(row[other.field], undefined, `${when}: ${c.service} ${other.field}`);
      }
      await c.honoured(s);
    }
  };

  it("turned off through the command file: shown and honoured", async () => {
    const now = Math.floor(Date.now() / 1000);
    const script = cases.map((c) => `printf '%s\\n' "[${now}] ${c.disable}" > "$1"`).join("\n");
    await run("sh", ["-c", script, "sh", fifo]);
    await assertAll("after the command file");
  });

  it("after kill -9: replayed from the log", async () => {
    await (srv as ServerProcess).kill();
    await start();
    await assertAll("after kill -9");
  });

  it("after a reload that changes every object: a reload never turns a switch back on", async () => {
    const s = srv as ServerProcess;
    await writeFile(cfg, document(tcpPort, 2));
    const reloads = () => s.stderr().split('"msg":"config reloaded"').length - 1;
    const before = reloads();
    s.child.kill("SIGHUP");
    await until(
      "the reload",
      async () => reloads(),
      (n) => n > before,
    );
    await assertAll("after a reload");
  });

  it("after a graceful restart: from the snapshot", async () => {
    assert.equal(await (srv as ServerProcess).stop(), 0);
    await start();
    await assertAll("after a graceful restart");
  });

  it("turned back on by selector through the API", async () => {
    const s = srv as ServerProcess;
    const last = (await statusOf(s, "a")).lastCheck;
    const r = await call(s, "/svc.v1.CommandService/SetObjectFlags", {
      target: { selector: "switches=yes" },
      activeChecks: true,
      passiveChecks: true,
      notifications: true,
      flapDetection: true,
      author: "ops",
    });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    await until(
      "every switch on",
      () => statuses(s),
      (xs) => xs.every((x) => cases.every((c) => x[c.field] === undefined)),
    );
    const p = await result(s, "p", 2);
    assert.equal(p.status, 200, JSON.stringify(p.body));
    await until(
      "web!a to run again",
      async () => (await statusOf(s, "a")).lastCheck,
      (t) => t !== last,
    );
    const h = await call(s, "/svc.v1.QueryService/ListHistory", { host: "web", service: "n", pageSize: 100 });
    const kinds = ((h.body as { entries?: { kind: string; author: string }[] }).entries ?? []).filter(
      (e) => e.kind === "ObjectFlagsChanged",
    );
    assert.deepEqual(
      kinds.map((e) => e.author),
      ["ops", "command-file"],
      "history shows both changes, newest first",
    );
  });
});
