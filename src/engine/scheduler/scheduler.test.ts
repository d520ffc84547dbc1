import assert from "node:assert/strict";
import { test } from "node:test";
import type { CheckResult } from "../../model/check-result.js";
import type { Clock } from "../../model/clock.js";
import { objectKey } from "../../model/object-ref.js";
import { hostStateOf } from "../../model/state.js";
import { FakeClock } from "../../testing/fake-clock.js";
import { createHarness, type FakeBehaviour, type FixtureObject, fixtureConfig, runFor } from "./fixtures.js";
import { createScheduler, MAX_STARTS_PER_TURN } from "./scheduler.js";
import { slotAtOrAfter, slotAtOrBefore } from "./slots.js";

const keyOf = (r: CheckResult) => objectKey(r);
const startsOf = (results: readonly CheckResult[], key: string) =>
  results.filter((r) => keyOf(r) === key).map((r) => r.checkedAt);
const gaps = (xs: readonly number[]) => xs.slice(1).map((x, i) => x - xs[i]!);
const ok: FakeBehaviour = { status: 0, takesMs: 0 };

test("intervals: check_interval, retry_interval, and the way back", async (t) => {
  const cases: {
    name: string;
    objects: FixtureObject[];
    behave?: (key: string, n: number) => FakeBehaviour;
    runMs: number;
    want: Record<string, { count?: number; gaps: number[] }>;
    notScheduled?: string[];
  }[] = [
    {
      name: "host and service checks each run every check_interval; passive ones never",
      objects: [
        { host: "h1" },
        { host: "h1", service: "web", schedule: { checkIntervalMs: 30_000 } },
        {
          host: "h2",
          service: "push",
          probe: { type: "passive", freshnessThresholdMs: 60_000, staleStatus: "UNKNOWN" },
        },
      ],
      runMs: 600_000,
      want: {
        h1: { count: 10, gaps: Array(9).fill(60_000) },
        "h1!web": { count: 20, gaps: Array(19).fill(30_000) },
      },
      notScheduled: ["h2", "h2!push"],
    },
    {
      name: "soft non-OK runs every retry_interval until hard, then returns to its grid",
      objects: [{ host: "h", service: "s", schedule: { checkIntervalMs: 60_000, retryIntervalMs: 15_000 } }],
      behave: (_k, n) => (n >= 3 && n <= 5 ? { status: 2, takesMs: 0 } : ok),
      runMs: 400_000,
      // runs 3,4,5 are CRITICAL: soft 1/3 and 2/3 retry after 15s; hard 3/3 goes back to the grid.
      want: { "h!s": { gaps: [60_000, 60_000, 15_000, 15_000, 30_000, 60_000] } },
    },
    {
      name: "a recovery during retries goes back to the grid, never sooner than half an interval",
      objects: [{ host: "h", service: "s", schedule: { checkIntervalMs: 60_000, retryIntervalMs: 15_000 } }],
      behave: (_k, n) => (n === 3 ? { status: 1, takesMs: 0 } : ok),
      runMs: 360_000,
      want: { "h!s": { gaps: [60_000, 60_000, 15_000, 45_000, 60_000] } },
    },
    {
      name: "a host check retries like a service",
      objects: [{ host: "h", schedule: { checkIntervalMs: 300_000, retryIntervalMs: 60_000 } }],
      behave: (_k, n) => (n === 2 || n === 3 ? { status: 2, takesMs: 0 } : ok),
      runMs: 1_500_000,
      want: { h: { gaps: [300_000, 60_000, 60_000, 180_000] } },
    },
    {
      name: "intervals below one second are raised to one second",
      objects: [{ host: "h", service: "s", schedule: { checkIntervalMs: 0 } }],
      runMs: 5_000,
      want: { "h!s": { count: 5, gaps: [1_000, 1_000, 1_000, 1_000] } },
    },
  ];
  for (const c of cases) {
    await t.test(c.name, async () => {
      const clock = new FakeClock();
      const h = createHarness({ clock, ...(c.behave ? { behave: c.behave } : {}) });
      const s = createScheduler(h.options);
      s.applyConfig(fixtureConfig(c.objects));
      for (const key of c.notScheduled ?? []) assert.equal(s.nextRunAt(key), undefined, key);
      s.start();
      await runFor(clock, c.runMs, 500);
      const keys = new Set(h.results.map(keyOf));
      assert.deepEqual([...keys].sort(), Object.keys(c.want).sort());
      for (const [key, w] of Object.entries(c.want)) {
        const starts = startsOf(h.results, key);
        if (w.count !== undefined) assert.equal(starts.length, w.count, key);
        assert.deepEqual(gaps(starts).slice(0, w.gaps.length), w.gaps, key);
      }
      await s.stop();
    });
  }
});

test("timeouts abort the checker and submit a result that says so", async (t) => {
  const cases: {
    name: string;
    object: FixtureObject;
    timeoutStatus?: 1 | 2 | 3;
    takesMs: number;
    want: { exitStatus: number; output: string; durationMs: number; aborted: boolean };
  }[] = [
    {
      name: "service: CRITICAL by default",
      object: { host: "h", service: "s", schedule: { timeoutMs: 10_000 } },
      takesMs: 20_000,
      want: {
        exitStatus: 2,
        output: "CRITICAL - check timed out after 10s",
        durationMs: 10_000,
        aborted: true,
      },
    },
    {
      name: "host: exit status 2, which the host mapping makes DOWN",
      object: { host: "h", schedule: { timeoutMs: 10_000 } },
      takesMs: 20_000,
      want: {
        exitStatus: 2,
        output: "CRITICAL - check timed out after 10s",
        durationMs: 10_000,
        aborted: true,
      },
    },
    {
      name: "the status is configurable",
      object: { host: "h", service: "s", schedule: { timeoutMs: 1_500 } },
      timeoutStatus: 3,
      takesMs: 20_000,
      want: {
        exitStatus: 3,
        output: "UNKNOWN - check timed out after 1.5s",
        durationMs: 1_500,
        aborted: true,
      },
    },
    {
      name: "a check that finishes in time keeps its own result",
      object: { host: "h", service: "s", schedule: { timeoutMs: 10_000 } },
      takesMs: 9_000,
      want: { exitStatus: 1, output: "fake 1", durationMs: 9_000, aborted: false },
    },
  ];
  for (const c of cases) {
    await t.test(c.name, async () => {
      const clock = new FakeClock();
      const h = createHarness({
        clock,
        behave: () => ({ status: 1, takesMs: c.takesMs }),
        ...(c.timeoutStatus ? { timeoutStatus: c.timeoutStatus } : {}),
      });
      const s = createScheduler(h.options);
      s.applyConfig(fixtureConfig([c.object]));
      s.start();
      assert.equal(s.checkNow(c.object.service === undefined ? "h" : "h!s"), true);
      await runFor(clock, 25_000, 500);
      const r = h.results[0]!;
      assert.equal(r.exitStatus, c.want.exitStatus);
      assert.equal(r.output, c.want.output);
      assert.equal(r.durationMs, c.want.durationMs);
      assert.equal(r.source, "active");
      assert.equal(r.checkedAt, h.seen[0]!.startedAt);
      assert.equal(h.seen[0]!.signal.aborted, c.want.aborted);
      if (c.want.aborted) assert.equal((h.seen[0]!.signal.reason as DOMException).name, "TimeoutError");
      if (c.object.service === undefined) assert.equal(hostStateOf(r.exitStatus), "DOWN");
      await s.stop();
    });
  }
});

test("a checker that ignores its abort loses its slot after the grace period", async () => {
  const clock = new FakeClock();
  const h = createHarness({
    clock,
    concurrency: 1,
    maxAttempts: 1,
    abortGraceMs: 5_000,
    behave: (key) => (key === "h!stuck" ? { status: 0, takesMs: 0, hangs: true } : ok),
  });
  const s = createScheduler(h.options);
  s.applyConfig(
    fixtureConfig([
      { host: "h", service: "stuck", schedule: { timeoutMs: 10_000 } },
      { host: "h", service: "fine" },
    ]),
  );
  s.start();
  s.checkNow("h!stuck");
  s.checkNow("h!fine");
  await runFor(clock, 10_000, 100);
  assert.deepEqual(
    h.results.map((r) => [keyOf(r), r.output]),
    [["h!stuck", "CRITICAL - check timed out after 10s"]],
  );
  assert.equal(s.inFlight, 1, "the hung run still holds its slot during the grace period");
  await runFor(clock, 5_000, 100);
  assert.equal(s.inFlight, 0);
  assert.ok(h.warnings.some((w) => w.includes("did not settle")));
  assert.deepEqual(
    h.results.map((r) => keyOf(r)),
    ["h!stuck", "h!fine"],
    "the waiting check ran once the slot came back",
  );
  await s.stop();
});

test("concurrency: never more than the limit, due order, lateness measured", async () => {
  const clock = new FakeClock();
  let inFlight = 0;
  let maxInFlight = 0;
  const h = createHarness({ clock, concurrency: 1, behave: () => ({ status: 0, takesMs: 10_000 }) });
  const checkers = new Map(
    [...h.options.checkers].map(([type, c]) => [
      type,
      {
        type,
        async run(...args: Parameters<typeof c.run>) {
          maxInFlight = Math.max(maxInFlight, ++inFlight);
          try {
            return await c.run(...args);
          } finally {
            inFlight--;
          }
        },
      },
    ]),
  );
  const { Registry } = await import("prom-client");
  const registry = new Registry();
  const s = createScheduler({ ...h.options, checkers, metrics: registry });
  s.applyConfig(fixtureConfig(["a", "b", "c"].map((x) => ({ host: "h", service: x }))));
  s.start();
  // All three due at the same instant: they must run one after the other, in the order they fell due.
  for (const k of ["h!b", "h!a", "h!c"]) assert.equal(s.checkNow(k), true);
  await runFor(clock, 29_999, 1_000);
  assert.equal(maxInFlight, 1);
  assert.deepEqual(
    h.seen.map((r) => r.key),
    ["h!b", "h!a", "h!c"],
  );
  const lateness = (await registry.getMetricsAsJSON()).find(
    (m) => m.name === "lookout_schedule_lateness_seconds",
  );
  const value = (suffix: string) =>
    lateness?.values.find(
      (v) => (v as { metricName?: string }).metricName === `lookout_schedule_lateness_seconds_${suffix}`,
    )?.value;
  assert.equal(value("count"), 3);
  assert.equal(value("sum"), 0 + 10 + 20);
  await s.stop();
});

test("an overloaded schedule sheds slots instead of piling up", async () => {
  const clock = new FakeClock();
  const h = createHarness({ clock, concurrency: 2, behave: () => ({ status: 0, takesMs: 20_000 }) });
  const { Registry } = await import("prom-client");
  const registry = new Registry();
  const s = createScheduler({ ...h.options, metrics: registry });
  const objects = Array.from({ length: 10 }, (_, i) => ({
    host: "h",
    service: `s${i}`,
    schedule: { timeoutMs: 30_000 },
  }));
  s.applyConfig(fixtureConfig(objects));
  const firstDue = objects.map((o) => `h!${o.service}`).sort((a, b) => s.nextRunAt(a)! - s.nextRunAt(b)!);
  s.start();
  await runFor(clock, 600_000, 1_000);
  assert.deepEqual(
    h.seen.slice(0, 10).map((r) => r.key),
    firstDue,
    "the first wave starts in due order",
  );
  // Two slots of 20 s each serve at most 6 runs a minute against a demand of 10.
  assert.ok(h.results.length <= 61, `${h.results.length} runs`);
  assert.ok(h.results.length >= 55, `${h.results.length} runs`);
  assert.ok(s.inFlight <= 2);
  const skipped = (await registry.getMetricsAsJSON()).find(
    (m) => m.name === "lookout_schedule_skipped_total",
  );
  assert.ok((skipped?.values[0]?.value ?? 0) > 0, "skipped slots are counted");
  await s.stop();
});

test("first runs are spread over the interval, deterministically", async () => {
  const objects = Array.from({ length: 600 }, (_, i) => ({ host: `h${i % 40}`, service: `svc${i}` }));
  const clock = new FakeClock();
  const t0 = clock.now();
  const h = createHarness({ clock });
  const s = createScheduler(h.options);
  s.applyConfig(fixtureConfig(objects));
  const other = createScheduler(createHarness({ clock: new FakeClock(t0 + 7_000) }).options);
  other.applyConfig(fixtureConfig(objects));
  s.start();
  await runFor(clock, 59_999, 1_000);
  assert.equal(h.results.length, 600, "every object ran once in the first interval");
  const perSecond = new Array<number>(60).fill(0);
  for (const r of h.results) perSecond[Math.floor((r.checkedAt - t0) / 1000)]!++;
  assert.ok(Math.max(...perSecond) <= 25, `busiest second: ${Math.max(...perSecond)} (mean 10)`);
  for (const o of objects) {
    const key = `${o.host}!${o.service}`;
    const next = s.nextRunAt(key)!;
    assert.equal(next, slotAtOrAfter(key, 60_000, t0 + 59_999));
    // A scheduler started 7 s later puts the object on the same grid.
    assert.equal((next - other.nextRunAt(key)!) % 60_000, 0);
  }
  await s.stop();
  await other.stop();
});

test("resultApplied: an engine that applies results later still moves the object onto retries", async () => {
  const clock = new FakeClock();
  const h = createHarness({ clock, behave: () => ({ status: 2, takesMs: 0 }) });
  const soft = new Set<string>();
  const queued: CheckResult[] = [];
  const s = createScheduler({ ...h.options, submit: (r) => queued.push(r), needsRetry: (k) => soft.has(k) });
  s.applyConfig(fixtureConfig([{ host: "h", service: "s", schedule: { retryIntervalMs: 15_000 } }]));
  s.start();
  const t0 = clock.now();
  assert.equal(s.checkNow("h!s"), true);
  await runFor(clock, 1_000);
  assert.equal(queued.length, 1);
  const onGrid = slotAtOrAfter("h!s", 60_000, t0 + 30_000);
  assert.equal(s.nextRunAt("h!s"), onGrid, "the answer at submit time was still 'not soft'");
  soft.add("h!s"); // the engine applied the CRITICAL result: soft 1/3
  s.resultApplied("h!s");
  assert.equal(s.nextRunAt("h!s"), t0 + 15_000);
  s.resultApplied("h!s");
  assert.equal(s.nextRunAt("h!s"), t0 + 15_000, "asking again changes nothing");
  soft.delete("h!s");
  s.resultApplied("h!s");
  assert.equal(s.nextRunAt("h!s"), onGrid);
  assert.equal(s.checkNow("nope"), false);
  await s.stop();
});

test("a slow start-up does not turn into a burst", async () => {
  const objects = Array.from({ length: 600 }, (_, i) => ({ host: "h", service: `svc${i}` }));
  const clock = new FakeClock();
  const h = createHarness({ clock });
  const s = createScheduler(h.options);
  s.applyConfig(fixtureConfig(objects));
  clock.advance(20_000); // loading the rest of the app took 20 s
  const t1 = clock.now();
  s.start();
  await runFor(clock, 59_999, 1_000);
  assert.equal(h.results.length, 600, "each object ran once in the first interval after start");
  const firstSecond = h.results.filter((r) => r.checkedAt < t1 + 1_000).length;
  assert.ok(firstSecond <= 25, `${firstSecond} runs in the first second (mean 10)`);
  await s.stop();
});

test("overdue checks that settle at once do not starve the event loop", async () => {
  const objects = Array.from({ length: 1_000 }, (_, i) => ({
    host: "h",
    service: `svc${i}`,
    schedule: { timeoutMs: 120_000 }, // no timeout may fire inside the one long advance below
  }));
  const clock = new FakeClock();
  const h = createHarness({ clock, concurrency: 10 });
  const s = createScheduler(h.options);
  s.applyConfig(fixtureConfig(objects));
  s.start();
  clock.advance(60_000); // the process stalled for a minute: every object is overdue
  await new Promise<void>((r) => setImmediate(r));
  assert.ok(h.results.length <= 10, `${h.results.length} runs chained in one turn of the event loop`);
  await runFor(clock, 1_000, 1);
  assert.equal(new Set(h.results.map((r) => r.service)).size, 1_000, "the backlog drains a batch per turn");
  await s.stop();
});

test("a backlog drains in batches, yielding the event loop between them", async () => {
  const objects = Array.from({ length: 2_000 }, (_, i) => ({ host: "h", service: `svc${i}` }));
  const clock = new FakeClock();
  const h = createHarness({ clock, concurrency: 10_000 });
  // A clock that can jump (a stalled process, a suspended VM) and counts the runs each timer
  // callback starts.
  let skew = 0;
  const perCallback: number[] = [];
  const stalling: Clock = {
    now: () => clock.now() + skew,
    setTimer: (ms, fn) =>
      clock.setTimer(ms, () => {
        const before = h.seen.length;
        fn();
        perCallback.push(h.seen.length - before);
      }),
  };
  const s = createScheduler({ ...h.options, clock: stalling });
  s.applyConfig(fixtureConfig(objects));
  s.start();
  await runFor(clock, 60_000, 1_000);
  assert.ok(Math.max(...perCallback) < 10, "in steady state a callback starts a handful");
  perCallback.length = 0;
  const ranBefore = h.results.length;
  skew = 120_000; // the process stalls for two minutes: every object is overdue at once
  await runFor(clock, 100, 1);
  assert.equal(new Set(h.results.slice(ranBefore).map((r) => r.service)).size, 2_000, "all caught up");
  assert.equal(Math.max(...perCallback), MAX_STARTS_PER_TURN);
  await s.stop();
});

test("an interval longer than a Node timer can hold does not spin", async () => {
  const clock = new FakeClock();
  const armed: number[] = [];
  const h = createHarness({ clock });
  const recording: Clock = {
    now: () => clock.now(),
    setTimer: (ms, fn) => {
      armed.push(ms);
      return clock.setTimer(ms, fn);
    },
  };
  const s = createScheduler({ ...h.options, clock: recording });
  const thirtyDays = 30 * 86_400_000;
  // A timeout longer than the day-long fake steps below, so the instant check settles first.
  const schedule = { checkIntervalMs: thirtyDays, timeoutMs: 2 * 86_400_000 };
  s.applyConfig(fixtureConfig([{ host: "h", service: "s", schedule }]));
  s.start();
  assert.equal(s.checkNow("h!s"), true);
  await runFor(clock, 1_000);
  assert.equal(h.results.length, 1);
  assert.ok(Math.max(...armed) <= 2_147_483_647, `longest timer ${Math.max(...armed)} ms`);
  await runFor(clock, thirtyDays, 86_400_000);
  assert.equal(h.results.length, 2, "it still runs once a month");
  assert.ok(armed.length < 10, `${armed.length} timers armed`);
  await s.stop();
});

test("route: runs handed elsewhere hold no slot, keep the grid, and the rest run here", async () => {
  const objects = Array.from({ length: 40 }, (_, i) => ({ host: `h${i}`, service: "s" }));
  const clock = new FakeClock();
  const t0 = clock.now();
  const h = createHarness({ clock, behave: () => ({ status: 0, takesMs: 0 }) });
  const routed: { key: string; due: number }[] = [];
  const s = createScheduler({
    ...h.options,
    // Even-numbered hosts are in another zone; a throwing route runs the check here.
    route: (plan, due) => {
      if (plan.host === "h1") throw new Error("broken hook");
      if (Number(plan.host.slice(1)) % 2 !== 0) return false;
      routed.push({ key: plan.key, due });
      return true;
    },
  });
  s.applyConfig(fixtureConfig(objects));
  s.start();
  await runFor(clock, 120_000, 1_000);
  assert.equal(routed.length, 40, "20 remote objects, twice each");
  for (const r of routed) assert.equal(r.due, slotAtOrAfter(r.key, 60_000, r.due), "due on the grid");
  assert.equal(h.results.length, 40, "20 local objects (h1 among them), twice each, ran here");
  assert.ok(h.results.every((r) => Number(r.host.slice(1)) % 2 === 1));
  const key = "h0!s";
  assert.equal(s.nextRunAt(key), slotAtOrAfter(key, 60_000, t0 + 120_000));
  await s.stop();
});

test("catchUpMs: a taking-over leader runs at once what fell due in the window, then keeps the grid", async () => {
  const objects = Array.from({ length: 600 }, (_, i) => ({ host: "h", service: `svc${i}` }));
  for (const catchUpMs of [0, 10_000]) {
    const clock = new FakeClock();
    const t0 = clock.now();
    const h = createHarness({ clock });
    const s = createScheduler({ ...h.options, catchUpMs });
    s.applyConfig(fixtureConfig(objects));
    s.start();
    await runFor(clock, 1, 1);
    const missed = objects.filter((o) => {
      const key = `h!${o.service}`;
      return slotAtOrAfter(key, 60_000, t0 - catchUpMs) < t0;
    }).length;
    assert.equal(h.results.length, missed, `catchUpMs ${catchUpMs}: runs at once`);
    if (catchUpMs > 0) assert.ok(missed > 50 && missed < 150, `${missed} of 600 in a 10 s window of 60 s`);
    await runFor(clock, 59_999, 1_000);
    for (const o of objects) {
      const key = `h!${o.service}`;
      assert.equal(s.nextRunAt(key), slotAtOrAfter(key, 60_000, t0 + 60_000), `${key} back on its grid`);
    }
    await s.stop();
  }
});

test("catchUpMs: the run at once carries the newest passed slot, even when older ones are in the window", async () => {
  // A 10 s interval and a 25 s window: two or three slots passed in it; one run, for the newest.
  const objects = Array.from({ length: 50 }, (_, i) => ({
    host: `h${i}`,
    service: "s",
    schedule: { checkIntervalMs: 10_000, retryIntervalMs: 10_000 },
  }));
  const clock = new FakeClock();
  const t0 = clock.now();
  const h = createHarness({ clock });
  const routed: { key: string; due: number; at: number }[] = [];
  const s = createScheduler({
    ...h.options,
    catchUpMs: 25_000,
    route: (plan, due) => {
      routed.push({ key: plan.key, due, at: clock.now() });
      return true;
    },
  });
  s.applyConfig(fixtureConfig(objects));
  s.start();
  await runFor(clock, 1, 1);
  assert.equal(routed.length, 50, "each object once at once");
  for (const r of routed) {
    assert.equal(r.at, t0);
    assert.equal(r.due, slotAtOrBefore(r.key, 10_000, t0), `${r.key}: the newest slot`);
  }
  await runFor(clock, 10_000, 1_000);
  assert.equal(routed.length, 100, "then once a slot");
  for (const r of routed.slice(50))
    assert.equal(r.due, slotAtOrAfter(r.key, 10_000, t0), `${r.key}: on its grid`);
  await s.stop();
});

test("a scheduler started again on the same registry (a leader that won its lease back) counts into the same metrics", async () => {
  const { Registry } = await import("prom-client");
  const registry = new Registry();
  const objects = [{ host: "h", service: "s" }];
  const total = async () =>
    (await registry.getMetricsAsJSON())
      .find((m) => m.name === "lookout_checks_total")
      ?.values.reduce((n, v) => n + v.value, 0) ?? 0;
  for (const round of [1, 2]) {
    const clock = new FakeClock();
    const h = createHarness({ clock });
    // The second createScheduler threw "already registered" before: the leader then held its lease
    // and scheduled nothing.
    const s = createScheduler({ ...h.options, metrics: registry });
    s.applyConfig(fixtureConfig(objects));
    s.start();
    await runFor(clock, 60_000, 1_000);
    assert.equal(h.results.length, 1, `round ${round} ran its check`);
    assert.equal(await total(), round);
    await s.stop();
  }
});
