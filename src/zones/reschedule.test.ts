import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { slotAtOrAfter } from "../engine/scheduler/slots.js";
import { curlJson } from "../testing/clients.js";
import { type NatsCluster, startNatsCluster } from "../testing/peers/index.js";
import { type Peer, startTcpListener } from "../testing/peers/tcp.js";
import { MAIN_JS, type ServerProcess, startServer } from "../testing/server-process.js";

/**
 * RescheduleCheck of an object of a remote zone: the server hands it to the zone's worker as a job
 * at once (one nats-server, one server, one dc2 worker), and the worker's result moves its last check.
 */

const DAY = 86_400_000;
let dir = "";
let nats: NatsCluster;
let peer: Peer;
let server: ServerProcess | undefined;
let worker: ChildProcess | undefined;

/** A service name whose daily slot is hours away: it runs only when asked to. */
function quietService(): string {
  for (let i = 0; ; i++) {
    const name = `s${i}`;
    if (slotAtOrAfter(`r!${name}`, DAY, Date.now()) - Date.now() > 3_600_000) return name;
  }
}
const service = quietService();

before(async () => {
  dir = await mkdtemp(join(tmpdir(), "lookout-zones-resched-"));
  peer = await startTcpListener();
  await writeFile(
    join(dir, "z.cue"),
    `hosts: r: {
	address: "127.0.0.1"
	zone: "dc2"
	check: {type: "passive", freshness_threshold: "48h"}
	services: ${service}: check: {type: "tcp", address: "127.0.0.1:${peer.port}", check_interval: "24h"}
}
`,
  );
  nats = await startNatsCluster(1);
});

after(async () => {
  await server?.kill();
  if (worker !== undefined && worker.exitCode === null && worker.signalCode === null) {
    worker.kill("SIGKILL");
    await once(worker, "exit");
  }
  await nats?.stop();
  await peer?.stop();
  await rm(dir, { recursive: true, force: true });
});

interface Status {
  lastCheck?: string;
  checkedBy?: string;
  output?: string;
}

async function status(s: ServerProcess): Promise<Status | undefined> {
  const r = await curlJson(`${s.url}/svc.v1.QueryService/ListStatus`, JSON.stringify({ host: "r", service }));
  return (JSON.parse(r.body) as { statuses?: Status[] }).statuses?.[0];
}

async function checkedBy(s: ServerProcess, after: number, what: string): Promise<number> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const st = await status(s);
    const t = st?.lastCheck === undefined ? 0 : Date.parse(st.lastCheck);
    if (t > after && st?.checkedBy === "w1") return t;
    if (Date.now() > deadline)
      assert.fail(`timed out waiting for ${what}: ${JSON.stringify(st)}\n${s.stderr()}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

test("a remote zone's object rescheduled is dispatched to its worker at once", async () => {
  const s = await startServer(
    ["-config", join(dir, "z.cue"), "-data-dir", join(dir, "data"), "-nats", nats.urls],
    {
      timeoutMs: 30_000,
    },
  );
  server = s;
  worker = spawn(process.execPath, [MAIN_JS, "worker", "-nats", nats.urls, "-zone", "dc2", "-name", "w1"], {
    stdio: ["ignore", "ignore", "ignore"],
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin" },
  });
  // The first run (within seconds of the start; its grid slot is hours away), by the worker.
  const first = await checkedBy(s, 0, "the first run");
  const asked = Date.now();
  const r = await curlJson(
    `${s.url}/svc.v1.CommandService/RescheduleCheck`,
    JSON.stringify({ target: { object: { host: "r", service } } }),
  );
  assert.equal(r.status, 200, r.body);
  const second = await checkedBy(s, first, "the rescheduled run");
  assert.ok(second >= asked - 1_000, "ran after it was asked for");
});
