import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { jetstream } from "@nats-io/jetstream";
import {
  connect,
  credsAuthenticator,
  type NatsConnection,
  type PermissionViolationError,
} from "@nats-io/transport-node";
import { createNatsOperator, type NatsCluster, startNatsCluster, testPki } from "../testing/peers/index.js";
import { MAIN_JS, type ServerProcess, startServer } from "../testing/server-process.js";
import {
  auditRecords,
  FORGERY_CONFIG,
  forgedResult,
  metricValue,
  START_TIMEOUT_MS,
  statusOf,
  waitFor,
} from "../testing/zone-forgery.js";
import { encodeResult } from "./job.js";
import { resultSubject, workerInboxPrefix } from "./names.js";
import { natsUserEntry, workerPermissions } from "./permissions.js";

/**
 * A nats-server with the users docs/zones.md gives (the server unrestricted, each zone's workers
 * confined by `workerPermissions`), the real server and a real `lookout worker` of z1 logged in
 * with a password from a file: the worker runs z1's jobs end to end (its result lands); z1's
 * credentials cannot publish z2's results, pull z2's jobs or read other replies (the server says
 * "Permissions Violation"); z1 results naming a z2 or a default-zone object are refused by the
 * ingest. Then a nats-server that takes only TLS clients with a certificate of the test CA.
 */

const PASSWORDS = { lookout: "srv-pw-5e3c", "w-z1": "z1-pw-8a1f", "w-z2": "z2-pw-77d0" } as const;

let dir = "";
let nats: NatsCluster | undefined;
let server: ServerProcess | undefined;
const workers: ChildProcess[] = [];
const clients: NatsConnection[] = [];

before(async () => {
  dir = await mkdtemp(join(tmpdir(), "lookout-nats-perms-"));
  await writeFile(join(dir, "z.cue"), FORGERY_CONFIG);
});

after(async () => {
  for (const c of clients) await c.close().catch(() => {});
  for (const w of workers) {
    if (w.exitCode === null && w.signalCode === null) {
      w.kill("SIGKILL");
      await once(w, "exit");
    }
  }
  await server?.kill();
  await nats?.stop();
  await rm(dir, { recursive: true, force: true });
});

/** Starts `lookout worker` for zone z1; its log is kept for the failure message. */
function startWorker(
  args: string[],
  env: NodeJS.ProcessEnv = {},
): { child: ChildProcess; log: () => string } {
  const child = spawn(
    process.execPath,
    [MAIN_JS, "worker", "-zone", "z1", "-name", "w1", "-concurrency", "4", ...args],
    {
      stdio: ["ignore", "ignore", "pipe"],
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin", ...env },
    },
  );
  workers.push(child);
  let log = "";
  child.stderr?.setEncoding("utf8");
  child.stderr?.on("data", (c: string) => {
    if (log.length < 1_000_000) log += c;
  });
  return { child, log: () => log };
}

/** The permission violations the server reports to a connection, as they come. */
function violations(nc: NatsConnection): PermissionViolationError[] {
  const seen: PermissionViolationError[] = [];
  void (async () => {
    for await (const s of nc.status()) {
      if (s.type === "error" && s.error.name === "PermissionViolationError") {
        seen.push(s.error as PermissionViolationError);
      }
    }
  })();
  return seen;
}

test("a z1 worker confined by the documented permissions runs z1's checks and nothing else", async () => {
  const users = [
    natsUserEntry("lookout", PASSWORDS.lookout),
    natsUserEntry("w-z1", PASSWORDS["w-z1"], workerPermissions("z1")),
    natsUserEntry("w-z2", PASSWORDS["w-z2"], workerPermissions("z2")),
  ];
  nats = await startNatsCluster(1, { config: `authorization { users: [\n  ${users.join(",\n  ")}\n] }` });
  const url = nats.urls;
  const data = join(dir, "data");
  server = await startServer(
    [
      "-config",
      join(dir, "z.cue"),
      "-data-dir",
      data,
      "-nats",
      url,
      "-no-worker-grace",
      "1h",
      "-nats-user",
      "lookout",
    ],
    {
      timeoutMs: START_TIMEOUT_MS,
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin", LOOKOUT_NATS_PASSWORD: PASSWORDS.lookout },
    },
  );
  const s = server;
  const pwFile = join(dir, "z1.pw");
  await writeFile(pwFile, `${PASSWORDS["w-z1"]}\n`, { mode: 0o600 });
  const w = startWorker(["-nats", url, "-nats-user", "w-z1", "-nats-password-file", pwFile]);

  // End to end under the permissions: the job pulled, run, its result published and acknowledged,
  // the job acknowledged, the worker's liveness entry written.
  await waitFor(
    "a z1 check run by w1",
    async () => (await statusOf(s.url, "r1", "s"))?.checkedBy === "w1",
    60_000,
  ).catch((e: Error) => {
    throw new Error(
      `${e.message}\nworker:\n${w.log()}\nserver:\n${s.stderr()}\nnats:\n${nats?.nodes[0]?.log()}`,
    );
  });
  // `done` counts results JetStream acknowledged to the worker (a reply it may read).
  await waitFor("w1 listed, with results acknowledged", async () => {
    const doc = (await (await fetch(`${s.url}/zones/workers`)).json()) as {
      workers: { id: string; done: number }[];
    };
    return doc.workers.some((x) => x.id === "w1" && x.done >= 1);
  }).catch((e: Error) => {
    throw new Error(`${e.message}\nworker:\n${w.log()}`);
  });
  assert.doesNotMatch(w.log(), /Permissions Violation|"level":"(warn|error)"/, w.log());
  assert.match(nats.nodes[0]?.log() ?? "", /Server is ready/);
  assert.doesNotMatch(
    nats.nodes[0]?.log() ?? "",
    /Permissions Violation/,
    "the worker asked for nothing it may not",
  );

  // z1's credentials, used by hand.
  const z1 = await connect({
    servers: url,
    user: "w-z1",
    pass: PASSWORDS["w-z1"],
    inboxPrefix: workerInboxPrefix("z1"),
  });
  clients.push(z1);
  const seen = violations(z1);
  z1.publish(resultSubject("z2"), encodeResult(forgedResult("r2", "s", "z2")));
  z1.publish(
    "$JS.API.CONSUMER.MSG.NEXT.LOOKOUT_JOBS.lookout-zone-z2",
    new TextEncoder().encode('{"batch":1}'),
  );
  z1.publish("$JS.API.CONSUMER.CREATE.LOOKOUT_JOBS", new TextEncoder().encode("{}"));
  z1.subscribe("_INBOX.>");
  await z1.flush();
  await waitFor("three publishes and a subscription refused", async () => seen.length >= 4, 10_000);
  assert.deepEqual(seen.map((v) => `${v.operation} ${v.subject}`).sort(), [
    "publish $JS.API.CONSUMER.CREATE.LOOKOUT_JOBS",
    "publish $JS.API.CONSUMER.MSG.NEXT.LOOKOUT_JOBS.lookout-zone-z2",
    "publish lookout.result.z2",
    "subscription _INBOX.>",
  ]);

  // What z1 may publish, its own subject, naming objects that are not z1's: refused by the ingest.
  const web1Before = await statusOf(s.url, "web1", "http");
  const r2Before = await statusOf(s.url, "r2", "s");
  const js = jetstream(z1);
  await js.publish(resultSubject("z1"), encodeResult(forgedResult("r2", "s", "z1")));
  await js.publish(resultSubject("z1"), encodeResult(forgedResult("web1", "http", "z1")));
  await waitFor(
    "two wrong_zone refusals",
    async () =>
      (await metricValue(s.url, 'lookout_zone_results_refused_total{zone="z1",reason="wrong_zone"}')) === 2,
  );
  assert.deepEqual(await statusOf(s.url, "web1", "http"), web1Before);
  assert.equal((await statusOf(s.url, "r2", "s"))?.output, r2Before?.output);
  const records = auditRecords(data);
  assert.deepEqual(
    records.map((r) => [r.principalName, r.rpc, r.reason.split(":")[0]]),
    [
      ["worker:evil", "lookout.result.z1", "wrong_zone"],
      ["worker:evil", "lookout.result.z1", "wrong_zone"],
    ],
  );

  // No password in either log, nor on the worker's command line.
  for (const [who, log] of [
    ["server", s.stderr()],
    ["worker", w.log()],
  ] as const) {
    for (const pw of Object.values(PASSWORDS)) assert.ok(!log.includes(pw), `${who} logged a password`);
  }
  const cmdline = await readFile(`/proc/${w.child.pid}/cmdline`, "utf8");
  assert.ok(!cmdline.includes(PASSWORDS["w-z1"]), cmdline);
  w.child.kill("SIGTERM");
  await once(w.child, "exit");
});

test("TLS: the server and a worker connect to a nats-server that takes only clients of its CA", async () => {
  await nats?.stop();
  nats = undefined;
  const pki = testPki();
  // nats.js verifies a loopback IP URL as "localhost".
  const srv = pki.issue({ names: ["127.0.0.1", "localhost"], days: 30 });
  const client = pki.issue({ names: ["lookout-client"], days: 30, client: true });
  const file = async (name: string, text: string) => {
    const p = join(dir, name);
    await writeFile(p, text, { mode: 0o600 });
    return p;
  };
  const ca = await file("ca.pem", pki.ca);
  const srvCert = await file("srv.pem", srv.cert);
  const srvKey = await file("srv.key", srv.key);
  const cert = await file("client.pem", client.cert);
  const key = await file("client.key", client.key);
  nats = await startNatsCluster(1, {
    config: `tls { cert_file: "${srvCert}", key_file: "${srvKey}", ca_file: "${ca}", verify: true, timeout: 5 }`,
  });
  const tlsFlags = ["-nats-tls-ca", ca, "-nats-tls-cert", cert, "-nats-tls-key", key];
  await server?.kill();
  server = await startServer(
    [
      "-config",
      join(dir, "z.cue"),
      "-data-dir",
      join(dir, "data-tls"),
      "-nats",
      nats.urls,
      "-no-worker-grace",
      "1h",
      ...tlsFlags,
    ],
    { timeoutMs: START_TIMEOUT_MS },
  );
  const s = server;
  const w = startWorker(["-nats", nats.urls, ...tlsFlags]);
  await waitFor(
    "a z1 check run by w1 over TLS",
    async () => (await statusOf(s.url, "r1", "s"))?.checkedBy === "w1",
    60_000,
  ).catch((e: Error) => {
    throw new Error(
      `${e.message}\nworker:\n${w.log()}\nserver:\n${s.stderr()}\nnats:\n${nats?.nodes[0]?.log()}`,
    );
  });
  // Without a client certificate the nats-server refuses the handshake.
  const bare = await connect({
    servers: nats.urls,
    tls: { caFile: ca },
    maxReconnectAttempts: 0,
    timeout: 5_000,
  }).then(
    (nc) => nc.close().then(() => "connected"),
    (e: Error) => `refused: ${e.message}`,
  );
  assert.match(bare, /^refused/);
});

test("creds: the server and a z1 worker log in with JWT and nkey creds files; the JWT's permissions hold", async () => {
  await nats?.stop();
  nats = undefined;
  await server?.kill();
  const op = createNatsOperator();
  nats = await startNatsCluster(1, { config: op.serverConfig() });
  const file = async (name: string, text: string) => {
    const p = join(dir, name);
    await writeFile(p, text, { mode: 0o600 });
    return p;
  };
  const serverCreds = await file("srv.creds", op.userCreds("lookout"));
  const z1Creds = await file("z1.creds", op.userCreds("w-z1", workerPermissions("z1")));
  server = await startServer(
    [
      "-config",
      join(dir, "z.cue"),
      "-data-dir",
      join(dir, "data-creds"),
      "-nats",
      nats.urls,
      "-no-worker-grace",
      "1h",
      "-nats-creds",
      serverCreds,
    ],
    { timeoutMs: START_TIMEOUT_MS },
  );
  const s = server;
  const w = startWorker(["-nats", nats.urls, "-nats-creds", z1Creds]);
  await waitFor(
    "a z1 check run by w1 with creds",
    async () => (await statusOf(s.url, "r1", "s"))?.checkedBy === "w1",
    60_000,
  ).catch((e: Error) => {
    throw new Error(
      `${e.message}\nworker:\n${w.log()}\nserver:\n${s.stderr()}\nnats:\n${nats?.nodes[0]?.log()}`,
    );
  });
  const z1 = await connect({
    servers: nats.urls,
    authenticator: credsAuthenticator(new Uint8Array(await readFile(z1Creds))),
    inboxPrefix: workerInboxPrefix("z1"),
  });
  clients.push(z1);
  const seen = violations(z1);
  z1.publish(resultSubject("z2"), encodeResult(forgedResult("r2", "s", "z2")));
  await z1.flush();
  await waitFor("the z2 publish refused", async () => seen.length >= 1, 10_000);
  assert.equal(`${seen[0]?.operation} ${seen[0]?.subject}`, "publish lookout.result.z2");
  const seed = /SU[A-Z0-9]{50,}/.exec(await readFile(z1Creds, "utf8"))?.[0] ?? "";
  assert.ok(seed.length > 20);
  assert.ok(!w.log().includes(seed) && !s.stderr().includes(seed), "no seed in a log");
});
