import assert from "node:assert/strict";
import { test } from "node:test";
import { Registry } from "prom-client";
import { FakeClock } from "../../testing/fake-clock.js";
import { createHarness, type FakeBehaviour, fixtureConfig, runFor } from "./fixtures.js";
import { createScheduler } from "./scheduler.js";

const behaviours: Record<string, FakeBehaviour> = {
  "h!ok": { status: 0, takesMs: 1_000 },
  "h!warning": { status: 1, takesMs: 2_000 },
  "h!critical": { status: 2, takesMs: 0 },
  "h!unknown": { status: 3, takesMs: 0 },
  "h!timeout": { status: 0, takesMs: 60_000 },
  "h!web": { status: 0, takesMs: 0 },
};

test("metrics: what /metrics shows after a known set of runs", async () => {
  const clock = new FakeClock();
  const registry = new Registry();
  const h = createHarness({
    clock,
    registry,
    maxAttempts: 1,
    types: ["tcp", "http"],
    behave: (key) => behaviours[key]!,
  });
  const s = createScheduler(h.options);
  s.applyConfig(
    fixtureConfig([
      ...["ok", "warning", "critical", "unknown", "timeout"].map((x) => ({
        host: "h",
        service: x,
        schedule: { timeoutMs: 10_000 },
      })),
      { host: "h", service: "web", probe: { type: "http", url: "http://127.0.0.1/" } },
    ]),
  );
  s.start();
  for (const key of Object.keys(behaviours)) assert.equal(s.checkNow(key), true, key);
  await runFor(clock, 5_000, 1_000);
  const text0 = await registry.metrics();
  assert.match(text0, /^lookout_checks_in_flight 1$/m, "only the run that will time out is still going");
  assert.match(text0, /^lookout_checks_scheduled 6$/m);

  await runFor(clock, 10_000, 1_000);
  const text = await registry.metrics();
  const cases: [RegExp, string][] = [
    [/^lookout_checks_total\{type="tcp",result="ok"\} 1$/m, "ok"],
    [/^lookout_checks_total\{type="tcp",result="warning"\} 1$/m, "warning"],
    [/^lookout_checks_total\{type="tcp",result="critical"\} 1$/m, "critical"],
    [/^lookout_checks_total\{type="tcp",result="unknown"\} 1$/m, "unknown"],
    [/^lookout_checks_total\{type="tcp",result="timeout"\} 1$/m, "timeout counted apart from critical"],
    [/^lookout_checks_total\{type="http",result="ok"\} 1$/m, "per type"],
    [/^lookout_check_duration_seconds_count\{type="tcp"\} 5$/m, "duration per type"],
    [/^lookout_check_duration_seconds_sum\{type="tcp"\} 13$/m, "durations: 1 + 2 + 0 + 0 + 10 (the timeout)"],
    [/^lookout_check_duration_seconds_count\{type="http"\} 1$/m, "duration per type"],
    [/^lookout_schedule_lateness_seconds_count 6$/m, "one lateness sample per started run"],
    [/^lookout_schedule_lateness_seconds_sum 0$/m, "nothing waited: concurrency was ample"],
    [/^lookout_checks_in_flight 0$/m, "in flight back to zero"],
    [/^# TYPE lookout_schedule_skipped_total counter$/m, "skipped slots are exported"],
  ];
  for (const [re, why] of cases) assert.match(text, re, why);
  await s.stop();
});
