import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { Core } from "../core/core.js";
import { fleetConfig, fleetHost, fleetService } from "../core/fleet-config.js";
import { openEventLogReader } from "../store/event-log.js";
import { replayProjection } from "../store/replay.js";
import { connectJson } from "./core-test-server.js";

const SERVER = fileURLToPath(new URL("./core-test-server.js", import.meta.url));
const HOSTS = 20;
const SERVICES = 10;
const BATCH = 200;
const dir = mkdtempSync(join(tmpdir(), "lookout-crash-"));
after(() => rmSync(dir, { recursive: true, force: true }));

function startServer(): Promise<{ child: ChildProcess; url: string }> {
  // Snapshots every 2,000 events, so the kills land before, around and after snapshots.
  const child = spawn(process.execPath, [SERVER, dir, String(HOSTS), String(SERVICES), "0", "2000"], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  return new Promise((resolve, reject) => {
    let out = "";
    child.stdout?.on("data", (d: Buffer) => {
      out += d.toString();
      const m = /listening (\d+)/.exec(out);
      if (m) resolve({ child, url: `http://127.0.0.1:${m[1]}` });
    });
    child.once("exit", (code) => reject(new Error(`server exited with ${code} before listening`)));
  });
}

function batch(n: number): unknown {
  const results = [];
  for (let k = 0; k < BATCH; k++) {
    const i = (n * BATCH + k) % (HOSTS * SERVICES);
    results.push({
      host: fleetHost(Math.floor(i / SERVICES)),
      service: fleetService(i % SERVICES),
      exitStatus: (n + k) % 4,
      output: `batch ${n}`,
    });
  }
  return { results };
}

/**
 * Ingests numbered batches over Connect JSON, sixteen in flight, until `acks` were acknowledged; then
 * kills the server with SIGKILL while the other requests are in flight. Returns the acknowledged.
 */
async function ingestAndKill(first: number, acks: number): Promise<Set<number>> {
  const { child, url } = await startServer();
  const exited = new Promise((r) => child.once("exit", r));
  const acked = new Set<number>();
  let next = first;
  let killed = false;
  await Promise.all(
    Array.from({ length: 16 }, async () => {
      while (!killed) {
        const n = next++;
        try {
          const r = await connectJson(url, "/svc.v1.CommandService/ProcessCheckResults", batch(n));
          if (r.status !== 200) throw new Error(JSON.stringify(r.body));
          acked.add(n);
        } catch (e) {
          if (killed) return;
          throw e;
        }
        if (acked.size >= acks && !killed) {
          killed = true;
          child.kill("SIGKILL");
        }
      }
    }),
  );
  await exited;
  return acked;
}

describe("crash recovery through the API", () => {
  it("applies every acknowledged batch after SIGKILL, and the projection equals a fresh replay", async () => {
    const acked = new Set<number>();
    for (const [round, acks] of [
      [0, 15],
      [1, 60],
      [2, 140],
    ] as const) {
      for (const n of await ingestAndKill(round * 1_000_000, acks)) acked.add(n);
    }
    assert.ok(acked.size >= 215);

    // The server again, on the same data: everything acknowledged is there, reads included.
    const { child, url } = await startServer();
    try {
      const r = await connectJson(url, "/svc.v1.QueryService/ListStatus", { pageSize: 1000 });
      assert.equal(r.status, 200);
      assert.equal(r.body.totalSize, HOSTS * (SERVICES + 1));
    } finally {
      child.kill("SIGTERM");
      await new Promise((res) => child.once("exit", res));
    }

    const core = await Core.open({
      dataDir: dir,
      config: fleetConfig({ hosts: HOSTS, servicesPerHost: SERVICES }),
      configDigest: `fleet:${HOSTS}x${SERVICES}`,
    });
    try {
      await core.flush();
      const seen = new Set<number>();
      const reader = openEventLogReader(dir);
      try {
        for (let afterSeq = 0; ; ) {
          const events = reader.eventsAfter(afterSeq, 5000);
          if (events.length === 0) break;
          for (const e of events) {
            if (e.event.type === "CheckResultProcessed")
              seen.add(Number(e.event.result.output.replace("batch ", "")));
          }
          afterSeq = (events[events.length - 1] as { seq: number }).seq;
        }
      } finally {
        reader.close();
      }
      assert.deepEqual(
        [...acked].filter((n) => !seen.has(n)),
        [],
        "every acknowledged batch was applied",
      );
      assert.deepEqual(core.view.projection.snapshot(), replayProjection(dir));
    } finally {
      await core.close();
    }
  });
});
