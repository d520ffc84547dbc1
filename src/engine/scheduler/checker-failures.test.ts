import assert from "node:assert/strict";
import { test } from "node:test";
import type { CheckOutcome, CheckResult } from "../../model/check-result.js";
import type { Checker } from "../../model/checker.js";
import type { CheckType } from "../../model/config.js";
import { FakeClock } from "../../testing/fake-clock.js";
import type { SchedulerOptions } from "./api.js";
import { createHarness, fixtureConfig, runFor } from "./fixtures.js";
import { createScheduler } from "./scheduler.js";

const checker = (run: Checker["run"]): Checker => ({ type: "tcp", run });

/** Broken checkers and broken hooks: each is reported as data or a warning, never a crash or a stall. */
test("contract breaches are contained", async (t) => {
  const cases: {
    name: string;
    checkers?: ReadonlyMap<CheckType, Checker>;
    override?: (o: SchedulerOptions, results: CheckResult[]) => Partial<SchedulerOptions>;
    /** Results of the first two runs of the one object. */
    want: { exitStatus: number; output: string }[];
    warning: RegExp;
  }[] = [
    {
      name: "no checker for the type: UNKNOWN each run",
      checkers: new Map(),
      want: [
        { exitStatus: 3, output: 'UNKNOWN - no checker is available for check type "tcp"' },
        { exitStatus: 3, output: 'UNKNOWN - no checker is available for check type "tcp"' },
      ],
      warning: /no checker/,
    },
    {
      name: "a checker that throws synchronously",
      checkers: new Map([
        [
          "tcp",
          checker(() => {
            throw new Error("boom");
          }),
        ],
      ]),
      want: [
        { exitStatus: 3, output: "UNKNOWN - tcp checker failed: boom" },
        { exitStatus: 3, output: "UNKNOWN - tcp checker failed: boom" },
      ],
      warning: /contract/,
    },
    {
      name: "a checker that rejects",
      checkers: new Map([["tcp", checker(() => Promise.reject(new Error("nope")))]]),
      want: [
        { exitStatus: 3, output: "UNKNOWN - tcp checker failed: nope" },
        { exitStatus: 3, output: "UNKNOWN - tcp checker failed: nope" },
      ],
      warning: /contract/,
    },
    {
      name: "a checker that returns an invalid exit status",
      checkers: new Map([
        [
          "tcp",
          checker(() =>
            Promise.resolve({
              exitStatus: 7,
              output: "x",
              longOutput: "",
              perfdata: [],
            } as unknown as CheckOutcome),
          ),
        ],
      ]),
      want: [
        { exitStatus: 3, output: "UNKNOWN - tcp checker failed: invalid exit status 7" },
        { exitStatus: 3, output: "UNKNOWN - tcp checker failed: invalid exit status 7" },
      ],
      warning: /contract/,
    },
    {
      name: "submit throws: logged, and the schedule goes on",
      override: (o, results) => ({
        submit(r) {
          o.submit(r);
          results.push(r);
          throw new Error("sink full");
        },
      }),
      want: [
        { exitStatus: 0, output: "fake 0" },
        { exitStatus: 0, output: "fake 0" },
      ],
      warning: /submit threw/,
    },
    {
      name: "needsRetry throws: logged, and the object stays on check_interval",
      override: () => ({
        needsRetry() {
          throw new Error("projection down");
        },
      }),
      want: [
        { exitStatus: 0, output: "fake 0" },
        { exitStatus: 0, output: "fake 0" },
      ],
      warning: /needsRetry threw/,
    },
  ];
  for (const c of cases) {
    await t.test(c.name, async () => {
      const clock = new FakeClock();
      const h = createHarness({ clock, maxAttempts: 1 });
      const thrown: CheckResult[] = [];
      const opts: SchedulerOptions = {
        ...h.options,
        ...(c.checkers ? { checkers: c.checkers } : {}),
        ...(c.override?.(h.options, thrown) ?? {}),
      };
      const s = createScheduler(opts);
      s.applyConfig(fixtureConfig([{ host: "h", service: "s" }]));
      s.start();
      await runFor(clock, 120_000, 1_000);
      const results = [...h.results];
      assert.deepEqual(
        results.slice(0, 2).map((r) => ({ exitStatus: r.exitStatus, output: r.output })),
        c.want,
      );
      assert.equal(results.length, 2, "ran on check_interval: twice in two minutes");
      assert.equal(s.inFlight, 0);
      assert.ok(
        h.warnings.some((w) => c.warning.test(w)),
        h.warnings.join("; "),
      );
      await s.stop();
    });
  }
});

test("concurrency must be a positive integer", async (t) => {
  const clock = new FakeClock();
  for (const concurrency of [0, -1, 1.5, Number.NaN]) {
    await t.test(String(concurrency), () => {
      assert.throws(() => createScheduler({ ...createHarness({ clock }).options, concurrency }), RangeError);
    });
  }
});
