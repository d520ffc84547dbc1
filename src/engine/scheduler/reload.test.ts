import assert from "node:assert/strict";
import { test } from "node:test";
import { objectKey } from "../../model/object-ref.js";
import { FakeClock } from "../../testing/fake-clock.js";
import type { ApplySummary } from "./api.js";
import { createHarness, type FixtureObject, fixtureConfig, runFor } from "./fixtures.js";
import { createScheduler } from "./scheduler.js";

const N = 300;
const base: FixtureObject[] = Array.from({ length: N }, (_, i) => ({
  host: `h${i % 30}`,
  service: `svc${i}`,
  address: "127.0.0.1",
}));
const keyOfObj = (o: FixtureObject) => objectKey(o);

/**
 * Icinga 2 loses checks for about 38 s after a reload and then runs them all at once
 * (Icinga/icinga2#11016). Lookout keeps every unchanged check's next run time, so across a reload
 * each object's runs stay exactly one interval apart and no second sees more starts than before.
 */
test("reload: no lost checks and no burst (Icinga/icinga2#11016)", async (t) => {
  const cases: {
    name: string;
    next: () => FixtureObject[];
    summary: ApplySummary;
    /** Keys whose runs must stay exactly 60 s apart across the reload. */
    steady: (key: string) => boolean;
    /** Per key, whether it must run after the reload. */
    runsAfter?: Record<string, boolean>;
    /** The interval after the reload, for the burst check. */
    intervalAfter?: number;
  }[] = [
    {
      name: "an identical config (new objects, same content)",
      next: () => base.map((o) => ({ ...o })),
      summary: { added: 0, changed: 0, removed: 0, unchanged: N },
      steady: () => true,
    },
    {
      name: "labels edited everywhere: not part of how a check runs",
      next: () => base.map((o) => ({ ...o, labels: { team: "ops" } })),
      summary: { added: 0, changed: 0, removed: 0, unchanged: N },
      steady: () => true,
    },
    {
      name: "one changed, one removed, one added",
      next: () => [
        ...base.slice(2),
        { ...base[0]!, probe: { type: "tcp", address: "127.0.0.1:8080" } },
        { host: "h-new", service: "svc-new" },
      ],
      summary: { added: 1, changed: 1, removed: 1, unchanged: N - 2 },
      steady: (key) => key !== "h0!svc0" && key !== "h1!svc1" && key !== "h-new!svc-new",
      runsAfter: { "h0!svc0": true, "h1!svc1": false, "h-new!svc-new": true },
    },
    {
      name: "every interval changed: all re-slotted on the new grid, still no burst",
      next: () => base.map((o) => ({ ...o, schedule: { checkIntervalMs: 30_000 } })),
      summary: { added: 0, changed: N, removed: 0, unchanged: 0 },
      steady: () => false,
      intervalAfter: 30_000,
    },
  ];
  for (const c of cases) {
    await t.test(c.name, async () => {
      const clock = new FakeClock();
      const t0 = clock.now();
      const h = createHarness({ clock });
      const s = createScheduler(h.options);
      s.applyConfig(fixtureConfig(base));
      s.start();
      await runFor(clock, 150_000, 1_000);
      const reloadAt = clock.now();
      const before = new Map(base.map((o) => [keyOfObj(o), s.nextRunAt(keyOfObj(o))]));

      assert.deepEqual(s.applyConfig(fixtureConfig(c.next())), c.summary);
      for (const [key, next] of before) if (c.steady(key)) assert.equal(s.nextRunAt(key), next, key);

      await runFor(clock, 150_000, 1_000);
      const starts = new Map<string, number[]>();
      for (const r of h.results) starts.set(objectKey(r), [...(starts.get(objectKey(r)) ?? []), r.checkedAt]);
      for (const [key, xs] of starts) {
        if (!c.steady(key)) continue;
        const gaps = xs.slice(1).map((x, i) => x - xs[i]!);
        assert.ok(
          gaps.every((g) => g === 60_000),
          `${key}: gaps ${gaps.join(",")}`,
        );
        assert.equal(xs.length, 5, `${key} ran every minute for 5 minutes`);
      }
      for (const [key, want] of Object.entries(c.runsAfter ?? {})) {
        const ranAfter = (starts.get(key) ?? []).some((x) => x >= reloadAt);
        assert.equal(ranAfter, want, key);
      }

      const perSecond = (from: number, to: number) => {
        const counts = new Array<number>(Math.ceil((to - from) / 1000)).fill(0);
        for (const r of h.results)
          if (r.checkedAt >= from && r.checkedAt < to) counts[Math.floor((r.checkedAt - from) / 1000)]!++;
        return counts;
      };
      const beforeCounts = perSecond(t0, reloadAt);
      const afterCounts = perSecond(reloadAt, reloadAt + 150_000);
      const mean = N / ((c.intervalAfter ?? 60_000) / 1000);
      assert.ok(
        Math.max(...afterCounts) <= Math.max(Math.max(...beforeCounts), 3 * mean),
        `busiest second after reload ${Math.max(...afterCounts)}, before ${Math.max(...beforeCounts)}`,
      );
      const firstInterval = afterCounts
        .slice(0, (c.intervalAfter ?? 60_000) / 1000)
        .reduce((a, b) => a + b, 0);
      assert.equal(
        firstInterval,
        s.size,
        "each object runs exactly once in the first interval after the reload",
      );
      await s.stop();
    });
  }
});

test("reload aborts runs of removed and changed objects and drops their results", async () => {
  const clock = new FakeClock();
  const h = createHarness({ clock, behave: () => ({ status: 0, takesMs: 30_000 }) });
  const s = createScheduler(h.options);
  const objects: FixtureObject[] = ["gone", "edited", "kept"].map((x) => ({
    host: "h",
    service: x,
    schedule: { timeoutMs: 40_000 },
  }));
  s.applyConfig(fixtureConfig(objects));
  s.start();
  for (const o of objects) s.checkNow(keyOfObj(o));
  await runFor(clock, 5_000, 1_000);
  assert.equal(s.inFlight, 3);
  const summary = s.applyConfig(
    fixtureConfig([{ ...objects[1]!, probe: { type: "tcp", address: "127.0.0.1:81" } }, objects[2]!]),
  );
  assert.deepEqual(summary, { added: 0, changed: 1, removed: 1, unchanged: 1 });
  const signal = (key: string) => h.seen.find((r) => r.key === key)!.signal;
  for (const key of ["h!gone", "h!edited"]) {
    assert.equal(signal(key).aborted, true, key);
    assert.equal((signal(key).reason as DOMException).name, "AbortError");
  }
  assert.equal(signal("h!kept").aborted, false);
  await runFor(clock, 30_000, 1_000);
  assert.deepEqual(
    h.results.map((r) => [objectKey(r), r.output]),
    [["h!kept", "fake 0"]],
    "only the unchanged object's run reports; aborted runs are dropped",
  );
  assert.equal(s.size, 2);
  assert.equal(s.nextRunAt("h!gone"), undefined);
  await s.stop();
});

test("stop aborts runs in flight, drops their results and runs nothing more", async () => {
  const clock = new FakeClock();
  const h = createHarness({ clock, behave: () => ({ status: 0, takesMs: 30_000 }) });
  const s = createScheduler(h.options);
  s.applyConfig(fixtureConfig(base.slice(0, 20)));
  s.start();
  s.checkNow(keyOfObj(base[0]!));
  assert.equal(s.inFlight, 1);
  await s.stop();
  assert.equal(h.seen[0]!.signal.aborted, true);
  assert.equal(s.inFlight, 0);
  await runFor(clock, 86_400_000, 60_000);
  assert.equal(h.seen.length, 1, "nothing ran after stop");
  assert.equal(h.results.length, 0, "the aborted run's result was dropped");
  assert.equal(clock.pending(), 0, "stop left no timer behind");
  assert.throws(() => s.start(), /stopped/);
});
