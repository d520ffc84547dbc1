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
 * A server that is killed (SIGKILL) while it ingests a worker's results, and started again on the
 * same data directory: every result JetStream acknowledged to the worker is in the log exactly once
 * (applied, or refused as older when its redelivery came after a newer result of its object).
 */

let dir = "";
let nats: NatsCluster;
let listener: Server;
let server: ServerProcess | undefined;
let worker: ChildProcess | undefined;

const config = (p: number) => `
_check: {type: "tcp", address: "127.0.0.1:${p}", check_interval: "1s", retry_interval: "1s", timeout: "1s"}
hosts: r: {
	address: "127.0.0.1"
	zone: "dc2"
	check: _check
	services: {s1: check: _check, s2: check: _check, s3: check: _check, s4: check: _check}
}
`;

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

test("a server killed while ingesting neither skips nor repeats a result after its restart", async () => {
  const args = ["-config", join(dir, "z.cue"), "-data-dir", join(dir, "data"), "-nats", nats.urls];
  server = await startServer(args, { timeoutMs: 30_000 });
  let log = "";
  worker = spawn(
    process.execPath,
    [MAIN_JS, "worker", "-nats", nats.urls, "-zone", "dc2", "-name", "w1", "-log-level", "debug"],
    { stdio: ["ignore", "ignore", "pipe"], env: { PATH: process.env.PATH ?? "/usr/bin:/bin" } },
  );
  worker.stderr?.setEncoding("utf8").on("data", (c: string) => {
    log += c;
  });
  for (let round = 0; round < 3; round++) {
    await sleep(4_000);
    await server.kill();
    await sleep(1_000);
    server = await startServer(args, { timeoutMs: 30_000 });
  }
  await sleep(3_000);
  worker.kill("SIGTERM");
  await once(worker, "exit");
  await drained(server.url);
  await server.stop();

  const published = log
    .split("\n")
    .filter((l) => l.includes('"result published"'))
    .map((l) => JSON.parse(l) as { object: string; checkedAt: number; duplicate: boolean })
    .filter((e) => !e.duplicate)
    .map((e) => `${e.object}@${e.checkedAt}`);
  assert.ok(published.length >= 20, `${published.length} results published`);
  const counts = new Map<string, number>();
  for (const k of loggedResults(join(dir, "data"))) counts.set(k, (counts.get(k) ?? 0) + 1);
  assert.deepEqual(
    published.filter((p) => !counts.has(p)),
    [],
    "acknowledged results missing from the log",
  );
  assert.deepEqual(
    [...counts].filter(([, n]) => n > 1),
    [],
    "results logged twice",
  );
});
