import assert from "node:assert/strict";
import { test } from "node:test";
import type { CheckResult } from "../../model/check-result.js";
import { objectKey } from "../../model/object-ref.js";
import { FakeClock } from "../../testing/fake-clock.js";
import { createHarness, fixtureConfig, runFor } from "./fixtures.js";
import { createScheduler } from "./scheduler.js";
import { slotAtOrAfter } from "./slots.js";

const startsOf = (results: readonly CheckResult[], key: string) =>
  results.filter((r) => objectKey(r) === key).map((r) => r.checkedAt);

test("active checks switched off: the object is not run, nor routed; back on, it resumes on its grid", async () => {
  const clock = new FakeClock();
  const h = createHarness({ clock });
  const off = new Set<string>();
  const routed: string[] = [];
  const s = createScheduler({
    ...h.options,
    activeChecksDisabled: (key) => off.has(key),
    // A remote zone's object: routed to its workers unless switched off.
    route: (plan) => {
      if (plan.key !== "h!remote") return false;
      routed.push(plan.key);
      return true;
    },
  });
  s.applyConfig(
    fixtureConfig([
      { host: "h", service: "a" },
      { host: "h", service: "b" },
      { host: "h", service: "remote" },
    ]),
  );
  s.start();
  const t0 = clock.now();
  await runFor(clock, 180_000);
  assert.equal(startsOf(h.results, "h!a").length, 3);
  assert.equal(routed.length, 3);

  off.add("h!a");
  off.add("h!remote");
  const offAt = clock.now();
  await runFor(clock, 600_000);
  assert.deepEqual(
    startsOf(h.results, "h!a").filter((t) => t >= offAt),
    [],
    "not run while switched off",
  );
  assert.equal(routed.length, 3, "not handed to a zone while switched off");
  assert.equal(startsOf(h.results, "h!b").filter((t) => t >= offAt).length, 10, "the others run");

  off.delete("h!a");
  off.delete("h!remote");
  const onAt = clock.now();
  await runFor(clock, 300_000);
  const after = startsOf(h.results, "h!a").filter((t) => t >= onAt);
  assert.equal(after.length, 5);
  assert.equal(after[0], slotAtOrAfter("h!a", 60_000, onAt), "back on its grid at its next slot");
  assert.equal(((after[0] as number) - t0) % 60_000, (startsOf(h.results, "h!a")[0]! - t0) % 60_000);
  assert.equal(routed.length, 8);
  await s.stop();
});

test("checkNow runs a switched-off object once (a forced check), then it stays off", async () => {
  const clock = new FakeClock();
  const h = createHarness({ clock });
  const s = createScheduler({ ...h.options, activeChecksDisabled: () => true });
  s.applyConfig(fixtureConfig([{ host: "h", service: "a" }]));
  s.start();
  await runFor(clock, 120_000);
  assert.equal(startsOf(h.results, "h!a").length, 0);
  assert.equal(s.checkNow("h!a"), true);
  await runFor(clock, 240_000);
  assert.equal(startsOf(h.results, "h!a").length, 1);
  await s.stop();
});

test("a predicate that throws is logged and the check runs", async () => {
  const clock = new FakeClock();
  const h = createHarness({ clock });
  const s = createScheduler({
    ...h.options,
    activeChecksDisabled: () => {
      throw new Error("boom");
    },
  });
  s.applyConfig(fixtureConfig([{ host: "h", service: "a" }]));
  s.start();
  await runFor(clock, 120_000);
  assert.equal(startsOf(h.results, "h!a").length, 2);
  assert.ok(h.warnings.some((w) => /activeChecksDisabled threw/.test(w)));
  await s.stop();
});
