import assert from "node:assert/strict";
import { test } from "node:test";
import type { Config } from "../../model/config.js";
import { objectKey } from "../../model/object-ref.js";
import { FakeClock } from "../../testing/fake-clock.js";
import type { ApplySummary, PreparedSchedule, Scheduler } from "./api.js";
import { createHarness, type FakeBehaviour, type FixtureObject, fixtureConfig, runFor } from "./fixtures.js";
import { DIFF_STEP_OBJECTS } from "./schedule-diff.js";
import { createScheduler } from "./scheduler.js";

const N = 240;
const base: FixtureObject[] = Array.from({ length: N }, (_, i) =>
  i % 8 === 0 ? { host: `h${i}` } : { host: `h${i - (i % 8)}`, service: `svc${i}` },
);
const keys = (objects: readonly FixtureObject[]) => objects.map((o) => objectKey(o));
/** Every 5th object fails for a while, so some objects are on retry_interval at the reload. */
const flaky = (key: string, n: number): FakeBehaviour => ({
  status: key.length % 5 === 0 && n < 4 ? 2 : 0,
  takesMs: key.length % 3 === 0 ? 1_500 : 0,
});

/** What one scheduler did: each apply's summary, the next runs after it, the results and warnings. */
async function history(
  steps: readonly Config[],
  apply: (s: Scheduler, config: Config, i: number) => Promise<ApplySummary>,
  watch: readonly string[],
) {
  const clock = new FakeClock();
  const h = createHarness({ clock, behave: flaky, types: ["tcp", "dns"] });
  const s = createScheduler(h.options);
  const summaries: ApplySummary[] = [];
  const nextRuns: (number | undefined)[][] = [];
  for (const [i, config] of steps.entries()) {
    summaries.push(await apply(s, config, i));
    nextRuns.push(watch.map((k) => s.nextRunAt(k)));
    if (i === 0) s.start();
    await runFor(clock, 95_000, 500);
  }
  await s.stop();
  return {
    summaries,
    nextRuns,
    results: h.results.map((r) => `${objectKey(r)} ${r.checkedAt} ${r.exitStatus} ${r.durationMs}`),
    warnings: h.warnings,
    size: s.size,
  };
}

test("prepareConfig + applyPrepared schedules exactly like applyConfig", async (t) => {
  const cases: { name: string; next: FixtureObject[]; also?: FixtureObject[]; warns?: string }[] = [
    { name: "an identical config", next: base.map((o) => ({ ...o })) },
    { name: "labels edited: no change", next: base.map((o) => ({ ...o, labels: { team: "ops" } })) },
    {
      name: "some changed, removed and added",
      next: [
        ...base.slice(3, 200).map((o, i) => (i % 7 === 0 ? { ...o, address: "127.0.0.2" } : o)),
        { host: "h-new" },
        { host: "h-new", service: "svc-new" },
      ],
    },
    {
      name: "every interval changed",
      next: base.map((o) => ({ ...o, schedule: { checkIntervalMs: 30_000, retryIntervalMs: 10_000 } })),
    },
    {
      name: "two objects share a key: the first is scheduled, with a warning",
      next: [...base, { host: "h8!svc9", probe: { type: "tcp", address: "127.0.0.1:7" } }],
      warns: "two objects share one key; scheduling the first",
    },
    {
      name: "a check type without a checker",
      next: [...base, { host: "h0", service: "web", probe: { type: "http", url: "http://127.0.0.1:9/" } }],
      warns: "no checker for a check type in use; its runs report UNKNOWN",
    },
    { name: "everything removed", next: [] },
    {
      name: "another config applied while preparing: prepared against a stale schedule",
      next: base.slice(0, 120),
      also: [...base.slice(60), { host: "h-other" }],
    },
  ];
  const watch = [...new Set([...keys(base), "h-new", "h-new!svc-new", "h0!web", "h-other"])];
  for (const c of cases) {
    await t.test(c.name, async () => {
      const steps = [fixtureConfig(base), ...(c.also ? [fixtureConfig(c.also)] : []), fixtureConfig(c.next)];
      const direct = await history(steps, async (s, config) => s.applyConfig(config), watch);
      let stale: Promise<PreparedSchedule> | undefined;
      const prepared = await history(
        steps,
        async (s, config, i) => {
          if (stale !== undefined) return s.applyPrepared(await stale);
          if (c.also === undefined || i !== 1) return s.applyPrepared(await s.prepareConfig(config));
          // The next config is prepared against the schedule before this one is applied.
          stale = s.prepareConfig(steps[2]!);
          return s.applyConfig(config);
        },
        watch,
      );
      assert.deepEqual(prepared.summaries, direct.summaries);
      assert.deepEqual(prepared.nextRuns, direct.nextRuns);
      assert.deepEqual(prepared.results, direct.results);
      assert.deepEqual(prepared.warnings, direct.warnings);
      assert.equal(prepared.size, direct.size);
      assert.ok(direct.results.length > N, "the schedule ran");
      if (c.warns !== undefined) assert.ok(direct.warnings.includes(c.warns), direct.warnings.join("; "));
    });
  }
});

const PASSIVE: FixtureObject["probe"] = {
  type: "passive",
  freshnessThresholdMs: 60_000,
  staleStatus: "UNKNOWN",
};
/** `hosts` hosts, each with its own check and `services` services. */
const fleet = (hosts: number, services: number, probe?: FixtureObject["probe"]): FixtureObject[] =>
  Array.from({ length: hosts }, (_, h) => [
    { host: `h${h}`, ...(probe ? { probe } : {}) },
    ...Array.from({ length: services }, (_, s) => ({
      host: `h${h}`,
      service: `s${s}`,
      ...(probe ? { probe } : {}),
    })),
  ]).flat();

test("prepareConfig works in steps of at most DIFF_STEP_OBJECTS objects and changes nothing", async (t) => {
  const S = DIFF_STEP_OBJECTS;
  const cases: {
    name: string;
    before: FixtureObject[];
    next: FixtureObject[];
    steps: number[];
    summary: ApplySummary;
  }[] = [
    {
      name: "5,500 objects onto an empty schedule",
      before: [],
      next: fleet(500, 10),
      steps: [S, S, 5_500 - 2 * S],
      summary: { added: 5_500, changed: 0, removed: 0, unchanged: 0 },
    },
    {
      name: "the same 5,500 again: the schedule's entries are looked at too",
      before: fleet(500, 10),
      next: fleet(500, 10),
      steps: [S, S, S, S, S, 11_000 - 5 * S],
      summary: { added: 0, changed: 0, removed: 0, unchanged: 5_500 },
    },
    {
      name: "one host with 4,500 passive services: passive objects count, one host cannot make a long step",
      before: fleet(1, 10),
      next: fleet(1, 4_500, PASSIVE),
      steps: [S, S, 4_501 + 11 - 2 * S],
      summary: { added: 0, changed: 0, removed: 11, unchanged: 0 },
    },
    {
      name: "an empty config removes everything",
      before: fleet(10, 10),
      next: [],
      steps: [110],
      summary: { added: 0, changed: 0, removed: 110, unchanged: 0 },
    },
  ];
  for (const c of cases) {
    await t.test(c.name, async () => {
      const clock = new FakeClock();
      const h = createHarness({ clock });
      const steps: number[] = [];
      const s = createScheduler({
        ...h.options,
        diffStep: async (n) => {
          steps.push(n);
          // Between steps the schedule is still the old one, and it keeps running.
          assert.equal(s.size, c.before.length);
          assert.deepEqual(
            watch.map((k) => s.nextRunAt(k)),
            before,
          );
          await runFor(clock, 0);
        },
      });
      const watch = keys(c.before).filter((_, i) => i % 97 === 0);
      s.applyConfig(fixtureConfig(c.before));
      const before = watch.map((k) => s.nextRunAt(k));
      s.start();
      const p = await s.prepareConfig(fixtureConfig(c.next));
      assert.deepEqual(steps, c.steps);
      assert.ok(steps.every((n) => n <= S));
      assert.equal(p.objects, c.before.length + c.next.length);
      assert.deepEqual(s.applyPrepared(p), c.summary);
      assert.equal(s.size, c.summary.added + c.summary.changed + c.summary.unchanged);
      await s.stop();
    });
  }
});
