import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { fixtureConfig } from "../engine/scheduler/fixtures.js";
import { replayProjection } from "../store/replay.js";
import { FakeClock } from "../testing/fake-clock.js";
import { Core } from "./core.js";

const dirs: string[] = [];
after(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

const config = fixtureConfig([
  { host: "web", service: "http" },
  { host: "web", service: "dns" },
]);

const pending = (core: Core) =>
  [...core.view.projection.reschedules()].map((r) => [r.key, r.runAt, r.force]).sort();

// A pending reschedule is projection state: kept in the snapshot, rebuilt by a replay, and what the
// scheduler reads at start-up. Each way a Core can reopen must show it still pending.
for (const how of ["snapshot", "replay of the log"] as const) {
  test(`a pending reschedule survives a reopen (${how}); a later result settles it`, async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "lookout-resched-"));
    dirs.push(dataDir);
    const clock = new FakeClock();
    const t0 = clock.now();
    const heard: string[] = [];
    let core = await Core.open({ dataDir, config, clock, writer: { snapshotEveryEvents: 1_000_000 } });
    core.view.projection.onReschedule((r) => heard.push(r.key));
    await core.submit([
      { type: "RescheduleCheck", target: { selector: "" }, runAt: t0 + 60_000, force: false, author: "ops" },
      {
        type: "RescheduleCheck",
        target: { object: { host: "web", service: "dns" } },
        force: true,
        author: "ops",
      },
    ]);
    await core.flush();
    assert.deepEqual(heard.sort(), ["web!dns", "web!http"], "the listener heard each once");
    const want = [
      ["web!dns", t0, true],
      ["web!http", t0 + 60_000, false],
    ];
    assert.deepEqual(pending(core), want);
    if (how === "snapshot") await core.snapshot();
    await core.close();
    if (how === "replay of the log") {
      assert.deepEqual(
        replayProjection(dataDir)
          .reschedules?.map((r) => [r.key, r.runAt, r.force])
          .sort(),
        want,
      );
    }
    core = await Core.open({ dataDir, config, clock });
    try {
      assert.deepEqual(pending(core), want);
      // web!dns ran (a result checked at its time); web!http's time is still ahead.
      await core.submit([
        {
          type: "ProcessCheckResult",
          result: {
            host: "web",
            service: "dns",
            exitStatus: 0,
            output: "OK",
            longOutput: "",
            perfdata: [],
            checkedAt: t0,
            durationMs: 0,
            source: "active",
          },
        },
      ]);
      await core.flush();
      assert.deepEqual(pending(core), [want[1]]);
    } finally {
      await core.close();
    }
  });
}
