import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { Registry } from "prom-client";
import { createTcpChecker } from "../../checks/tcp/index.js";
import type { CheckResult } from "../../model/check-result.js";
import { systemClock } from "../../model/clock.js";
import { objectKey } from "../../model/object-ref.js";
import { closedTcpPort, type Peer, startTcpBlackhole, startTcpListener } from "../../testing/peers/tcp.js";
import { fixtureConfig } from "./fixtures.js";
import { createScheduler } from "./scheduler.js";
import { slotAtOrBefore } from "./slots.js";

let open: Peer;
let hole: Peer;
let closedPort: number;

before(async () => {
  open = await startTcpListener();
  hole = await startTcpBlackhole();
  closedPort = await closedTcpPort();
});
after(async () => {
  await open.stop();
  await hole.stop();
});

/** The real tcp checker on the real clock, against loopback peers: what a user runs. */
test("real tcp checks on the real clock", async () => {
  const results: CheckResult[] = [];
  const registry = new Registry();
  const s = createScheduler({
    clock: systemClock,
    checkers: new Map([["tcp", createTcpChecker()]]),
    submit: (r) => results.push(r),
    needsRetry: () => false,
    concurrency: 10,
    metrics: registry,
  });
  const schedule = { checkIntervalMs: 1_000, timeoutMs: 500 };
  s.applyConfig(
    fixtureConfig([
      { host: "h", service: "open", probe: { type: "tcp", address: open.address }, schedule },
      { host: "h", service: "closed", probe: { type: "tcp", address: `127.0.0.1:${closedPort}` }, schedule },
      { host: "h", service: "hole", probe: { type: "tcp", address: hole.address }, schedule },
    ]),
  );
  const t0 = Date.now();
  s.start();
  await sleep(3_500);
  await s.stop();
  assert.equal(s.inFlight, 0, "every aborted connect settled");

  const cases: { key: string; status: number; output: RegExp; maxMs: number }[] = [
    {
      key: "h!open",
      status: 0,
      output: /^TCP OK - .* second response time on 127\.0\.0\.1 port \d+$/,
      maxMs: 400,
    },
    {
      key: "h!closed",
      status: 2,
      output: /^TCP CRITICAL - connect to 127\.0\.0\.1 port \d+: /,
      maxMs: 1_000,
    },
    { key: "h!hole", status: 2, output: /^CRITICAL - check timed out after 500ms$/, maxMs: 1_500 },
  ];
  for (const c of cases) {
    const mine = results.filter((r) => objectKey(r) === c.key);
    assert.ok(mine.length >= 2, `${c.key}: ${mine.length} runs in 3.5 s at a 1 s interval`);
    for (const r of mine) {
      assert.equal(r.exitStatus, c.status, `${c.key}: ${r.output}`);
      assert.match(r.output, c.output);
      assert.equal(r.source, "active");
      assert.ok(r.checkedAt >= t0 && r.durationMs <= c.maxMs, `${c.key}: took ${r.durationMs} ms`);
      if (c.key === "h!hole") assert.ok(r.durationMs >= 500);
    }
    // Every run starts on the object's 1 s grid, give or take lateness (loose for a loaded machine),
    // and no slot runs twice.
    const slots = mine.map((r) => slotAtOrBefore(c.key, 1_000, r.checkedAt));
    for (const [i, r] of mine.entries()) {
      assert.ok(r.checkedAt - slots[i]! < 500, `${c.key}: ${r.checkedAt - slots[i]!} ms late`);
    }
    assert.equal(new Set(slots).size, slots.length);
  }
  const text = await registry.metrics();
  assert.match(text, /^lookout_checks_total\{type="tcp",result="timeout"\} [2-9]$/m);
  assert.match(text, /^lookout_checks_total\{type="tcp",result="ok"\} [2-9]$/m);
});
