import assert from "node:assert/strict";
import test from "node:test";
import { FakeClock } from "../../testing/fake-clock.js";
import { FIRST_RUN_RATE, firstRunDue, firstRunWindowMs } from "./first-run.js";
import { createHarness, fixtureConfig, runFor } from "./fixtures.js";
import { createScheduler } from "./scheduler.js";
import { slotAtOrAfter, slotAtOrBefore } from "./slots.js";

test("firstRunWindowMs: sized at 1,000 first runs a second; one new object at once", () => {
  const table: [number, number][] = [
    [0, 1],
    [1, 1],
    [3, 3],
    [5_000, 5_000],
    [20_000, 20_000],
    [100_000, 100_000],
  ];
  for (const [count, want] of table) assert.equal(firstRunWindowMs(count), want, `${count} objects`);
  // One object: no offset at all.
  assert.equal(firstRunDue("web!http", firstRunWindowMs(1), 60_000, 1_000), 1_000);
  // Capped at the object's interval: 100,000 objects at 60 s spread over one interval, as the grid would.
  const due = firstRunDue("web!http", firstRunWindowMs(100_000), 60_000, 0);
  assert.ok(due >= 0 && due < 60_000);
});

test("first runs: objects never checked run within the window, then keep their grid", async () => {
  const clock = new FakeClock();
  const h = createHarness({ clock });
  const objects = Array.from({ length: 40 }, (_, i) => ({ host: "h", service: `s${i}` }));
  const fresh = (key: string) => key !== "h!s0"; // h!s0 has a result already: it keeps its grid
  const s = createScheduler({ ...h.options, isNew: fresh });
  s.applyConfig(fixtureConfig(objects.map((o) => ({ ...o, schedule: { checkIntervalMs: 60_000 } }))));
  s.start();
  const t0 = clock.now();
  await runFor(clock, 3 * 60_000);
  for (const { service } of objects) {
    const key = `h!${service}`;
    const starts = h.seen.filter((r) => r.key === key).map((r) => r.startedAt);
    const first = starts[0]!;
    if (!fresh(key)) {
      assert.equal(first, slotAtOrAfter(key, 60_000, t0), `${key} on its grid`);
      continue;
    }
    assert.ok(first - t0 < firstRunWindowMs(39), `${key} first ran ${first - t0} ms after start`);
    // Then the grid: the first slot at least half an interval after the first run, one interval apart.
    assert.equal(starts[1], slotAtOrAfter(key, 60_000, first + 30_000), `${key} second run`);
    assert.equal(starts[2], starts[1]! + 60_000, `${key} third run`);
  }
  await s.stop();
});

/** A scheduler on a fake clock whose objects are new until their first check is submitted. */
function reloadingScheduler() {
  const clock = new FakeClock();
  const h = createHarness({ clock });
  const checked = new Set<string>();
  const s = createScheduler({
    ...h.options,
    submit: (r) => {
      h.options.submit(r);
      checked.add(r.service === undefined ? r.host : `${r.host}!${r.service}`);
    },
    isNew: (key) => !checked.has(key),
  });
  return { clock, h, s };
}

test("first runs: a reload's new objects run soon; unchanged ones keep their next run", async () => {
  const { clock, s } = reloadingScheduler();
  const base = [{ host: "h", service: "old" }];
  s.applyConfig(fixtureConfig(base));
  s.start();
  await runFor(clock, 2 * 60_000);
  const oldNext = s.nextRunAt("h!old");
  const at = clock.now();
  const added = Array.from({ length: 20 }, (_, i) => ({ host: "h", service: `new${i}` }));
  s.applyConfig(fixtureConfig([...base, ...added]));
  assert.equal(s.nextRunAt("h!old"), oldNext, "the checked object keeps its next run");
  for (const { service } of added) {
    const next = s.nextRunAt(`h!${service}`)!;
    assert.ok(next - at < firstRunWindowMs(20), `h!${service} due ${next - at} ms after the reload`);
  }
  await s.stop();
});

test("first runs: a reload that adds one object runs its check as the reload applies", async () => {
  const { clock, h, s } = reloadingScheduler();
  const base = Array.from({ length: 50 }, (_, i) => ({
    host: "h",
    service: `s${i}`,
    schedule: { checkIntervalMs: 10_000 },
  }));
  s.applyConfig(fixtureConfig(base));
  s.start();
  await runFor(clock, 60_000);
  const at = clock.now();
  s.applyConfig(
    fixtureConfig([...base, { host: "h", service: "new", schedule: { checkIntervalMs: 10_000 } }]),
  );
  assert.equal(s.nextRunAt("h!new"), at, "due as the reload applies, not at an offset in a window");
  await runFor(clock, 1);
  assert.deepEqual(
    h.seen.filter((r) => r.key === "h!new").map((r) => r.startedAt),
    [at],
  );
  await s.stop();
});

test("first runs: many new objects are spread at the first-run rate", async () => {
  const clock = new FakeClock();
  const h = createHarness({ clock });
  const objects = Array.from({ length: 3_000 }, (_, i) => ({ host: `h${i % 30}`, service: `s${i}` }));
  const s = createScheduler({ ...h.options, isNew: () => true });
  s.applyConfig(fixtureConfig(objects.map((o) => ({ ...o, schedule: { checkIntervalMs: 60_000 } }))));
  s.start();
  const t0 = clock.now();
  const window = firstRunWindowMs(objects.length);
  await runFor(clock, window + 1_000, 10);
  assert.equal(h.seen.length, objects.length, "every object ran once within the window");
  const perSecond = new Map<number, number>();
  for (const r of h.seen) {
    assert.ok(r.startedAt - t0 < window, `${r.key} first ran ${r.startedAt - t0} ms after start`);
    const sec = Math.floor((r.startedAt - t0) / 1000);
    perSecond.set(sec, (perSecond.get(sec) ?? 0) + 1);
  }
  // Not all at once: no second holds much more than the rate.
  const busiest = Math.max(...perSecond.values());
  assert.ok(busiest <= FIRST_RUN_RATE * 1.2, `busiest second: ${busiest}`);
  await s.stop();
});

test("first runs: a slow start-up spreads first runs from start(), not from applyConfig", async () => {
  const clock = new FakeClock();
  const h = createHarness({ clock });
  const s = createScheduler({ ...h.options, isNew: () => true });
  s.applyConfig(fixtureConfig([{ host: "h", service: "s" }]));
  clock.advance(30_000); // loading took 30 s
  const at = clock.now();
  s.start();
  const next = s.nextRunAt("h!s");
  if (next !== undefined) assert.ok(next - at < firstRunWindowMs(1), `due ${next - at} ms after start`);
  await runFor(clock, 1_000);
  assert.equal(h.seen.length, 1);
  await s.stop();
});

test("first runs: a first apply that catches up (taking over a zone's lead) keeps to the grid", async () => {
  const clock = new FakeClock();
  const h = createHarness({ clock });
  const s = createScheduler({ ...h.options, isNew: () => true, catchUpMs: 5_000 });
  const objects = Array.from({ length: 20 }, (_, i) => ({ host: "h", service: `s${i}` }));
  s.applyConfig(fixtureConfig(objects));
  const now = clock.now();
  for (const { service } of objects) {
    const key = `h!${service}`;
    const last = slotAtOrBefore(key, 60_000, now);
    const want = last >= now - 5_000 ? last : slotAtOrAfter(key, 60_000, now);
    assert.equal(s.nextRunAt(key), want, key);
  }
  await s.stop();
});
