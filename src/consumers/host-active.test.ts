import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { Core } from "../core/core.js";
import { fleetConfig } from "../core/fleet-config.js";
import type { CommandInput } from "../core/validate.js";
import { systemClock } from "../model/clock.js";
import { silentLogger } from "../model/logger.js";
import type { LoggedEvent } from "../store/index.js";
import type { LogConsumer } from "./consumer.js";
import { ConsumerHost } from "./host.js";

const dirs: string[] = [];
after(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

const config = fleetConfig({ hosts: 1, servicesPerHost: 1, maxAttempts: 1 });

function result(i: number): CommandInput {
  return {
    type: "ProcessCheckResult",
    result: {
      host: "host-00000",
      service: "svc-000",
      exitStatus: i % 2 === 0 ? 2 : 0,
      output: `result ${i}`,
      longOutput: "",
      perfdata: [],
      checkedAt: Date.now(),
      durationMs: 0,
      source: "passive",
    },
  };
}

/** A consumer that records every batch; `gate`, when set, holds handle until released. */
function recorder(name: string): LogConsumer & {
  seen: LoggedEvent[];
  calls: number;
  gate: Promise<void> | undefined;
  inside: boolean;
  isActive: boolean;
} {
  const c = {
    name,
    seen: [] as LoggedEvent[],
    calls: 0,
    gate: undefined as Promise<void> | undefined,
    inside: false,
    isActive: true,
    active: () => c.isActive,
    async handle(batch: readonly LoggedEvent[]): Promise<number> {
      c.calls++;
      c.inside = true;
      await c.gate;
      c.inside = false;
      c.seen.push(...batch);
      return (batch[batch.length - 1] as LoggedEvent).seq;
    },
  };
  return c;
}

async function until(cond: () => boolean, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error("timed out waiting");
    await new Promise((r) => setTimeout(r, 10));
  }
}

const settle = (ms = 100) => new Promise((r) => setTimeout(r, ms));

async function open(active?: boolean) {
  const dataDir = mkdtempSync(join(tmpdir(), "lookout-consumers-active-"));
  dirs.push(dataDir);
  const core = await Core.open({ dataDir, config, clock: systemClock });
  const trims: number[] = [];
  const host = ConsumerHost.open({
    dataDir,
    clock: systemClock,
    logger: silentLogger,
    retention: {
      retentionMs: 1,
      everyMs: 3_600_000,
      trim: (f, b) => {
        trims.push(f);
        return core.trimEvents(f, b);
      },
    },
    ...(active === undefined ? {} : { active }),
  });
  const off = core.onCommitted(() => host.notify());
  const submit = async (from: number, n: number) => {
    for (let i = from; i < from + n; i++) await core.submit([result(i)]);
    await core.flush();
  };
  return {
    core,
    host,
    trims,
    submit,
    async close() {
      off();
      await host.stop();
      await core.close();
    },
  };
}

describe("ConsumerHost.setActive (leader-only consumers)", () => {
  it("is active by default and a call that changes nothing is a no-op", async () => {
    const s = await open();
    try {
      assert.equal(s.host.active, true);
      await s.host.setActive(true);
      const c = recorder("c");
      s.host.add(c, { start: { kind: "oldest" }, idleMs: 20 });
      await s.submit(0, 2);
      await until(() => s.host.status("c")?.lagEvents === 0 && c.seen.length > 0);
    } finally {
      await s.close();
    }
  });

  // Paused: no read, no handle, no position moved (neither a consumer's own nor an inactive one's
  // that otherwise follows the end), no trimming; resumed: everything after the held position.
  for (const consumerActive of [true, false]) {
    it(`holds the position of ${consumerActive ? "a" : "an inactive"} consumer and trims nothing while paused`, async () => {
      const s = await open();
      try {
        const c = recorder("c");
        c.isActive = consumerActive;
        s.host.add(c, { start: { kind: "oldest" }, idleMs: 20 });
        await s.submit(0, 2);
        const end = s.host.lastSeq();
        await until(() => s.host.status("c")?.position === end);
        const calls = c.calls;
        await s.host.setActive(false);
        assert.equal(s.host.active, false);
        await s.submit(2, 3);
        await settle(150);
        assert.equal(c.calls, calls, "no batch offered while paused");
        assert.equal(s.host.status("c")?.position, end, "the position is held");
        assert.equal(s.host.state.position("c"), end, "and so is the stored one");
        assert.equal(await s.host.trimNow(), 0, "no trimming while paused");
        assert.deepEqual(s.trims, []);
        c.isActive = true;
        await s.host.setActive(true);
        await until(() => s.host.status("c")?.lagEvents === 0 && c.calls > calls);
        const after = c.seen.filter((e) => e.seq > end).map((e) => e.seq);
        assert.equal(after[0], end + 1, "resumed right after the held position");
        assert.ok((await s.host.trimNow()) >= 0);
        assert.equal(s.trims.length, 1, "trimming again once active");
      } finally {
        await s.close();
      }
    });
  }

  it("waits for the handle in flight before it resolves, and stores its position", async () => {
    const s = await open();
    try {
      const c = recorder("c");
      let release = (): void => {};
      c.gate = new Promise((r) => {
        release = r;
      });
      s.host.add(c, { start: { kind: "oldest" }, idleMs: 20 });
      await s.submit(0, 1);
      await until(() => c.inside);
      let paused = false;
      const p = s.host.setActive(false).then(() => {
        paused = true;
      });
      await settle(100);
      assert.equal(paused, false, "pausing waits for handle");
      release();
      await p;
      assert.equal(c.inside, false);
      const end = c.seen[c.seen.length - 1]?.seq;
      assert.equal(s.host.state.position("c"), end, "the finished batch's position is stored");
      await s.submit(1, 1);
      await settle(100);
      assert.equal(c.calls, 1);
    } finally {
      await s.close();
    }
  });

  it("re-reads positions from the state on resume (a new leader's pull may have moved them)", async () => {
    const s = await open();
    try {
      const c = recorder("c");
      s.host.add(c, { start: { kind: "oldest" }, idleMs: 20 });
      await s.submit(0, 2);
      await until(() => s.host.status("c")?.lagEvents === 0);
      await s.host.setActive(false);
      await s.submit(2, 4);
      const mid = s.host.lastSeq() - 2;
      // What a pull of the replicated positions does while paused.
      s.host.state.put("c", [], mid);
      const calls = c.calls;
      await s.host.setActive(true);
      await until(() => s.host.status("c")?.lagEvents === 0 && c.calls > calls);
      const seen = c.seen.slice(-1)[0]?.seq;
      assert.equal(seen, s.host.lastSeq());
      const resumedFrom = c.seen.find(
        (e, i) => i > 0 && e.seq > mid && (c.seen[i - 1] as LoggedEvent).seq <= mid,
      );
      assert.equal(resumedFrom?.seq, mid + 1, "first read after the pulled position");
      assert.ok(!c.seen.some((e, i) => i > 0 && e.seq <= (c.seen[i - 1] as LoggedEvent).seq && e.seq <= mid));
    } finally {
      await s.close();
    }
  });

  it("opened inactive: adds consumers paused, stores nothing, and starts them where `start` says on activation", async () => {
    const s = await open(false);
    try {
      await s.submit(0, 2);
      const c = recorder("c");
      const e = recorder("e");
      s.host.add(c, { start: { kind: "oldest" }, idleMs: 20 });
      s.host.add(e, { start: { kind: "end" }, idleMs: 20 });
      await s.submit(2, 2);
      await settle(100);
      assert.equal(c.calls + e.calls, 0, "nothing read before activation");
      assert.equal(
        s.host.state.position("c"),
        undefined,
        "no position stored by a server that does not lead",
      );
      assert.equal(s.host.state.position("e"), undefined);
      const endAtActivation = s.host.lastSeq();
      await s.host.setActive(true);
      await until(() => s.host.status("c")?.lagEvents === 0 && c.calls > 0);
      assert.equal(c.seen[0]?.seq, 1, "oldest: from the first event");
      assert.equal(s.host.state.position("e"), endAtActivation, "end: the end at activation, stored");
      await s.submit(4, 1);
      await until(() => e.calls > 0);
      assert.ok(e.seen.every((x) => x.seq > endAtActivation));
    } finally {
      await s.close();
    }
  });

  it("aborts the signal of a handle that retries until aborted (a sink whose backend is down), and calls the consumer's pause and resume", async () => {
    const s = await open();
    try {
      const hooks: string[] = [];
      let attempts = 0;
      const c: LogConsumer = {
        name: "sink:down",
        async handle(batch, signal) {
          // Retries a dead backend until aborted, as the sink runner does.
          while (!signal.aborted) {
            attempts++;
            await new Promise((r) => setTimeout(r, 10));
          }
          return (batch[0] as LoggedEvent).seq - 1;
        },
        async pause() {
          hooks.push("pause");
        },
        resume() {
          hooks.push("resume");
        },
      };
      s.host.add(c, { start: { kind: "oldest" }, idleMs: 20 });
      await s.submit(0, 1);
      await until(() => attempts > 0);
      await s.host.setActive(false);
      assert.deepEqual(hooks, ["pause"]);
      const stopped = attempts;
      await settle(100);
      assert.equal(attempts, stopped, "the aborted handle returned, and none follows while paused");
      assert.equal(s.host.status("sink:down")?.failures, 0, "a pause is not a failure (no backoff)");
      await s.host.setActive(true);
      assert.deepEqual(hooks, ["pause", "resume"]);
      await until(() => attempts > stopped);
    } finally {
      await s.close();
    }
  });

  it("stops while paused", async () => {
    const s = await open();
    const c = recorder("c");
    s.host.add(c, { start: { kind: "oldest" }, idleMs: 20 });
    await s.host.setActive(false);
    const calls = c.calls;
    await s.close();
    await s.host.setActive(true);
    assert.equal(c.calls, calls);
  });
});
