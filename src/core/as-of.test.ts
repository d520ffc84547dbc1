/**
 * ListStatus `at` below the API: a scenario on the injected clock (results soft and hard, an
 * acknowledgement, a downtime that starts and ends on its own, flapping), the live projection
 * recorded at each moment; then each moment rebuilt (Core.projectionAt) must equal what the live
 * projection said then — with snapshots kept as starting points, with only the newest two, and
 * with none. Then the moments it must refuse: the future, before the log, before retention.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import type { CheckResult } from "../model/check-result.js";
import type { ExitStatus } from "../model/state.js";
import { openAsOfLog } from "../store/as-of-log.js";
import { OutOfRangeError, RejectedError } from "../store/errors.js";
import { EventLog } from "../store/event-log.js";
import { createProjection, type Projection } from "../store/projection.js";
import type { WriterOptions } from "../store/protocol.js";
import { Database } from "../store/sqlite.js";
import { FakeClock } from "../testing/fake-clock.js";
import { Core } from "./core.js";
import { fleetConfig } from "./fleet-config.js";
import type { CommandInput } from "./validate.js";

const dirs: string[] = [];
after(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), "lookout-as-of-"));
  dirs.push(d);
  return d;
}

const MINUTE = 60_000;
const config = fleetConfig({ hosts: 2, servicesPerHost: 2, maxAttempts: 2 });

function result(host: string, service: string | undefined, exitStatus: number, at: number): CommandInput {
  const r: CheckResult = {
    host,
    ...(service === undefined ? {} : { service }),
    exitStatus: exitStatus as ExitStatus,
    output: `status ${exitStatus} at ${at}`,
    longOutput: "",
    perfdata: [{ label: "v", value: exitStatus, uom: "", warn: "", crit: "" }],
    checkedAt: at,
    durationMs: 0,
    source: "passive",
  };
  return { type: "ProcessCheckResult", result: r };
}

/** What ListStatus can show of a projection: everything but the history feed. */
function shown(p: Projection) {
  const { history: _, ...rest } = p.snapshot();
  return rest;
}

interface Moment {
  readonly at: number;
  readonly live: ReturnType<typeof shown>;
}

/** Runs the scenario on a Core, recording the live projection after each step. */
async function scenario(core: Core, clock: FakeClock): Promise<Moment[]> {
  const moments: Moment[] = [];
  const step = async (commands: CommandInput[]): Promise<void> => {
    if (commands.length > 0) await core.submit(commands);
    await core.flush();
    // A timer already due (set when the writer reported it, after the clock passed it) fires now,
    // stamped now: the moment includes it.
    for (let i = 0; i < 3; i++) {
      clock.advance(0);
      await core.flush();
    }
    moments.push({ at: clock.now(), live: shown(core.view.projection) });
    clock.advance(MINUTE);
    // A timer the advance fired (a downtime's start or end) enqueued a Tick: let it land.
    await core.flush();
  };
  const H0 = "host-00000";
  const H1 = "host-00001";
  await step([]);
  await step([result(H0, undefined, 0, clock.now()), result(H0, "svc-000", 2, clock.now())]); // soft 1/2
  await step([result(H0, "svc-000", 2, clock.now()), result(H0, "svc-001", 1, clock.now())]); // hard
  await step([
    {
      type: "AcknowledgeProblem",
      target: { object: { host: H0, service: "svc-000" } },
      sticky: false,
      author: "ops",
      comment: "looking",
    },
  ]);
  const start = clock.now() + 30_000;
  await step([
    {
      type: "ScheduleDowntime",
      target: { object: { host: H1 } },
      start,
      end: start + 3 * MINUTE,
      author: "ops",
      comment: "maintenance",
    },
    result(H1, "svc-000", 2, clock.now()),
  ]);
  // svc-001 flaps: OK and CRITICAL by turns, each a hard change (the second attempt's).
  for (let i = 0; i < 10; i++) {
    const s = i % 2 === 0 ? 0 : 2;
    await step([result(H0, "svc-001", s, clock.now()), result(H0, "svc-001", s, clock.now() + 1)]);
  }
  await step([result(H0, "svc-000", 0, clock.now())]); // recovers: the acknowledgement goes
  await step([]);
  return moments;
}

const VARIANTS: readonly { name: string; writer: Partial<WriterOptions> }[] = [
  { name: "snapshots kept as starting points", writer: { snapshotEveryEvents: 4, snapshotKeepEveryMs: 1 } },
  { name: "only the newest two snapshots", writer: { snapshotEveryEvents: 4, snapshotKeepEveryMs: 0 } },
  { name: "no snapshot", writer: { snapshotEveryEvents: 1e9, snapshotEveryMs: 1e12 } },
];

describe("Core.projectionAt", () => {
  for (const v of VARIANTS) {
    it(`rebuilds what the live projection showed at each moment (${v.name})`, async () => {
      const clock = new FakeClock();
      const dir = tempDir();
      const core = await Core.open({ dataDir: dir, config, clock, writer: v.writer });
      try {
        const moments = await scenario(core, clock);
        // The scenario shows what it claims to: soft, hard, acknowledged, in downtime, flapping.
        const all = moments.flatMap((m) => m.live.statuses);
        assert.ok(all.some((s) => s.stateType === "SOFT"));
        assert.ok(all.some((s) => s.acknowledgement !== undefined));
        assert.ok(all.some((s) => s.inDowntime));
        assert.ok(all.some((s) => s.flapping));
        assert.ok(moments.some((m) => m.live.downtimes.length > 0));
        assert.ok(moments.at(-1)?.live.downtimes.length === 0, "the downtime ended");
        // Oldest last, so that no rebuild is a cache's answer to the one before.
        for (const m of [...moments].reverse()) {
          const past = await core.projectionAt(m.at);
          assert.deepEqual(shown(past), m.live, `at +${(m.at - (moments[0] as Moment).at) / MINUTE} min`);
          // Within the minute after it, nothing changed.
          assert.deepEqual(shown(await core.projectionAt(m.at + 20_000)), m.live);
        }
        if (v.writer.snapshotKeepEveryMs === 1) {
          const db = new Database(join(dir, "lookout.db"), { readonly: true });
          const count = (sql: string): number => (db.prepare(sql).get() as { n: number }).n;
          const n = count("SELECT count(*) AS n FROM snapshot_times WHERE log_at > 0");
          // Beyond the newest two, a kept snapshot is its status image alone.
          const whole = count("SELECT count(*) AS n FROM snapshots");
          const images = count("SELECT count(*) AS n FROM status_images");
          db.close();
          assert.ok(n > 2, `kept ${n} snapshots`);
          assert.equal(whole, 2);
          assert.equal(images, n);
        }
      } finally {
        await core.close();
      }
    });
  }

  it("refuses a moment in the future, before the log, or not a time", async () => {
    const clock = new FakeClock();
    const core = await Core.open({ dataDir: tempDir(), config, clock });
    try {
      const opened = clock.now();
      clock.advance(MINUTE);
      await core.submit([result("host-00000", undefined, 0, clock.now())]);
      await core.flush();
      const cases = [
        { at: clock.now() + 1000, reason: "out_of_range", message: /is in the future/ },
        {
          at: opened - 1,
          reason: "out_of_range",
          message: new RegExp(`before the oldest time the log can answer, ${new Date(opened).toISOString()}`),
        },
        { at: Number.NaN, reason: "invalid", message: /not a time/ },
      ];
      for (const c of cases) {
        await assert.rejects(core.projectionAt(c.at), (e: unknown) => {
          if (c.reason === "out_of_range") assert.ok(e instanceof OutOfRangeError, String(e));
          else assert.ok(e instanceof RejectedError && e.reason === c.reason, String(e));
          assert.match((e as Error).message, c.message);
          return true;
        });
      }
      // The moment the log starts is answered.
      assert.equal((await core.projectionAt(opened)).size(), 0);
      assert.equal((await core.projectionAt(clock.now())).size(), 1);
    } finally {
      await core.close();
    }
  });

  it("rebuilds from a snapshot that has no status image (stored before images) read whole", async () => {
    const clock = new FakeClock();
    const dir = tempDir();
    const core = await Core.open({
      dataDir: dir,
      config,
      clock,
      writer: { snapshotEveryEvents: 4, snapshotKeepEveryMs: 1 },
    });
    let moments: Moment[] = [];
    try {
      moments = await scenario(core, clock);
    } finally {
      await core.close();
    }
    // The newest two snapshots lose their images: moments after them are rebuilt from their bodies.
    const db = new Database(join(dir, "lookout.db"));
    const { changes } = db
      .prepare("DELETE FROM status_images WHERE cmd_seq IN (SELECT cmd_seq FROM snapshots)")
      .run();
    const newest = (
      db
        .prepare("SELECT min(t.log_at) AS at FROM snapshot_times t JOIN snapshots s USING (cmd_seq)")
        .get() as {
        at: number;
      }
    ).at;
    db.close();
    assert.equal(changes, 2);
    assert.ok(moments.some((m) => m.at >= newest));
    const reader = openAsOfLog(dir);
    try {
      for (const m of moments) {
        const rebuilt = createProjection(undefined, { historyCapacity: 1 });
        rebuilt.applyDelta(reader.rebuild(reader.plan(m.at)));
        assert.deepEqual(shown(rebuilt), m.live);
      }
    } finally {
      reader.close();
    }
  });

  it("answers from the oldest kept snapshot on once retention trimmed the events before it", async () => {
    const clock = new FakeClock();
    const dir = tempDir();
    const core = await Core.open({
      dataDir: dir,
      config,
      clock,
      writer: { snapshotEveryEvents: 4, snapshotKeepEveryMs: 1 },
    });
    let moments: Moment[] = [];
    try {
      moments = await scenario(core, clock);
    } finally {
      await core.close();
    }
    // Retention drops the events up to the third kept snapshot's: the two before it go at the
    // next snapshot, and nothing before it can be answered.
    const db = new Database(join(dir, "lookout.db"), { readonly: true });
    const kept = db
      .prepare(
        "SELECT t.event_seq AS eventSeq, t.log_at AS logAt FROM snapshot_times t WHERE log_at > 0 ORDER BY t.event_seq",
      )
      .all() as { eventSeq: number; logAt: number }[];
    db.close();
    const third = kept[2];
    assert.ok(third !== undefined, `kept ${kept.length}`);
    const log = EventLog.open(dir);
    log.trimEvents(third.eventSeq);
    log.close();
    const reader = openAsOfLog(dir);
    try {
      const before = moments.filter((m) => m.at < third.logAt);
      assert.ok(before.length > 0);
      for (const m of before) {
        assert.throws(
          () => reader.plan(m.at),
          (e: unknown) =>
            e instanceof OutOfRangeError && e.message.includes(new Date(third.logAt).toISOString()),
        );
      }
      const later = moments.filter((m) => m.at >= third.logAt);
      assert.ok(later.length > 0);
      for (const m of later) {
        const rebuilt = createProjection(undefined, { historyCapacity: 1 });
        rebuilt.applyDelta(reader.rebuild(reader.plan(m.at)));
        assert.deepEqual(shown(rebuilt), m.live);
      }
    } finally {
      reader.close();
    }
  });
});
