import assert from "node:assert/strict";
import test from "node:test";
import { FakeClock } from "../../testing/fake-clock.js";
import { createHarness, type FakeBehaviour, fixtureConfig, runFor } from "./fixtures.js";
import { createScheduler } from "./scheduler.js";
import { slotAtOrAfter } from "./slots.js";

const KEY = "h!s";
const MIN = 60_000;

/** When the object's runs started, relative to t0 (ms). */
function startsOf(seen: readonly { key: string; startedAt: number }[], t0: number): number[] {
  return seen.filter((r) => r.key === KEY).map((r) => r.startedAt - t0);
}

interface Case {
  readonly name: string;
  /** When the reschedule is asked for, relative to the object's first grid slot. */
  readonly askAfterMs: number;
  /** When the extra run is due, relative to the ask (0: now; negative: in the past). */
  readonly inMs: number;
  readonly behave?: (key: string, n: number) => FakeBehaviour;
  /** The runs expected in the first four minutes after the first grid slot, relative to it. */
  readonly runs: readonly number[];
}

// The grid is g + k·60 s (g: the first slot). A rescheduled run is one extra run: every grid slot
// still runs, the extra one in between.
const cases: readonly Case[] = [
  {
    name: "now: at once, then the grid slot it waited for",
    askAfterMs: 10_000,
    inMs: 0,
    runs: [0, 10_000, 60_000, 120_000, 180_000],
  },
  {
    name: "a time in the past runs at once",
    askAfterMs: 10_000,
    inMs: -5_000,
    runs: [0, 10_000, 60_000, 120_000, 180_000],
  },
  {
    name: "later, before the next slot",
    askAfterMs: 10_000,
    inMs: 20_000,
    runs: [0, 30_000, 60_000, 120_000, 180_000],
  },
  {
    name: "later, after the next slot: the slot still runs",
    askAfterMs: 10_000,
    inMs: 80_000,
    runs: [0, 60_000, 90_000, 120_000, 180_000],
  },
  {
    name: "on a grid slot: one run serves both",
    askAfterMs: 10_000,
    inMs: 50_000,
    runs: [0, 60_000, 120_000, 180_000],
  },
  {
    name: "while a run is in flight: once more after it",
    askAfterMs: 2_000,
    inMs: 0,
    behave: () => ({ status: 0, takesMs: 5_000 }),
    runs: [0, 5_000, 60_000, 120_000, 180_000],
  },
  {
    // The extra run finds a problem: the object retries from it (retry_interval 15 s), then, hard
    // after 3 attempts, returns to its grid (the first slot half an interval on, as after any run).
    name: "a problem found by the extra run retries from it",
    askAfterMs: 10_000,
    inMs: 0,
    behave: (_k, n) => ({ status: n >= 2 ? 2 : 0, takesMs: 0 }),
    runs: [0, 10_000, 25_000, 40_000, 120_000, 180_000],
  },
];

for (const c of cases) {
  test(`reschedule: ${c.name}`, async () => {
    const clock = new FakeClock();
    const h = createHarness({ clock, ...(c.behave === undefined ? {} : { behave: c.behave }) });
    const s = createScheduler(h.options);
    s.applyConfig(fixtureConfig([{ host: "h", service: "s", schedule: { retryIntervalMs: 15_000 } }]));
    s.start();
    const g = slotAtOrAfter(KEY, MIN, clock.now());
    await runFor(clock, g - clock.now() + c.askAfterMs);
    assert.equal(s.reschedule(KEY, clock.now() + c.inMs, false), true);
    await runFor(clock, 4 * MIN - c.askAfterMs - 1);
    assert.deepEqual(startsOf(h.seen, g), c.runs);
    await s.stop();
  });
}

test("reschedule: a newer call replaces a pending one; unknown objects answer false", async () => {
  const clock = new FakeClock();
  const h = createHarness({ clock });
  const s = createScheduler(h.options);
  s.applyConfig(fixtureConfig([{ host: "h", service: "s" }]));
  s.start();
  const g = slotAtOrAfter(KEY, MIN, clock.now());
  await runFor(clock, g - clock.now());
  s.reschedule(KEY, g + 20_000, false);
  s.reschedule(KEY, g + 30_000, true);
  assert.equal(s.nextRunAt(KEY), g + 30_000);
  assert.equal(s.reschedule("h!nope", g, false), false);
  await runFor(clock, MIN);
  assert.deepEqual(startsOf(h.seen, g), [0, 30_000, 60_000]);
  await s.stop();
});

test("reschedule: a zone's object is handed to route at once, and keeps its grid", async () => {
  const clock = new FakeClock();
  const h = createHarness({ clock });
  const routed: { key: string; due: number }[] = [];
  const s = createScheduler({
    ...h.options,
    route: (plan, due) => {
      routed.push({ key: plan.key, due });
      return true;
    },
  });
  s.applyConfig(fixtureConfig([{ host: "h", service: "s" }]));
  s.start();
  const g = slotAtOrAfter(KEY, MIN, clock.now());
  await runFor(clock, g - clock.now() + 10_000);
  s.reschedule(KEY, clock.now(), false);
  await runFor(clock, 1);
  assert.deepEqual(
    routed.map((r) => r.due - g),
    [0, 10_000],
    "dispatched at once, under a due time of its own",
  );
  await runFor(clock, 2 * MIN - 10_001);
  assert.deepEqual(
    routed.map((r) => r.due - g),
    [0, 10_000, 60_000, 120_000],
  );
  assert.equal(h.seen.length, 0, "nothing ran here");
  await s.stop();
});

test("reschedule: a reload that changes the object keeps the pending run", async () => {
  const clock = new FakeClock();
  const h = createHarness({ clock });
  const s = createScheduler(h.options);
  s.applyConfig(fixtureConfig([{ host: "h", service: "s" }]));
  s.start();
  const g = slotAtOrAfter(KEY, MIN, clock.now());
  await runFor(clock, g - clock.now() + 10_000);
  s.reschedule(KEY, g + 20_000, false);
  s.applyConfig(fixtureConfig([{ host: "h", service: "s", schedule: { timeoutMs: 5_000 } }]));
  assert.equal(s.nextRunAt(KEY), g + 20_000);
  await s.stop();
});
