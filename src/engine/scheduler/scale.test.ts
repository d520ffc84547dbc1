import assert from "node:assert/strict";
import { test } from "node:test";
import { FakeClock } from "../../testing/fake-clock.js";
import { createHarness, fixtureConfig, runFor } from "./fixtures.js";
import { createScheduler } from "./scheduler.js";

/**
 * 100,000 objects on one timer: the schedule never holds more than one pending timer of its own,
 * every object runs exactly once per interval, and a reload of the same config moves nothing.
 */
test("100,000 objects: one timer, one run each per interval", async () => {
  const n = 100_000;
  const objects = Array.from({ length: n }, (_, i) => ({ host: `host${i % 2_000}`, service: `svc${i}` }));
  const clock = new FakeClock();
  const h = createHarness({ clock, concurrency: 10_000 });
  const s = createScheduler(h.options);
  s.applyConfig(fixtureConfig(objects));
  assert.equal(s.size, n);
  assert.equal(clock.pending(), 0, "nothing is armed before start");
  s.start();
  await runFor(clock, 0); // runs due at the start instant settle
  assert.equal(clock.pending(), 1, "one timer for the whole schedule");
  await runFor(clock, 30_000, 100);
  const summary = s.applyConfig(fixtureConfig(objects));
  assert.deepEqual(summary, { added: 0, changed: 0, removed: 0, unchanged: n });
  await runFor(clock, 29_999, 100);
  assert.equal(h.results.length, n);
  assert.equal(new Set(h.results.map((r) => r.service)).size, n, "each object ran exactly once");
  assert.equal(clock.pending(), 1, "still one timer");
  await s.stop();
  assert.equal(clock.pending(), 0);
});
