import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { loggedResults } from "../testing/logged-results.js";
import { type NatsCluster, startNatsCluster } from "../testing/peers/index.js";
import { MAIN_JS, type ServerProcess, startServer } from "../testing/server-process.js";

/**
 * The real thing: a 3-node nats-server cluster on loopback, a primary and a standby (leader
 * election, replicas of one command log, 6 s lease), three workers in two zones (dc2: w1, w2; dc3: w3), and a local zone. The
 * test kills a worker mid-check, a NATS node, then (once every remote object has run again) the
 * primary, and reads the standby's event log (the primary's is where it began): every object was checked at least every interval + timeout (+1 s: the ack wait's margin
 * and timer jitter) but for at most one slot lost to the NATS node's death, every result
 * JetStream acknowledged to a worker is in a log, and no result is logged more than once per
 * failure.
 */

const INTERVAL_MS = 10_000;
const TIMEOUT_MS = 8_000;
const BOUND_MS = INTERVAL_MS + TIMEOUT_MS + 1_000;

let dir = "";
let nats: NatsCluster;
let listener: Server;
let port = 0;
const children: ChildProcess[] = [];
const servers: ServerProcess[] = [];
const logs: { name: string; text: () => string }[] = [];

const config = (p: number) => `
_check: {check_interval: "10s", retry_interval: "10s", timeout: "8s"}
hosts: local: {
	address: "127.0.0.1"
	check: _check & {type: "tcp", address: "127.0.0.1:${p}"}
}
hosts: a: {
	address: "127.0.0.1"
	zone: "dc2"
	check: _check & {type: "tcp", address: "127.0.0.1:${p}"}
	services: {
		web: check: _check & {type: "tcp", address: "127.0.0.1:${p}"}
		slow: check: _check & {type: "command", command: "slow"}
		db: check: _check & {type: "tcp", address: "127.0.0.1:${p}"}
	}
}
hosts: b: {
	address: "127.0.0.1"
	zone: "dc3"
	check: _check & {type: "tcp", address: "127.0.0.1:${p}"}
	services: web: check: _check & {type: "tcp", address: "127.0.0.1:${p}"}
}
commands: slow: {line: "sleep 1.5; echo OK - slow", shell: true}
`;

function startWorker(zone: string, name: string): { child: ChildProcess; log: () => string } {
  const child = spawn(
    process.execPath,
    [
      MAIN_JS,
      "worker",
      "-nats",
      nats.urls,
      "-zone",
      zone,
      "-name",
      name,
      "-nats-replicas",
      "3",
      "-log-level",
      "debug",
    ],
    { stdio: ["ignore", "ignore", "pipe"], env: { PATH: process.env.PATH ?? "/usr/bin:/bin" } },
  );
  children.push(child);
  let log = "";
  child.stderr?.setEncoding("utf8").on("data", (c: string) => {
    log += c;
  });
  return { child, log: () => log };
}

async function waitFor(what: string, f: () => boolean, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!f()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Waits until the leader has ingested every published result (its pending gauge reads 0 twice). */
async function drained(url: string): Promise<void> {
  const deadline = Date.now() + 60_000;
  let zeros = 0;
  while (zeros < 2) {
    if (Date.now() > deadline) throw new Error("results still pending after 60 s");
    await sleep(2_500);
    const text = await (await fetch(`${url}/metrics`)).text();
    zeros = /^lookout_zone_results_pending 0$/m.test(text) ? zeros + 1 : 0;
  }
}

before(async () => {
  dir = await mkdtemp(join(tmpdir(), "lookout-zones-"));
  listener = createServer((s) => s.destroy());
  await new Promise<void>((r) => listener.listen({ host: "127.0.0.1", port: 0 }, r));
  port = (listener.address() as { port: number }).port;
  await writeFile(join(dir, "z.cue"), config(port));
  nats = await startNatsCluster(3);
  for (const n of nats.nodes) logs.push({ name: `nats-${n.name}`, text: () => n.log() });
});

after(async () => {
  // ZONES_TEST_LOGS=dir keeps every process's log, whatever the outcome.
  const keep = process.env.ZONES_TEST_LOGS;
  if (keep !== undefined) for (const l of logs) await writeFile(join(keep, `${l.name}.log`), l.text());
  for (const s of servers) await s.kill().catch(() => {});
  for (const c of children) {
    if (c.exitCode === null && c.signalCode === null) {
      c.kill("SIGKILL");
      await once(c, "exit");
    }
  }
  await nats?.stop();
  listener?.close();
  await rm(dir, { recursive: true, force: true });
});

test("a worker, a NATS node and the primary die: checks go on, no acknowledged result is lost", async () => {
  const serverArgs = (name: string) => [
    "-config",
    join(dir, "z.cue"),
    "-data-dir",
    join(dir, name),
    "-nats",
    nats.urls,
    "-nats-replicas",
    "3",
    "-leader-election",
    "-leader-lease",
    "6s",
    "-log-level",
    "debug",
  ];
  // Generous: a loaded machine took more than 30 s to listen once.
  const primary = await startServer(serverArgs("primary"), { timeoutMs: 60_000 });
  logs.push({ name: "primary", text: () => primary.stderr() });
  servers.push(primary);
  await waitFor("the primary to lead", () => primary.stderr().includes('"leadership won"'));
  const standby = await startServer(serverArgs("standby"), { timeoutMs: 60_000 });
  logs.push({ name: "standby", text: () => standby.stderr() });
  servers.push(standby);
  const workers = [startWorker("dc2", "w1"), startWorker("dc2", "w2"), startWorker("dc3", "w3")];
  for (const [i, w] of workers.entries()) logs.push({ name: `w${i + 1}`, text: w.log });
  const startedAt = Date.now();
  await sleep(5_000);

  // 1. A worker dies mid-check: wait until it runs the slow check, then SIGKILL it.
  const w1 = workers[0] as { child: ChildProcess; log: () => string };
  await sleep(3_000);
  const marks: Record<string, number> = { workerKilled: Date.now() };
  w1.child.kill("SIGKILL");
  await once(w1.child, "exit");
  await sleep(11_000);

  // 2. A NATS node dies. The cluster elects new stream, consumer and meta leaders, and clients
  // re-pull: until every remote object has been run again, the next failure would stack on this one
  // (docs/zones.md bounds each failure, not failures that overlap).
  marks.natsKilled = Date.now();
  await nats.nodes[0]?.kill();
  await sleep(11_000);
  const remote = ["a", "a!web", "a!slow", "a!db", "b", "b!web"];
  const notRunAgain = () => {
    const ran = new Set<string>();
    for (const w of workers.slice(1)) {
      for (const line of w.log().split("\n")) {
        if (!line.includes('"result published"')) continue;
        const e = JSON.parse(line) as { object: string; checkedAt: number };
        if (e.checkedAt > (marks.natsKilled as number) + 1_000) ran.add(e.object);
      }
    }
    return remote.filter((k) => !ran.has(k));
  };
  await waitFor(
    "every remote object run again after the NATS node's death",
    () => notRunAgain().length === 0,
    INTERVAL_MS + BOUND_MS,
  ).catch((e: unknown) => {
    throw new Error(
      `${String(e)}: not run again ${notRunAgain().join(" ")} (${Date.now() - startedAt} ms in)`,
    );
  });

  // 3. The primary dies; the standby takes over.
  marks.primaryKilled = Date.now();
  await primary.kill();
  await waitFor("the standby to lead", () => standby.stderr().includes('"leadership won"'), 20_000);
  await sleep(INTERVAL_MS + TIMEOUT_MS);
  const endedAt = Date.now();

  // Stop the workers first, give the standby time to ingest what they published, then stop it.
  for (const w of workers.slice(1)) w.child.kill("SIGTERM");
  for (const w of workers.slice(1)) if (w.child.exitCode === null) await once(w.child, "exit");
  await drained(standby.url);
  await standby.stop();

  // Every server is a replica of one command log (docs/replication.md): the standby's log holds
  // what the primary logged before it died, and what the standby logged since.
  const logged = loggedResults(join(dir, "standby"));
  const primaryLogged = loggedResults(join(dir, "primary"));
  assert.deepEqual(
    logged.slice(0, primaryLogged.length),
    primaryLogged,
    "the primary's log is where the standby's began",
  );
  const counts = new Map<string, number>();
  for (const r of logged) counts.set(r, (counts.get(r) ?? 0) + 1);

  // No acknowledged result lost: every result a worker saw JetStream accept (not as a duplicate).
  const published: string[] = [];
  for (const w of workers) {
    for (const line of w.log().split("\n")) {
      if (!line.includes('"result published"')) continue;
      const e = JSON.parse(line) as { object: string; checkedAt: number; duplicate: boolean };
      if (!e.duplicate) published.push(`${e.object}@${e.checkedAt}`);
    }
  }
  assert.ok(published.length > 20, `workers published ${published.length} results`);
  const lost = published.filter((p) => !counts.has(p));
  assert.deepEqual(lost, [], "results JetStream acknowledged but in no log");

  // Duplicates: at most one per failure (three failures).
  const dups = [...counts.values()].reduce((n, c) => n + c - 1, 0);
  assert.ok(dups <= 3, `${dups} duplicated results`);

  // Every object checked within interval + timeout, from the first interval to the end.
  const byKey = new Map<string, number[]>();
  for (const r of counts.keys()) {
    const at = r.lastIndexOf("@");
    const key = r.slice(0, at);
    const list = byKey.get(key) ?? [];
    list.push(Number(r.slice(at + 1)));
    byKey.set(key, list);
  }
  const keys = ["local", "a", "a!web", "a!slow", "a!db", "b", "b!web"];
  for (const key of keys) {
    const times = (byKey.get(key) ?? []).sort((x, y) => x - y);
    const points = [startedAt + INTERVAL_MS, ...times.filter((t) => t > startedAt + INTERVAL_MS), endedAt];
    // One slot per object may be lost to the NATS node's death: JetStream elects new stream and
    // consumer leaders, which on a loaded machine can outlast the job's life (docs/zones.md).
    const gaps: number[] = [];
    for (let i = 1; i < points.length; i++) gaps.push((points[i] as number) - (points[i - 1] as number));
    const long = gaps.filter((g) => g > BOUND_MS);
    const where = `checks at ${times.map((t) => t - startedAt).join(" ")}, ${Object.entries(marks)
      .map(([k, v]) => `${k} ${v - startedAt}`)
      .join(", ")}`;
    assert.ok(long.length <= 1, `${key}: ${long.length} gaps over ${BOUND_MS} ms; ${where}`);
    assert.ok(
      long.every((g) => g <= INTERVAL_MS + BOUND_MS),
      `${key}: gap ${long[0]} ms; ${where}`,
    );
  }
});
