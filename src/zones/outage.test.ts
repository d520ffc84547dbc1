import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { createClient } from "@connectrpc/connect";
import { createGrpcWebTransport } from "@connectrpc/connect-node";
import {
  ListStatusRequestSchema,
  ListStatusResponseSchema,
  ListWorkersRequestSchema,
  ListWorkersResponseSchema,
  QueryService,
} from "../api/gen/svc/v1/query_service_pb.js";
import { grpcUnary } from "../testing/clients.js";
import { type NatsCluster, startNatsCluster } from "../testing/peers/index.js";
import { MAIN_JS, type ServerProcess, startServer } from "../testing/server-process.js";

/**
 * One nats-server and one server (no leader election, a 3 s no-worker grace). Without a worker the
 * remote zone's jobs do not pile up (one per object waits) and its objects go UNKNOWN "no worker
 * for zone dc2"; a worker brings them back; with NATS down the local zone keeps running.
 */

let dir = "";
let nats: NatsCluster;
let listener: Server;
let server: ServerProcess | undefined;
let worker: ChildProcess | undefined;

const config = (p: number) => `
_check: {check_interval: "1s", retry_interval: "1s", timeout: "1s", max_attempts: 1}
hosts: local: {
	address: "127.0.0.1"
	check: _check & {type: "tcp", address: "127.0.0.1:${p}"}
}
hosts: r: {
	address: "127.0.0.1"
	zone: "dc2"
	check: {type: "passive", freshness_threshold: "1h"}
	services: {
		s1: check: _check & {type: "tcp", address: "127.0.0.1:${p}"}
		s2: check: _check & {type: "tcp", address: "127.0.0.1:${p}"}
		s3: check: _check & {type: "tcp", address: "127.0.0.1:${p}"}
	}
}
`;

interface Status {
  host: string;
  service?: string;
  state: string;
  output?: string;
  lastCheck?: string;
  checkedBy?: string;
}

async function statuses(url: string): Promise<Status[]> {
  const res = await fetch(`${url}/svc.v1.QueryService/ListStatus`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: "{}",
  });
  return ((await res.json()) as { statuses: Status[] }).statuses;
}

async function metric(url: string, name: string): Promise<number | undefined> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const line = text.split("\n").find((l) => l.startsWith(name));
  return line === undefined ? undefined : Number(line.slice(line.lastIndexOf(" ") + 1));
}

async function waitFor(what: string, f: () => Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await f())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

before(async () => {
  dir = await mkdtemp(join(tmpdir(), "lookout-zones-"));
  listener = createServer((s) => s.destroy());
  await new Promise<void>((r) => listener.listen({ host: "127.0.0.1", port: 0 }, r));
  await writeFile(join(dir, "z.cue"), config((listener.address() as { port: number }).port));
  nats = await startNatsCluster(1);
});

after(async () => {
  await server?.kill();
  if (worker !== undefined && worker.exitCode === null && worker.signalCode === null) {
    worker.kill("SIGKILL");
    await once(worker, "exit");
  }
  await nats?.stop();
  listener?.close();
  await rm(dir, { recursive: true, force: true });
});

test("no worker: one job per object waits, then UNKNOWN; a worker heals it; NATS down: local checks go on", async () => {
  const s = await startServer(
    [
      "-config",
      join(dir, "z.cue"),
      "-data-dir",
      join(dir, "data"),
      "-nats",
      nats.urls,
      "-no-worker-grace",
      "3s",
    ],
    { timeoutMs: 30_000 },
  );
  server = s;
  // Within the grace, every due run is published; the stream keeps one per object.
  await waitFor(
    "jobs published",
    async () => ((await metric(s.url, 'lookout_zone_jobs_published_total{zone="dc2"}')) ?? 0) >= 6,
  );
  await waitFor(
    "the waiting jobs counted",
    async () => (await metric(s.url, 'lookout_zone_jobs_waiting{zone="dc2"}')) !== undefined,
  );
  const waiting = await metric(s.url, 'lookout_zone_jobs_waiting{zone="dc2"}');
  assert.ok(waiting !== undefined && waiting <= 3, `${waiting} jobs waiting for 3 objects`);

  // After the grace, the zone's objects say why they are not checked.
  await waitFor("UNKNOWN: no worker", async () =>
    (await statuses(s.url))
      .filter((x) => x.host === "r" && x.service !== undefined)
      .every((x) => x.state === "STATE_UNKNOWN" && x.output === "no worker for zone dc2"),
  );

  // A worker: results flow again (a tcp check's output, not the server's complaint).
  worker = spawn(
    process.execPath,
    [MAIN_JS, "worker", "-nats", nats.urls, "-zone", "dc2", "-name", "w1", "-concurrency", "16"],
    {
      stdio: ["ignore", "ignore", "ignore"],
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin" },
    },
  );
  await waitFor("results from the worker", async () =>
    (await statuses(s.url))
      .filter((x) => x.host === "r" && x.service !== undefined)
      .every((x) => x.output?.startsWith("TCP") === true),
  );
  assert.equal(await metric(s.url, 'lookout_zone_workers{zone="dc2"}'), 1);
  const listed = (await (await fetch(`${s.url}/zones/workers`)).json()) as {
    leading: boolean;
    workers: { id: string; zone: string }[];
  };
  assert.equal(listed.leading, true);
  assert.deepEqual(
    listed.workers.map((w) => [w.id, w.zone]),
    [["w1", "dc2"]],
  );

  // ListStatus names the worker that ran each remote check, and nobody for the server's own: over
  // Connect JSON (messages built) and gRPC (the page spliced from the held records).
  const byJson = await statuses(s.url);
  assert.deepEqual(
    byJson.map((x) => [x.host, x.service ?? "", x.checkedBy ?? ""]),
    [
      ["local", "", ""],
      ["r", "", ""],
      ["r", "s1", "w1"],
      ["r", "s2", "w1"],
      ["r", "s3", "w1"],
    ],
  );
  const byGrpc = await grpcUnary(
    `127.0.0.1:${s.port}`,
    "/svc.v1.QueryService/ListStatus",
    ListStatusRequestSchema,
    ListStatusResponseSchema,
  );
  assert.deepEqual(
    byGrpc.statuses.map((x) => [x.host, x.service ?? "", x.checkedBy]),
    byJson.map((x) => [x.host, x.service ?? "", x.checkedBy ?? ""]),
  );

  // ListWorkers: the same worker under all three protocols.
  const rpcJson = (await (
    await fetch(`${s.url}/svc.v1.QueryService/ListWorkers`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: "{}",
    })
  ).json()) as { leading: boolean; workers: Record<string, unknown>[] };
  assert.equal(rpcJson.leading, true);
  assert.deepEqual(
    rpcJson.workers.map((w) => [w.zone, w.id, typeof w.lastSeen, typeof w.startedAt, w.concurrency]),
    [["dc2", "w1", "string", "string", 16]],
  );
  const seen = Date.parse(String(rpcJson.workers[0]?.lastSeen));
  assert.ok(Math.abs(Date.now() - seen) < 30_000, `last seen ${rpcJson.workers[0]?.lastSeen}`);
  for (const w of [
    await grpcUnary(
      `127.0.0.1:${s.port}`,
      "/svc.v1.QueryService/ListWorkers",
      ListWorkersRequestSchema,
      ListWorkersResponseSchema,
    ),
    await createClient(
      QueryService,
      createGrpcWebTransport({ baseUrl: s.url, httpVersion: "1.1" }),
    ).listWorkers({}),
  ]) {
    assert.equal(w.leading, true);
    assert.deepEqual(
      w.workers.map((x) => [x.zone, x.id, x.concurrency]),
      [["dc2", "w1", 16]],
    );
  }

  // NATS goes away: the local zone keeps running.
  await nats.nodes[0]?.kill();
  const lastLocal = async () => (await statuses(s.url)).find((x) => x.host === "local")?.lastCheck ?? "";
  const before = await lastLocal();
  await new Promise((r) => setTimeout(r, 3_000));
  const later = await lastLocal();
  assert.ok(later > before, `local check ran while NATS was down (${before} → ${later})`);
  const dropped = await metric(
    s.url,
    'lookout_zone_jobs_dropped_total{zone="dc2",reason="nats_unreachable"}',
  );
  assert.ok((dropped ?? 0) > 0, "remote runs were dropped, not queued");
});
