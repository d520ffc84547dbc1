import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { jetstreamManager } from "@nats-io/jetstream";
import { connect } from "@nats-io/transport-node";
import { Core } from "../core/core.js";
import { fleetConfig } from "../core/fleet-config.js";
import type { CommandInput } from "../core/validate.js";
import type { ExitStatus } from "../model/state.js";
import { StoreError } from "../store/errors.js";
import { listHistory, listStatus } from "../store/read-model.js";
import { Database } from "../store/sqlite.js";
import { FakeClock } from "../testing/fake-clock.js";
import { type NatsCluster, startNatsCluster } from "../testing/peers/nats.js";
import type { CommandStreamOptions } from "./command-stream.js";
import { COMMANDS_STREAM, COMMANDS_SUBJECT } from "./names.js";

/**
 * Cores replicating one command log on a real nats-server (docs/replication.md): what each applies
 * is what the log holds, in its order, wherever a write was submitted. A small max_payload sends
 * large batches through the parts path.
 */

let nats: NatsCluster;
const dirs: string[] = [];
const opened: Core[] = [];
const config = fleetConfig({ hosts: 3, servicesPerHost: 2, maxAttempts: 2 });

before(async () => {
  nats = await startNatsCluster(1, { config: "max_payload: 65536" });
});
after(async () => {
  for (const c of opened) await c.close().catch(() => undefined);
  await nats.stop();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), "lookout-replica-"));
  dirs.push(d);
  return d;
}

let origins = 0;
async function replica(
  dataDir: string,
  o: { budgetMs?: number; on?: NatsCluster; snapshotEveryEvents?: number } = {},
): Promise<Core> {
  const options: CommandStreamOptions = {
    servers: (o.on ?? nats).urls,
    name: "test",
    replicas: 1,
    trimMargin: 5,
    ...(o.budgetMs === undefined ? {} : { publishBudgetMs: o.budgetMs }),
  };
  const core = await Core.open({
    dataDir,
    config,
    clock: new FakeClock(Date.UTC(2026, 10, 1)),
    ...(o.snapshotEveryEvents === undefined
      ? {}
      : { writer: { snapshotEveryEvents: o.snapshotEveryEvents } }),
    replication: {
      workerUrl: new URL("./replicated-writer-worker.js", import.meta.url),
      origin: `test-${++origins}`,
      options,
    },
  });
  opened.push(core);
  return core;
}

function result(host: string, service: string | undefined, exitStatus: number, at: number): CommandInput {
  return {
    type: "ProcessCheckResult",
    result: {
      host,
      ...(service === undefined ? {} : { service }),
      exitStatus: exitStatus as ExitStatus,
      output: `status ${exitStatus} ${"x".repeat(40)}`,
      longOutput: "",
      perfdata: [],
      checkedAt: at,
      durationMs: 0,
      source: "passive",
    },
  };
}

async function until(what: string, f: () => boolean, ms = 15_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!f()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Every object's status and the whole history, as a replica serves them. */
function served(core: Core): unknown {
  const { index, projection } = core.view;
  return {
    statuses: listStatus(index, projection, { pageSize: 1000 }).items.map((i) => [i.entry.key, i.status]),
    history: listHistory(projection, { pageSize: 1000 }).items,
  };
}

/** The log's last group as JetStream has it now (a replica's own view is up to a second old). */
async function lastGroup(on: NatsCluster): Promise<number> {
  const nc = await connect({ servers: on.urls });
  try {
    const jsm = await jetstreamManager(nc);
    const m = await jsm.streams.getMessage(COMMANDS_STREAM, { last_by_subj: COMMANDS_SUBJECT });
    return m?.seq ?? 0;
  } finally {
    await nc.close();
  }
}

/** Waits until both replicas applied the log's last group, then compares what they serve. */
async function converged(a: Core, b: Core, on: NatsCluster = nats): Promise<void> {
  const last = await lastGroup(on);
  await until(
    "both replicas at the log's end",
    () =>
      a.replica !== undefined &&
      b.replica !== undefined &&
      a.replica.applied >= last &&
      b.replica.applied >= last &&
      a.queueDepth === 0 &&
      b.queueDepth === 0,
  );
  await a.flush();
  await b.flush();
  assert.deepEqual(served(b), served(a));
}

describe("replicated cores", () => {
  let a: Core;
  let b: Core;
  let dirA = "";
  let dirB = "";

  it("apply writes submitted to either in one order, the config first", async () => {
    dirA = tempDir();
    a = await replica(dirA);
    dirB = tempDir();
    b = await replica(dirB);
    a.setTicking(true);
    const sources: string[] = [];
    b.onConfigSource((digest, source) => sources.push(`${digest}:${source}`));
    await a.applyConfig(config, "cfg-1", "hosts: {} // the source");
    const at = Date.UTC(2026, 10, 1);
    for (let i = 0; i < 5; i++) {
      await Promise.all([
        a.submit([result("host-00000", "svc-000", i % 3, at + i)]),
        b.submit([result("host-00001", undefined, i % 2 === 0 ? 2 : 0, at + i)]),
      ]);
    }
    await converged(a, b);
    assert.deepEqual(sources, ["cfg-1:hosts: {} // the source"]);
    const status = listStatus(b.view.index, b.view.projection, {
      host: "host-00001",
      pageSize: 10,
    }).items.find((i) => i.entry.key === "host-00001")?.status;
    assert.equal(status?.output.startsWith("status 2"), true, "b applied b's last write");
  });

  it("takes a batch larger than a NATS message through parts", async () => {
    const at = Date.UTC(2026, 10, 2);
    const batch: CommandInput[] = [];
    for (let i = 0; i < 1_500; i++) batch.push(result("host-00002", "svc-001", i % 4, at + i));
    await b.submit(batch);
    await converged(a, b);
    for (const core of [a, b]) {
      const s = listStatus(core.view.index, core.view.projection, {
        host: "host-00002",
        pageSize: 10,
      }).items.find((i) => i.entry.key === "host-00002!svc-001")?.status;
      assert.equal(s?.output.startsWith("status 3"), true, "the batch's last result applied");
      assert.equal(s?.lastCheck, at + 1_499);
    }
  });

  it("resumes a restarted replica from its position, applying nothing twice", async () => {
    await b.close();
    const at = Date.UTC(2026, 10, 3);
    await a.submit([result("host-00000", undefined, 2, at), result("host-00000", undefined, 2, at + 1)]);
    b = await replica(dirB);
    await converged(a, b);
  });

  it("indexes the history entries in every server's log, as the origin's", async () => {
    const indexed = (dir: string): unknown[] => {
      const db = new Database(join(dir, "lookout.db"), { readonly: true });
      try {
        return db.prepare("SELECT seq, key, kind FROM history ORDER BY seq").all();
      } finally {
        db.close();
      }
    };
    const h = a.view.projection.history();
    const feed = Array.from({ length: h.size }, (_, i) => h.at(i)).map((x) => ({
      seq: x.seq,
      key: x.key,
      kind: x.kind,
    }));
    assert.ok(feed.length > 1000);
    assert.deepEqual(indexed(dirA), feed);
    assert.deepEqual(indexed(dirB), feed);
    const page = { limit: 1000, oldestFirst: true, budgetMs: 60_000 };
    assert.deepEqual(await b.historyFromLog(page), await a.historyFromLog(page));
  });

  it("answers unavailable, not a hang, when the log has no quorum, and writes again once it has", async () => {
    const c = await replica(tempDir(), { budgetMs: 1_500 });
    await until(
      "c follows the log",
      () => c.replica?.connected === true && c.replica.applied === c.replica.last,
    );
    const node = nats.nodes[0];
    assert.ok(node !== undefined);
    await node.kill();
    try {
      const started = Date.now();
      await assert.rejects(
        c.submit([result("host-00000", "svc-000", 1, Date.UTC(2026, 10, 4))]),
        (e: unknown) => e instanceof StoreError && e.reason === "unavailable",
      );
      assert.ok(Date.now() - started < 15_000, "answered within its budget");
      // Reads keep serving what is applied.
      assert.equal(listStatus(c.view.index, c.view.projection, { pageSize: 100 }).totalSize, 9);
    } finally {
      await node.restart();
    }
    let ok = false;
    for (let i = 0; i < 40 && !ok; i++) {
      ok = await c.submit([result("host-00000", "svc-000", 1, Date.UTC(2026, 10, 4, 1))]).then(
        () => true,
        () => false,
      );
    }
    assert.ok(ok, "a write succeeded after the quorum came back");
    await converged(a, c);
    await converged(a, b);
  });

  it("stops applying at a group it cannot read, and never skips it", async () => {
    const nc = await connect({ servers: nats.urls });
    let garbage = 0;
    try {
      const ack = await nc.request(COMMANDS_SUBJECT, new TextEncoder().encode("not a command group"), {
        timeout: 5_000,
      });
      garbage = (ack.json() as { seq: number }).seq;
    } finally {
      await nc.close();
    }
    assert.ok(garbage > 0);
    await a.submit([result("host-00001", "svc-001", 2, Date.UTC(2026, 10, 5))]).catch(() => undefined);
    await until("b reports the stop", () => b.replica?.error !== undefined).catch((e: unknown) => {
      throw new Error(`${String(e)}: ${JSON.stringify(b.replica)} ${JSON.stringify(a.replica)}`);
    });
    assert.match(b.replica?.error ?? "", /not a Lookout command group/);
    await new Promise((r) => setTimeout(r, 300));
    assert.equal(b.replica?.applied, garbage - 1, "nothing from the unreadable group on was applied");
    // Reads still serve.
    assert.equal(listStatus(b.view.index, b.view.projection, { pageSize: 100 }).totalSize, 9);
  });

  it("refuses a data directory used without replication", async () => {
    const dir = tempDir();
    const local = await Core.open({ dataDir: dir, config, clock: new FakeClock() });
    await local.close();
    await assert.rejects(replica(dir), /ran without replication/);
  });
});

describe("a replicated log's retention", () => {
  it("follows the leader's snapshots, and a server that joins starts from the newest", async () => {
    const own = await startNatsCluster(1);
    try {
      const leader = await replica(tempDir(), { on: own, snapshotEveryEvents: 20 });
      leader.setTicking(true);
      await leader.applyConfig(config, "cfg-1");
      const at = Date.UTC(2026, 10, 1);
      for (let i = 0; i < 120; i++) {
        await leader.submit([result(`host-0000${i % 3}`, "svc-000", i % 3, at + i)]);
      }
      const nc = await connect({ servers: own.urls });
      const jsm = await jetstreamManager(nc);
      let first = 1;
      for (let i = 0; i < 100 && first <= 10; i++) {
        first = (await jsm.streams.info(COMMANDS_STREAM)).state.first_seq;
        if (first <= 10) {
          await leader.submit([result("host-00000", "svc-001", i % 2, at + 1_000 + i)]);
        }
      }
      await nc.close();
      assert.ok(first > 10, `the log was trimmed (its first position ${first})`);
      const joinedDir = tempDir();
      const joined = await replica(joinedDir, { on: own });
      await leader.submit([result("host-00001", "svc-001", 2, at + 5_000)]);
      await converged(leader, joined, own);
      await joined.close();
      const db = new Database(join(joinedDir, "lookout.db"));
      const base = db.prepare("SELECT value FROM meta WHERE key = 'events_base'").get() as { value: number };
      db.close();
      assert.ok(base.value > 0, "it started from a snapshot, not from the log's beginning");
    } finally {
      await own.stop();
    }
  });
});
