import assert from "node:assert/strict";
import { test } from "node:test";
import { runScenario } from "./runner.js";

const CONFIG = "config\n  host web\n  service web/http max_attempts=2\n";

// The runner must be able to fail: each case names the lines that must be reported.
test("runner reports failing lines", () => {
  const cases: { name: string; body: string; lines: number[]; message?: RegExp }[] = [
    {
      name: "passing",
      body: "at 0s result web/http critical\nexpect web/http CRITICAL SOFT 1/2\n",
      lines: [],
    },
    {
      name: "wrong state",
      body: "at 0s result web/http ok\nexpect web/http CRITICAL\n",
      lines: [5],
      message: /is OK HARD 1\/2/,
    },
    { name: "wrong type", body: "result web/http warning\nexpect web/http HARD\n", lines: [5] },
    {
      name: "missing event",
      body: "result web/http ok\nexpect event StateChange web/http CRITICAL\n",
      lines: [5],
    },
    { name: "unwanted event", body: "result web/http ok\nexpect no event StateChange\n", lines: [5] },
    { name: "unknown statement", body: "frobnicate\n", lines: [4], message: /unknown statement/ },
    { name: "time going back", body: "at 1m\nat 30s\n", lines: [5], message: /back in time/ },
    { name: "unknown object", body: "expect web/nope OK\n", lines: [4], message: /no object/ },
    { name: "bad config line", body: "config\n  host a bogus\n", lines: [4], message: /key=value/ },
    { name: "flapping", body: "result web/http ok\nexpect flapping web/http\n", lines: [5] },
    { name: "wakeup", body: "expect wakeup 5m\n", lines: [4], message: /next wakeup none/ },
  ];
  for (const c of cases) {
    const failures = runScenario(CONFIG + c.body);
    assert.deepEqual(
      failures.map((f) => f.line),
      c.lines,
      `${c.name}: ${JSON.stringify(failures)}`,
    );
    if (c.message !== undefined) assert.match(failures[0]?.message ?? "", c.message, c.name);
  }
});
