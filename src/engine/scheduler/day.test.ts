import assert from "node:assert/strict";
import { test } from "node:test";
import type { CheckResult } from "../../model/check-result.js";
import { objectKey } from "../../model/object-ref.js";
import type { ExitStatus } from "../../model/state.js";
import { FakeClock } from "../../testing/fake-clock.js";
import { createHarness, type FakeBehaviour, fixtureConfig, runFor } from "./fixtures.js";
import { createScheduler } from "./scheduler.js";
import { hashKey, slotAtOrAfter } from "./slots.js";

/** A deterministic number in [0, 1) for the n-th run of an object. */
const noise = (key: string, n: number, salt: number) => (hashKey(`${key}#${n}#${salt}`) % 10_000) / 10_000;

/** Mostly OK, sometimes a problem for a few runs, now and then a hang past the timeout. */
function behave(key: string, n: number): FakeBehaviour {
  const r = noise(key, n, 1);
  const status: ExitStatus = r < 0.75 ? 0 : r < 0.85 ? 2 : r < 0.95 ? 1 : 3;
  const slow = noise(key, n, 2) < 0.03;
  return { status, takesMs: slow ? 12_000 : Math.floor(noise(key, n, 3) * 5) * 1_000 };
}

/**
 * A day of schedule for 40 objects on the fake clock, checked against an oracle written from the
 * rules alone: after a result that leaves the object soft non-OK (attempt < max_attempts) the next
 * run is exactly retry_interval after the previous one; otherwise it is the first slot of the
 * object's grid at least half a check_interval later. Timeouts (10 s) report CRITICAL at 10 s.
 */
test("a day of schedule follows the rules run by run", async () => {
  const objects = Array.from({ length: 40 }, (_, i) =>
    i % 5 === 0 ? { host: `h${i}` } : { host: `h${i - (i % 5)}`, service: `s${i}` },
  );
  const clock = new FakeClock();
  const h = createHarness({ clock, behave, concurrency: 100 });
  const s = createScheduler(h.options);
  s.applyConfig(fixtureConfig(objects));
  s.start();
  await runFor(clock, 86_400_000, 5_000);
  await s.stop();

  const byKey = new Map<string, CheckResult[]>();
  for (const r of h.results) byKey.set(objectKey(r), [...(byKey.get(objectKey(r)) ?? []), r]);
  assert.equal(byKey.size, 40);
  let retries = 0;
  let timeouts = 0;
  for (const [key, rs] of byKey) {
    rs.sort((a, b) => a.checkedAt - b.checkedAt);
    assert.ok(rs.length >= 1_440, `${key}: ${rs.length} runs`);
    let attempts = 0;
    for (let i = 0; i < rs.length; i++) {
      const r = rs[i]!;
      if (r.durationMs === 10_000) {
        timeouts++;
        assert.equal(r.output, "CRITICAL - check timed out after 10s");
      }
      attempts = r.exitStatus === 0 ? 0 : attempts + 1;
      const soft = attempts > 0 && attempts < 3;
      const next = rs[i + 1];
      if (next === undefined) break;
      const want = soft ? r.checkedAt + 15_000 : slotAtOrAfter(key, 60_000, r.checkedAt + 30_000);
      assert.equal(next.checkedAt, want, `${key} run ${i + 2}: ${soft ? "retry" : "check"} interval`);
      if (soft) retries++;
    }
  }
  assert.ok(retries > 1_000, `${retries} retries exercised`);
  assert.ok(timeouts > 500, `${timeouts} timeouts exercised`);
});
