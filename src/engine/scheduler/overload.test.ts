import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { Registry } from "prom-client";
import { FakeClock } from "../../testing/fake-clock.js";
import { createHarness, fixtureConfig, runFor } from "./fixtures.js";
import { createScheduler } from "./scheduler.js";

interface Line {
  readonly level: "warn" | "info";
  readonly message: string;
  readonly fields: Readonly<Record<string, unknown>>;
}

const gaugeOf = (text: string, name: string): number => {
  const m = new RegExp(`^${name} (\\S+)$`, "m").exec(text);
  assert.ok(m, `${name} not exported`);
  return Number(m[1]);
};

const cases: {
  name: string;
  objects: number;
  intervalMs: number;
  takesMs: number;
  concurrency: number;
  /** Demand and the rate the slots allow, in checks per second. */
  demand: number;
  capacity: number;
  behind: boolean;
}[] = [
  // 40 objects every 10 s ask for 4 checks/s; 2 slots of 1 s checks start 2/s.
  {
    name: "twice what the slots can run",
    objects: 40,
    intervalMs: 10_000,
    takesMs: 1_000,
    concurrency: 2,
    demand: 4,
    capacity: 2,
    behind: true,
  },
  // 10 objects every 10 s ask for 1 check/s, well within 2/s.
  {
    name: "half of what the slots can run",
    objects: 10,
    intervalMs: 10_000,
    takesMs: 1_000,
    concurrency: 2,
    demand: 1,
    capacity: 2,
    behind: false,
  },
];

describe("scheduler under overload", () => {
  for (const c of cases) {
    it(c.name, async () => {
      const clock = new FakeClock();
      const registry = new Registry();
      const lines: Line[] = [];
      const h = createHarness({
        clock,
        registry,
        concurrency: c.concurrency,
        behave: () => ({ status: 0, takesMs: c.takesMs }),
      });
      const s = createScheduler({
        ...h.options,
        logger: {
          warn: (message, fields = {}) => lines.push({ level: "warn", message, fields }),
          info: (message, fields = {}) => lines.push({ level: "info", message, fields }),
        },
      });
      const objects = Array.from({ length: c.objects }, (_, i) => ({
        host: "h",
        service: `s${i}`,
        schedule: { checkIntervalMs: c.intervalMs, timeoutMs: 5_000 },
      }));
      s.applyConfig(fixtureConfig(objects));
      s.start();
      await runFor(clock, 30_000, 100); // settle into the steady state
      const from = clock.now();
      const seenBefore = h.seen.length;
      await runFor(clock, 120_000, 100);
      const text = await registry.metrics();
      const behind = lines.filter((l) => l.message === "active checks are due faster than they can run");
      if (c.behind) {
        assert.ok(behind.length >= 1, "the shortfall is logged");
        assert.ok(behind.length <= 3, `logged at most once a minute, got ${behind.length}`);
        const f = behind.at(-1)?.fields ?? {};
        assert.equal(f.demandPerSecond, c.demand);
        assert.ok(
          Math.abs(Number(f.startedPerSecond) - c.capacity) <= 0.3,
          `started ${f.startedPerSecond}/s`,
        );
        assert.ok(
          Math.abs(Number(f.shortfallPerSecond) - (c.demand - c.capacity)) <= 0.3,
          `shortfall ${f.shortfallPerSecond}`,
        );
        assert.equal(f.limit, "concurrency");
        assert.ok(
          Math.abs(gaugeOf(text, "lookout_schedule_shortfall_per_second") - (c.demand - c.capacity)) <= 0.3,
        );
        assert.ok(gaugeOf(text, "lookout_schedule_backlog") > 0);
        assert.ok(gaugeOf(text, "lookout_schedule_oldest_wait_seconds") > 1);
      } else {
        assert.deepEqual(behind, []);
        assert.equal(gaugeOf(text, "lookout_schedule_shortfall_per_second"), 0);
      }
      assert.ok(Math.abs(gaugeOf(text, "lookout_schedule_demand_per_second") - c.demand) < 1e-9);

      // Fairness: over the window every object ran, as often as every other give or take one, and
      // no object waited much longer than the queue takes to go round once.
      const window = h.seen.slice(seenBefore).filter((r) => r.startedAt >= from);
      const runs = new Map<string, number[]>();
      for (const r of window) runs.set(r.key, [...(runs.get(r.key) ?? []), r.startedAt]);
      assert.equal(runs.size, c.objects, "no object starved");
      const counts = [...runs.values()].map((t) => t.length);
      assert.ok(
        Math.max(...counts) - Math.min(...counts) <= 1,
        `runs per object ${Math.min(...counts)}..${Math.max(...counts)}`,
      );
      const round = Math.max(c.intervalMs, (c.objects / c.capacity) * 1000);
      for (const [key, t] of runs) {
        for (let i = 1; i < t.length; i++) {
          const gap = (t[i] as number) - (t[i - 1] as number);
          assert.ok(gap <= round + c.takesMs + 1_000, `${key} waited ${gap} ms between runs`);
        }
      }

      if (c.behind) {
        // Relief: with a quarter of the objects the scheduler catches up and says so once.
        s.applyConfig(fixtureConfig(objects.slice(0, c.objects / 4)));
        await runFor(clock, 60_000, 100);
        const recovered = lines.filter((l) => l.message === "active checks keep their schedule again");
        assert.equal(recovered.length, 1);
        assert.equal(recovered[0]?.level, "info");
        assert.equal(gaugeOf(await registry.metrics(), "lookout_schedule_shortfall_per_second"), 0);
      }
      await s.stop();
    });
  }
});
