import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { Kvm } from "@nats-io/kv";
import { connect, type NatsConnection } from "@nats-io/transport-node";
import { ConsumerHost, type ConsumerState, openConsumerState } from "../consumers/index.js";
import { Core } from "../core/core.js";
import { fleetConfig } from "../core/fleet-config.js";
import type { CommandInput } from "../core/validate.js";
import { systemClock } from "../model/clock.js";
import { type Logger, silentLogger } from "../model/logger.js";
import type { LoggedEvent } from "../store/index.js";
import { type NatsCluster, startNatsCluster } from "../testing/peers/index.js";
import {
  consumerKvKey,
  createReplicatedConsumerState,
  parseConsumerKvEntry,
  type ReplicatedConsumerState,
} from "./consumer-state-replica.js";
import { CONSUMERS_BUCKET } from "./names.js";

const dirs: string[] = [];
const conns: NatsConnection[] = [];
let nats: NatsCluster;

before(async () => {
  nats = await startNatsCluster(1);
});

after(async () => {
  for (const c of conns) await c.close().catch(() => {});
  await nats?.stop();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function localState(): ConsumerState {
  const d = mkdtempSync(join(tmpdir(), "lookout-consumer-replica-"));
  dirs.push(d);
  return openConsumerState(d);
}

async function natsConn(): Promise<NatsConnection> {
  const nc = await connect({ servers: nats.urls, maxReconnectAttempts: -1, reconnectTimeWait: 100 });
  conns.push(nc);
  return nc;
}

/** A logger that keeps its warnings. */
function warnings(): Logger & { warned: string[] } {
  const warned: string[] = [];
  const l: Logger & { warned: string[] } = {
    warned,
    debug() {},
    info() {},
    warn(msg, f) {
      if (process.env.DEBUG_REPLICA) console.error(msg, f);
      warned.push(msg);
    },
    error(msg) {
      warned.push(msg);
    },
    child: () => l,
  };
  return l;
}

async function replica(
  o: {
    local?: ConsumerState;
    mirroring?: () => boolean;
    maxPending?: number;
    logger?: Logger;
    attach?: boolean;
  } = {},
): Promise<ReplicatedConsumerState> {
  const r = createReplicatedConsumerState({
    local: o.local ?? localState(),
    logger: o.logger ?? silentLogger,
    timeoutMs: 1_000,
    ...(o.mirroring === undefined ? {} : { mirroring: o.mirroring }),
    ...(o.maxPending === undefined ? {} : { maxPending: o.maxPending }),
  });
  if (o.attach !== false) r.attach(await natsConn());
  return r;
}

/** A consumer's whole record: position and entries. */
function record(
  s: ConsumerState,
  consumer: string,
): { position: number | undefined; entries: Record<string, string> } {
  const entries: Record<string, string> = {};
  for (const e of s.list(consumer)) entries[e.key] = e.value;
  return { position: s.position(consumer), entries };
}

async function emptyBucket(): Promise<void> {
  const nc = await natsConn();
  try {
    await new Kvm(nc).open(CONSUMERS_BUCKET).then((kv) => kv.destroy());
  } catch {
    // Not there yet.
  }
}

/** What a brand-new leader with an empty data directory would take from the bucket. */
async function pulledFresh(): Promise<ReplicatedConsumerState> {
  const r = await replica({ mirroring: () => false });
  await r.pull();
  return r;
}

async function until(cond: () => boolean, ms = 20_000): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error("timed out waiting");
    await new Promise((r) => setTimeout(r, 10));
  }
}

function passiveResult(i: number): CommandInput {
  return {
    type: "ProcessCheckResult",
    result: {
      host: "host-00000",
      service: "svc-000",
      exitStatus: i % 2 === 0 ? 2 : 0,
      output: `result ${i}`,
      longOutput: "",
      perfdata: [],
      checkedAt: 1_700_000_000_000 + i,
      durationMs: 0,
      source: "passive",
    },
  };
}

const long = "x".repeat(3_000);
const names = ["notifier", "sink:my sink", "sink:ünïcødé/.*>", "", `sink:${long}`];
const keys = ["send:42", "obj:web-1!http check", "a.b.c", "", "=p", long];

describe("consumer state key encoding", () => {
  it("round-trips free-text names into valid KV keys, and refuses keys that are not its own", () => {
    for (const consumer of names) {
      for (const key of [...keys, undefined]) {
        const { kvKey, wrapped } = consumerKvKey(consumer, key);
        assert.match(kvKey, /^[-/_=.a-zA-Z0-9]+$/, `${consumer}/${key}`);
        assert.ok(!kvKey.startsWith(".") && !kvKey.endsWith(".") && !kvKey.includes(".."));
        assert.ok(kvKey.length < 1_400, "long names are hashed");
        const stored = wrapped
          ? JSON.stringify(key === undefined ? { c: consumer, v: "v" } : { c: consumer, k: key, v: "v" })
          : "v";
        assert.deepEqual(parseConsumerKvEntry(kvKey, stored), { consumer, key, value: "v" });
      }
    }
    for (const k of ["leader", "p", "cAA.x", "cAA.p.q", "CAA.kAA"]) {
      assert.equal(parseConsumerKvEntry(k, k === "CAA.kAA" ? "not json" : "1"), undefined, k);
    }
  });
});

describe("ReplicatedConsumerState", () => {
  it("mirrors puts, deletes and forgets; an empty new leader pulls the same state", async () => {
    await emptyBucket();
    const a = await replica();
    for (const [i, consumer] of names.entries()) {
      a.put(
        consumer,
        keys.map((key, j) => ({ key, value: `${consumer}|${key}|${i * 10 + j}` })),
        100 + i,
      );
    }
    a.put("notifier", [{ key: "send:42", value: null }], 200);
    a.put("notifier", [{ key: "obj:web-1!http check", value: "newer" }]);
    a.put(`sink:${long}`, [{ key: long, value: null }], 300);
    a.put("sink:gone", [{ key: "segment", value: "1" }], 50);
    a.forget("sink:gone");
    assert.equal(await a.flush(30_000), true);

    const b = await pulledFresh();
    for (const consumer of [...names, "sink:gone"]) {
      assert.deepEqual(record(b, consumer), record(a, consumer), consumer);
    }
    assert.equal(b.get("notifier", "send:42"), undefined, "a deleted entry stays deleted");
    assert.equal(b.position("notifier"), 200);
    assert.equal(b.position("sink:gone"), undefined, "a forgotten consumer stays forgotten");
    assert.deepEqual(
      b.consumers().map((c) => c.name),
      a.consumers().map((c) => c.name),
    );
    a.close();
    b.close();
  });

  it("pulls consumer by consumer: the higher position wins with its entries, never a mix, never backwards", async () => {
    await emptyBucket();
    type Rec = { position?: number; entries: Record<string, string> };
    const cases: {
      name: string;
      bucket: Rec | "forgotten" | undefined;
      local: Rec | undefined;
      /** What the new leader holds after the pull, and what the bucket holds once it flushed. */
      want: Rec | undefined;
    }[] = [
      {
        name: "bucket ahead",
        bucket: { position: 10, entries: { a: "2", b: "3" } },
        local: { position: 5, entries: { a: "1", x: "9" } },
        want: { position: 10, entries: { a: "2", b: "3" } },
      },
      {
        name: "local ahead (its own writes never reached the bucket)",
        bucket: { position: 10, entries: { a: "2", b: "3" } },
        local: { position: 12, entries: { a: "5" } },
        want: { position: 12, entries: { a: "5" } },
      },
      {
        name: "a tie: the bucket's record",
        bucket: { position: 10, entries: { a: "2" } },
        local: { position: 10, entries: { a: "9", c: "1" } },
        want: { position: 10, entries: { a: "2" } },
      },
      {
        name: "unknown to the bucket",
        bucket: undefined,
        local: { position: 7, entries: { z: "1" } },
        want: { position: 7, entries: { z: "1" } },
      },
      {
        name: "unknown here",
        bucket: { position: 3, entries: { q: "1" } },
        local: undefined,
        want: { position: 3, entries: { q: "1" } },
      },
      {
        name: "forgotten by the leader",
        bucket: "forgotten",
        local: { position: 70, entries: { s: "1" } },
        want: undefined,
      },
      {
        name: "entries only (no position anywhere)",
        bucket: { entries: { results: "r2" } },
        local: { entries: { results: "r1", stale: "1" } },
        want: { entries: { results: "r2" } },
      },
    ];
    const old = await replica();
    const local = localState();
    for (const c of cases) {
      if (c.bucket === "forgotten") {
        old.put(c.name, [{ key: "s", value: "0" }], 60);
        old.forget(c.name);
      } else if (c.bucket !== undefined) {
        old.put(
          c.name,
          Object.entries(c.bucket.entries).map(([key, value]) => ({ key, value })),
          c.bucket.position,
        );
      }
      if (c.local !== undefined) {
        local.put(
          c.name,
          Object.entries(c.local.entries).map(([key, value]) => ({ key, value })),
          c.local.position,
        );
      }
    }
    assert.equal(await old.flush(30_000), true);
    let active = false;
    const leader = await replica({ local, mirroring: () => active });
    await leader.pull();
    active = true;
    assert.equal(await leader.flush(30_000), true, "what the new leader holds over the bucket is copied");
    const fresh = await pulledFresh();
    const empty = { position: undefined, entries: {} };
    for (const c of cases) {
      const want = c.want === undefined ? empty : { position: c.want.position, entries: c.want.entries };
      assert.deepEqual(record(leader, c.name), want, `${c.name}: the new leader`);
      assert.deepEqual(record(fresh, c.name), want, `${c.name}: the bucket afterwards`);
    }
    for (const r of [old, leader, fresh]) r.close();
  });

  it("keeps writes local while it is not mirroring (a server that does not lead)", async () => {
    await emptyBucket();
    let leading = false;
    const r = await replica({ mirroring: () => leading });
    r.put("notifier", [{ key: "obj:a", value: "follower" }], 5);
    r.forget("sink:x");
    assert.equal(r.pending, 0);
    assert.equal(r.get("notifier", "obj:a"), "follower", "local as always");
    leading = true;
    r.put("sink:y", [], 9);
    assert.equal(await r.flush(30_000), true);
    const b = await pulledFresh();
    assert.equal(b.position("notifier"), undefined, "the follower's write did not reach the bucket");
    assert.equal(b.position("sink:y"), 9);
    r.close();
    b.close();
  });

  it("queues writes made before NATS is attached, and pull refuses without NATS", async () => {
    await emptyBucket();
    const r = await replica({ attach: false });
    for (let i = 1; i <= 5; i++) r.put("sink:early", [{ key: "k", value: String(i) }], i);
    assert.equal(r.pending, 2, "one write per key: the latest");
    await assert.rejects(r.pull(), /not attached/);
    r.attach(await natsConn());
    assert.equal(await r.flush(30_000), true);
    const b = await pulledFresh();
    assert.deepEqual(record(b, "sink:early"), { position: 5, entries: { k: "5" } });
    r.close();
    b.close();
  });

  it("neither throws nor blocks while NATS is down, catches up after, and a full queue becomes one copy", async () => {
    await emptyBucket();
    const logger = warnings();
    const r = await replica({ logger, maxPending: 20 });
    r.put("notifier", [{ key: "obj:a", value: "0" }], 1);
    assert.equal(await r.flush(30_000), true);
    const puller = await replica({ mirroring: () => false });
    const node = nats.nodes[0];
    assert.ok(node !== undefined);
    await node.kill();
    try {
      for (let i = 0; i < 10; i++) r.put("notifier", [{ key: "obj:a", value: String(i) }], 10 + i);
      assert.ok(r.pending > 0, "queued");
      for (let i = 0; i < 100; i++) r.put("sink:many", [{ key: `seg:${i}`, value: String(i) }], i);
      r.put("notifier", [{ key: "obj:gone", value: "1" }]);
      r.put("notifier", [{ key: "obj:gone", value: null }]);
      assert.ok(r.pending <= 20, `bounded: ${r.pending}`);
      assert.equal(await r.flush(1_500), false, "nothing reaches a dead NATS");
      await assert.rejects(puller.pull(), "pull refuses when NATS does not answer");
    } finally {
      await node.restart();
    }
    assert.equal(await r.flush(60_000), true, "caught up");
    assert.ok(logger.warned.some((m) => /cannot mirror/.test(m)));
    assert.ok(logger.warned.some((m) => /queue full/.test(m)));
    const b = await pulledFresh();
    assert.deepEqual(record(b, "notifier"), { position: 19, entries: { "obj:a": "9" } });
    assert.equal(b.position("sink:many"), 99);
    assert.equal(b.list("sink:many").length, 100);
    for (const x of [r, b, puller]) x.close();
  });
});

describe("leader-only consumers with replicated positions (ConsumerHost + ReplicatedConsumerState)", () => {
  it("a new leader resumes where the old one's record stops: nothing read while it followed, nothing repeated, nothing skipped", async () => {
    await emptyBucket();
    const config = fleetConfig({ hosts: 1, servicesPerHost: 1, maxAttempts: 1 });
    const server = async (leading: boolean) => {
      const dataDir = mkdtempSync(join(tmpdir(), "lookout-consumer-replica-server-"));
      dirs.push(dataDir);
      const core = await Core.open({ dataDir, config, clock: systemClock });
      let host: ConsumerHost | undefined;
      const state = createReplicatedConsumerState({
        local: openConsumerState(dataDir),
        logger: silentLogger,
        timeoutMs: 1_000,
        mirroring: () => host?.active ?? false,
      });
      state.attach(await natsConn());
      host = ConsumerHost.open({ dataDir, clock: systemClock, logger: silentLogger, state, active: leading });
      const h = host;
      const off = core.onCommitted(() => h.notify());
      const seen: number[] = [];
      h.add(
        {
          name: "sink:my sink",
          async handle(batch) {
            for (const e of batch) seen.push(e.seq);
            return (batch[batch.length - 1] as LoggedEvent).seq;
          },
        },
        { start: { kind: "oldest" }, idleMs: 20 },
      );
      return {
        core,
        host: h,
        state,
        seen,
        async close() {
          off();
          await h.stop();
          await core.close();
        },
      };
    };
    const submit = async (cores: Core[], from: number, n: number) => {
      for (let i = from; i < from + n; i++) {
        for (const core of cores) await core.submit([passiveResult(i)]);
      }
      for (const core of cores) await core.flush();
    };
    const a = await server(true);
    const b = await server(false);
    try {
      await submit([a.core, b.core], 0, 3);
      await until(() => a.host.status("sink:my sink")?.lagEvents === 0);
      const handedOver = a.host.status("sink:my sink")?.position ?? 0;
      assert.ok(handedOver > 0);
      assert.equal(await a.state.flush(30_000), true);
      // The old leader loses the lease; events keep coming (the stream goes on).
      await a.host.setActive(false);
      await submit([a.core, b.core], 3, 2);
      assert.deepEqual(b.seen, [], "a follower reads nothing");
      assert.equal(b.state.position("sink:my sink"), undefined, "and stores no position");
      // What the lead wires on leadership won.
      await b.state.pull();
      await b.host.setActive(true);
      await until(() => b.host.status("sink:my sink")?.lagEvents === 0 && b.seen.length > 0);
      assert.equal(b.seen[0], handedOver + 1, "the new leader starts right after the old one's record");
      assert.equal(b.seen[b.seen.length - 1], b.host.lastSeq());
      assert.equal(await b.state.flush(30_000), true);
      const fresh = await pulledFresh();
      assert.equal(
        fresh.position("sink:my sink"),
        b.host.lastSeq(),
        "the new leader's positions are mirrored",
      );
      fresh.close();
    } finally {
      await a.close();
      await b.close();
    }
  });
});
