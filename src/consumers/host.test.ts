import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { Core } from "../core/core.js";
import { fleetConfig } from "../core/fleet-config.js";
import type { CommandInput } from "../core/validate.js";
import { systemClock } from "../model/clock.js";
import type { LookoutEvent } from "../model/events.js";
import { silentLogger } from "../model/logger.js";
import type { ExitStatus } from "../model/state.js";
import { RejectedError } from "../store/errors.js";
import { type LoggedEvent, openEventLogReader } from "../store/index.js";
import { FakeClock } from "../testing/fake-clock.js";
import type { LogConsumer } from "./consumer.js";
import { ConsumerHost } from "./host.js";

const dirs: string[] = [];
after(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), "lookout-consumers-"));
  dirs.push(d);
  return d;
}

const config = fleetConfig({ hosts: 2, servicesPerHost: 2, maxAttempts: 1 });

function result(i: number, exitStatus: number): CommandInput {
  return {
    type: "ProcessCheckResult",
    result: {
      host: "host-00000",
      service: "svc-000",
      exitStatus: exitStatus as ExitStatus,
      output: `result ${i}`,
      longOutput: "",
      perfdata: [],
      checkedAt: Date.now(),
      durationMs: 0,
      source: "passive",
    },
  };
}

/** A consumer that records what it finished; `plan` decides how far each call gets. */
function recorder(
  name: string,
  plan?: (batch: readonly LoggedEvent[], call: number) => number,
): LogConsumer & {
  seen: LoggedEvent[];
  calls: number;
} {
  const c = {
    name,
    seen: [] as LoggedEvent[],
    calls: 0,
    async handle(batch: readonly LoggedEvent[]): Promise<number> {
      c.calls++;
      const done = plan === undefined ? (batch[batch.length - 1] as LoggedEvent).seq : plan(batch, c.calls);
      for (const e of batch) if (e.seq <= done) c.seen.push(e);
      return done;
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

async function open(dataDir: string): Promise<{ core: Core; host: ConsumerHost; close(): Promise<void> }> {
  const core = await Core.open({ dataDir, config, clock: systemClock });
  const host = ConsumerHost.open({
    dataDir,
    clock: systemClock,
    logger: silentLogger,
    retention: { retentionMs: 60_000, everyMs: 3_600_000, trim: (f, b) => core.trimEvents(f, b) },
  });
  const off = core.onCommitted(() => host.notify());
  return {
    core,
    host,
    async close() {
      off();
      await host.stop();
      await core.close();
    },
  };
}

describe("ConsumerHost", () => {
  it("offers every committed event in order, stores the position, and resumes after it on restart", async () => {
    const dir = tempDir();
    let s = await open(dir);
    const a = recorder("a");
    s.host.add(a, { start: { kind: "oldest" }, maxBatch: 3, idleMs: 20 });
    for (let i = 0; i < 5; i++) await s.core.submit([result(i, i % 3)]);
    await s.core.flush();
    const last = () => s.host.status("a")?.lastSeq ?? -1;
    await until(() => a.seen.length > 0 && a.seen[a.seen.length - 1]?.seq === last());
    const seqs = a.seen.map((e) => e.seq);
    assert.deepEqual(
      seqs,
      [...seqs].sort((x, y) => x - y),
      "in log order",
    );
    assert.equal(new Set(seqs).size, seqs.length, "each once");
    assert.equal(seqs[0], 1, "oldest: from the first event");
    assert.equal(s.host.status("a")?.lagEvents, 0);
    const before = seqs.length;
    await s.close();

    s = await open(dir);
    const a2 = recorder("a");
    s.host.add(a2, { start: { kind: "oldest" }, idleMs: 20 });
    await s.core.submit([result(9, 2)]);
    await s.core.flush();
    await until(() => a2.seen.some((e) => e.event.type === "CheckResultProcessed"));
    assert.ok(a2.seen.length > 0);
    assert.ok((a2.seen[0] as LoggedEvent).seq > (a.seen[before - 1] as LoggedEvent).seq, "nothing repeated");
    await s.close();
  });

  it("starts a new consumer at the end, and offers again what a partial batch left", async () => {
    const dir = tempDir();
    const s = await open(dir);
    try {
      await s.core.submit([result(0, 0), result(1, 2)]);
      await s.core.flush();
      const end = s.host.status("nobody")?.lastSeq;
      assert.equal(end, undefined);
      // Finishes one event per call: the rest of each batch is offered again.
      const p = recorder("p", (batch) => (batch[0] as LoggedEvent).seq);
      s.host.add(p, { start: { kind: "end" }, idleMs: 20 });
      const startAt = s.host.status("p")?.position ?? 0;
      assert.ok(startAt > 0, "at the end of what is logged");
      await s.core.submit([result(2, 0), result(3, 2)]);
      await s.core.flush();
      await until(() => s.host.status("p")?.lagEvents === 0);
      const seqs = p.seen.map((e) => e.seq);
      assert.ok(
        seqs.every((q) => q > startAt),
        "nothing before the start",
      );
      assert.deepEqual(
        seqs,
        Array.from({ length: seqs.length }, (_, i) => startAt + 1 + i),
        "every event once, in order",
      );
    } finally {
      await s.close();
    }
  });

  it("a consumer waiting for a full batch reads at its interval, not at every commit", async () => {
    const dir = tempDir();
    const core = await Core.open({ dataDir: dir, config, clock: systemClock });
    const real = openEventLogReader(dir);
    let reads = 0;
    // The host's clock moves only when the test says: twenty commits on a loaded machine can take
    // longer than the interval, which is not what this test is about.
    const clock = new FakeClock();
    const host = ConsumerHost.open({
      dataDir: dir,
      clock,
      logger: silentLogger,
      reader: {
        ...real,
        eventsAfter: (after, limit) => {
          reads++;
          return real.eventsAfter(after, limit);
        },
      },
    });
    const off = core.onCommitted(() => host.notify());
    try {
      const c = recorder("c");
      host.add(c, { start: { kind: "end" }, maxBatch: 1000, maxWaitMs: 1500, idleMs: 1000 });
      await core.submit([result(0, 0)]);
      await core.flush();
      await until(() => reads >= 2);
      const before = reads;
      // Twenty commits, each waking the consumer, none completing its batch.
      for (let i = 1; i <= 20; i++) {
        await core.submit([result(i, 0)]);
        await core.flush();
      }
      assert.ok(reads - before <= 3, `${reads - before} reads for 20 commits`);
      assert.equal(c.calls, 0, "no batch before flush_interval");
      // The interval passes: one batch of all 21.
      await until(() => {
        clock.advance(100);
        return c.seen.some((e) => e.event.type === "CheckResultProcessed");
      });
      assert.equal(c.calls, 1, "one batch after flush_interval");
      assert.equal(c.seen.filter((e) => e.event.type === "CheckResultProcessed").length, 21);
    } finally {
      off();
      await host.stop();
      await core.close();
    }
  });

  it("a commit wakes a waiting consumer: it never waits for its idle interval to see new events", async () => {
    const dir = tempDir();
    const core = await Core.open({ dataDir: dir, config, clock: systemClock });
    // The host's clock never moves: a consumer that waited for its idle interval would never read.
    const host = ConsumerHost.open({ dataDir: dir, clock: new FakeClock(), logger: silentLogger });
    const off = core.onCommitted(() => host.notify());
    try {
      const c = recorder("c");
      host.add(c, { start: { kind: "end" }, idleMs: 3_600_000 });
      for (let i = 0; i < 3; i++) {
        await core.submit([result(i, 2)]);
        await until(() => c.seen.filter((e) => e.event.type === "CheckResultProcessed").length === i + 1);
      }
    } finally {
      off();
      await host.stop();
      await core.close();
    }
  });

  it("reads nothing for an inactive consumer, whose position follows the end; once active it gets only newer events", async () => {
    const dir = tempDir();
    const s = await open(dir);
    try {
      let active = false;
      const c = Object.assign(recorder("c"), { active: () => active });
      // A stored position far behind the end: an inactive consumer must not read that backlog.
      await s.core.submit([result(0, 2), result(1, 0)]);
      await s.core.flush();
      s.host.add(c, { start: { kind: "oldest" }, idleMs: 20 });
      await s.core.submit([result(2, 2)]);
      await s.core.flush();
      const end = s.host.status("c")?.lastSeq ?? 0;
      await until(() => s.host.status("c")?.position === end);
      assert.equal(c.calls, 0, "no batch offered while inactive");
      assert.equal(s.host.state.position("c"), end, "the followed position is stored");
      active = true;
      await new Promise((r) => setTimeout(r, 60));
      await s.core.submit([result(3, 0)]);
      await s.core.flush();
      await until(() => s.host.status("c")?.lagEvents === 0 && c.seen.length > 0);
      assert.ok(
        c.seen.every((e) => e.seq > end),
        "nothing from the time it was inactive",
      );
      assert.ok(c.seen.some((e) => e.event.type === "CheckResultProcessed"));
    } finally {
      await s.close();
    }
  });

  it("offers a large group in small batches, every event once and in order (the reader continues a group it stopped in)", async () => {
    const dir = tempDir();
    const s = await open(dir);
    try {
      // One command of 60 results: one group of at least 120 events, read 7 at a time.
      await s.core.submit(Array.from({ length: 60 }, (_, i) => result(i, (i % 2) * 2)));
      await s.core.submit([result(60, 0)]);
      await s.core.flush();
      const c = recorder("small");
      s.host.add(c, { start: { kind: "oldest" }, maxBatch: 7, idleMs: 20 });
      const end = s.host.status("small")?.lastSeq ?? 0;
      await until(() => s.host.status("small")?.position === end);
      const seqs = c.seen.map((e) => e.seq);
      assert.deepEqual(
        seqs,
        Array.from({ length: end }, (_, i) => i + 1),
      );
      assert.ok(c.calls >= Math.ceil(end / 7), `${c.calls} batches`);
      const outputs = c.seen.flatMap((e) =>
        e.event.type === "CheckResultProcessed" ? [e.event.result.output] : [],
      );
      assert.deepEqual(
        outputs,
        Array.from({ length: 61 }, (_, i) => `result ${i}`),
      );
    } finally {
      await s.close();
    }
  });

  it("backs off a consumer without progress while another keeps going", async () => {
    const dir = tempDir();
    const s = await open(dir);
    try {
      const stuck = recorder("stuck", () => 0);
      const live = recorder("live");
      s.host.add(stuck, { start: { kind: "oldest" }, idleMs: 20 });
      s.host.add(live, { start: { kind: "oldest" }, idleMs: 20 });
      await s.core.submit([result(0, 2)]);
      await s.core.flush();
      await until(() => s.host.status("live")?.lagEvents === 0 && live.seen.length > 0);
      const st = s.host.status("stuck");
      assert.equal(st?.position, 0);
      assert.ok((st?.failures ?? 0) >= 1);
      // 1 s, then 2 s: within 1.5 s it was offered the batch at most twice.
      await new Promise((r) => setTimeout(r, 1500));
      assert.ok(stuck.calls <= 2, `backed off (${stuck.calls} calls)`);
    } finally {
      await s.close();
    }
  });

  it("trims only what every consumer finished, and only past the retention", async () => {
    const dir = tempDir();
    const s = await open(dir);
    try {
      const slow = recorder("slow", (batch) => (batch[0] as LoggedEvent).seq - 1);
      const fast = recorder("fast");
      s.host.add(fast, { start: { kind: "oldest" }, idleMs: 20 });
      await s.core.submit([result(0, 2)]);
      await s.core.submit([result(1, 0)]);
      await s.core.flush();
      await until(() => s.host.status("fast")?.lagEvents === 0);
      // Young events are kept even though every consumer is past them.
      assert.equal(await s.host.trimNow(), 0);
      s.host.add(slow, { start: { kind: "seq", seq: 0 }, idleMs: 20 });
      // With everything old enough, the slow consumer still holds the log.
      const dropped = await s.core.trimEvents(s.host.status("slow")?.position ?? 0, Date.now() + 1);
      assert.equal(dropped, 0, "nothing below the slow consumer's position 0");
      await s.host.remove("slow");
      const floor = s.host.status("fast")?.position ?? 0;
      const d2 = await s.core.trimEvents(floor, Date.now() + 1);
      assert.ok(d2 > 0, "below the remaining consumer's position, old enough: dropped");
      const late = recorder("late");
      s.host.add(late, { start: { kind: "oldest" }, idleMs: 20 });
      const from = s.host.status("late")?.position ?? 0;
      assert.ok(from > 0 && from < floor, "oldest is after the trimmed part; the newest group stays");
      assert.equal(s.host.status("late")?.lastSeq, floor, "the log's sequence survives trimming");
    } finally {
      await s.close();
    }
  });

  it("reports a consumer behind the retention as stuck", async () => {
    const dir = tempDir();
    const core = await Core.open({ dataDir: dir, config, clock: systemClock });
    const host = ConsumerHost.open({
      dataDir: dir,
      clock: systemClock,
      logger: silentLogger,
      retention: { retentionMs: 1, everyMs: 3_600_000, trim: (f, b) => core.trimEvents(f, b) },
    });
    try {
      await core.submit([result(0, 2)]);
      await core.flush();
      host.add(
        recorder("never", () => 0),
        { start: { kind: "oldest" }, idleMs: 20 },
      );
      await new Promise((r) => setTimeout(r, 20));
      assert.equal(host.status("never")?.stuck, true);
      assert.equal(await host.trimNow(), 0, "its events are kept");
    } finally {
      await host.stop();
      await core.close();
    }
  });

  it("records consumers' decisions in the log with RecordEvents, and refuses engine events", async () => {
    const dir = tempDir();
    const s = await open(dir);
    try {
      const c = recorder("c");
      s.host.add(c, { start: { kind: "end" }, idleMs: 20 });
      const sent: LookoutEvent = {
        type: "NotificationSent",
        at: Date.now(),
        key: "host-00000!svc-000",
        host: "host-00000",
        service: "svc-000",
        kind: "PROBLEM",
        policy: "p",
        level: 1,
        contact: "ops",
      };
      await s.core.submit([{ type: "RecordEvents", events: [sent] }]);
      await s.core.flush();
      await until(() => c.seen.length > 0);
      assert.deepEqual((c.seen[0] as LoggedEvent).event, sent);
      await assert.rejects(
        s.core.submit([
          { type: "RecordEvents", events: [{ type: "ObjectAdded" } as unknown as typeof sent] },
        ]),
        RejectedError,
      );
    } finally {
      await s.close();
    }
  });
});

describe("the event log reader's row cache", () => {
  it("reads what an uncached reader reads, from every position and limit, before and after a trim", async () => {
    const dir = tempDir();
    const core = await Core.open({ dataDir: dir, config, clock: systemClock });
    try {
      // Rows of 1 to 4 results: reads start and end inside rows and across them.
      for (let i = 0; i < 12; i++)
        await core.submit(Array.from({ length: 1 + (i % 4) }, (_, k) => result(i * 10 + k, (i + k) % 3)));
      await core.flush();
      const plain = openEventLogReader(dir);
      // Smaller than one row: every read evicts, so both the hit and the miss path run.
      const cached = [
        openEventLogReader(dir, { cacheEvents: 3 }),
        openEventLogReader(dir, { cacheEvents: 1000 }),
      ];
      const compare = (): number => {
        const last = plain.lastSeq();
        let reads = 0;
        for (const limit of [1, 2, 7, 1000])
          for (let after = 0; after <= last + 1; after++) {
            const want = plain.eventsAfter(after, limit);
            for (const r of cached)
              assert.deepEqual(r.eventsAfter(after, limit), want, `after ${after}, limit ${limit}`);
            reads += want.length;
          }
        return reads;
      };
      assert.ok(compare() > 0);
      assert.ok(plain.lastSeq() > 12, "rows of several events");
      const dropped = await core.trimEvents(Math.floor(plain.lastSeq() / 2), Date.now() + 1);
      assert.ok(dropped > 0, "the trim dropped rows the caches hold");
      assert.ok(plain.firstSeq() > 1);
      compare();
      for (const r of [plain, ...cached]) r.close();
    } finally {
      await core.close();
    }
  });
});
