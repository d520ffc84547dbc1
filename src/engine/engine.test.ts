import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import type { Command } from "../model/commands.js";
import type { Config } from "../model/config.js";
import type { EngineEvent } from "../model/events.js";
import type { ExitStatus } from "../model/state.js";
import { FakeClock } from "../testing/fake-clock.js";
import { createEngine, restoreEngine } from "./engine.js";
import { buildConfig } from "./scenario/config-builder.js";
import { tokenize } from "./scenario/tokens.js";

const T0 = Date.UTC(2026, 0, 1);

function config(...lines: string[]): Config {
  return buildConfig(lines.map((l, i) => ({ text: tokenize(l), line: i + 1 })));
}

const CONFIG = config(
  "host core max_attempts=2 label.tier=net",
  "host web max_attempts=2 parents=core label.tier=web",
  "service web/http max_attempts=3 alpha=0.3 high=0.5 low=0.2",
  "service web/push check=passive freshness=2m stale=CRITICAL max_attempts=2",
  "host gw check=passive freshness=3m parents=core",
);
// A reload target: drops web/push and gw's passivity, adds db, moves web/http's settings.
const CONFIG2 = config(
  "host core max_attempts=1 label.tier=net",
  "host web max_attempts=3 parents=core label.tier=web",
  "service web/http max_attempts=2 flap=off",
  "host gw parents=core",
  "host db parents=web,core",
);
const KEYS = [
  { host: "core" },
  { host: "web" },
  { host: "web", service: "http" },
  { host: "web", service: "push" },
  { host: "gw" },
];

/** Random operator and result commands at non-decreasing times. */
const commandsArb = fc
  .array(
    fc.tuple(
      fc.integer({ min: 0, max: 90_000 }),
      fc.oneof(
        { weight: 6, arbitrary: fc.tuple(fc.constant("result" as const), fc.nat(4), fc.nat(3)) },
        { weight: 1, arbitrary: fc.tuple(fc.constant("ack" as const), fc.nat(4), fc.boolean()) },
        { weight: 1, arbitrary: fc.tuple(fc.constant("unack" as const), fc.nat(4), fc.boolean()) },
        { weight: 1, arbitrary: fc.tuple(fc.constant("downtime" as const), fc.nat(4), fc.nat(600)) },
        { weight: 1, arbitrary: fc.tuple(fc.constant("delete" as const), fc.nat(6), fc.boolean()) },
        { weight: 1, arbitrary: fc.tuple(fc.constant("tick" as const), fc.nat(1), fc.boolean()) },
        { weight: 1, arbitrary: fc.tuple(fc.constant("reload" as const), fc.nat(1), fc.boolean()) },
      ),
    ),
    { maxLength: 60 },
  )
  .map((steps) => {
    let at = T0;
    const out: Command[] = [{ type: "ApplyConfig", at, config: CONFIG }];
    for (const [dt, [kind, a, b]] of steps) {
      at += dt;
      const object = KEYS[a % KEYS.length] as (typeof KEYS)[number];
      switch (kind) {
        case "result":
          out.push({
            type: "ProcessCheckResult",
            at,
            result: {
              ...object,
              checkedAt: at,
              durationMs: 1,
              source: "active",
              exitStatus: b as number as ExitStatus,
              output: `status ${b}`,
              longOutput: "",
              perfdata: [],
            },
          });
          break;
        case "ack":
          out.push({
            type: "AcknowledgeProblem",
            at,
            target: { object },
            sticky: b as boolean,
            author: "a",
            comment: "",
          });
          break;
        case "unack":
          out.push({ type: "RemoveAcknowledgement", at, target: b ? { object } : { selector: "tier=web" } });
          break;
        case "downtime":
          out.push({
            type: "ScheduleDowntime",
            at,
            target: { object },
            start: at - 60_000 + (b as number) * 1000,
            end: at + (b as number) * 2000,
            author: "a",
            comment: "",
          });
          break;
        case "delete":
          out.push({ type: "DeleteDowntime", at, id: `dt-${a}` });
          break;
        case "tick":
          out.push({ type: "Tick", at });
          break;
        case "reload":
          out.push({ type: "ApplyConfig", at, config: b ? CONFIG2 : CONFIG });
          break;
      }
    }
    return out;
  });

const json = <T>(v: T): T => JSON.parse(JSON.stringify(v)) as T;

test("random command sequences keep the invariants and replay identically from any snapshot", () => {
  fc.assert(
    fc.property(commandsArb, fc.nat(), (commands, cut) => {
      const engine = createEngine();
      const events: EngineEvent[][] = [];
      for (const c of commands) {
        const out = engine.apply(c);
        // Events are plain JSON.
        assert.deepEqual(json(out), out);
        events.push(out);
        for (const key of engine.keys()) {
          const s = engine.status(key);
          assert.ok(s !== undefined);
          assert.ok(s.attempt >= 1 && s.attempt <= s.maxAttempts, `${key} attempt ${s.attempt}`);
          const good = s.state === "OK" || s.state === "UP" || s.state === "PENDING";
          if (good) assert.equal(s.stateType, "HARD", `${key} ${s.state} must be HARD`);
          if (s.stateType === "HARD" && !good) assert.equal(s.attempt, s.maxAttempts);
          if (s.acknowledgement !== null) assert.ok(!good, `${key} acknowledged while ${s.state}`);
          if (s.state === "UNREACHABLE") assert.ok(key !== "core", `${key} has no parents`);
          const active = engine.downtimes().some((d) => d.active && d.objects.includes(key));
          assert.equal(s.inDowntime, active, `${key} inDowntime`);
          assert.ok(s.flapPercent >= 0 && s.flapPercent <= 100);
        }
      }
      const wakeup = engine.nextWakeup();
      // Nothing is left overdue after a command.
      if (wakeup !== undefined) assert.ok(wakeup > (commands.at(-1)?.at ?? 0), `wakeup ${wakeup} overdue`);
      const k = 1 + (cut % commands.length);
      const first = createEngine();
      let configAtK: Config = CONFIG;
      for (const c of commands.slice(0, k)) {
        first.apply(c);
        if (c.type === "ApplyConfig") configAtK = c.config;
      }
      const second = restoreEngine(json(first.snapshot()), configAtK);
      for (let i = k; i < commands.length; i++) {
        assert.deepEqual(
          second.apply(commands[i] as Command),
          events[i],
          `command ${i} after restore at ${k}`,
        );
      }
      assert.deepEqual(second.snapshot(), engine.snapshot());
    }),
    { numRuns: 300 },
  );
});

test("snapshots are plain JSON", () => {
  const engine = createEngine({ config: CONFIG, at: T0 });
  engine.apply({
    type: "ScheduleDowntime",
    at: T0,
    target: { selector: "tier=web" },
    start: T0,
    end: T0 + 1,
    author: "",
    comment: "",
  });
  const snap = engine.snapshot();
  assert.deepEqual(json(snap), snap);
  assert.equal(snap.objects.length, 5);
  assert.equal(snap.downtimes[0]?.objects.length, 3);
});

test("restore refuses a config that is not the snapshot's", () => {
  const engine = createEngine({ config: CONFIG, at: T0 });
  const snap = json(engine.snapshot());
  const cases: [string, Config, RegExp][] = [
    [
      "an object more",
      config(
        "host core",
        "host web",
        "service web/http",
        "service web/push check=passive freshness=1m",
        "host gw",
        "host extra",
      ),
      /6/,
    ],
    [
      "an object renamed",
      config("host core", "host web", "service web/http", "service web/pull", "host gw"),
      /web!push/,
    ],
  ];
  for (const [name, cfg, msg] of cases) assert.throws(() => restoreEngine(snap, cfg), msg, name);
  assert.doesNotThrow(() => restoreEngine(snap, CONFIG));
});

test("a config given at creation starts PENDING without events; tick() reads the clock", () => {
  const clock = new FakeClock(T0);
  const engine = createEngine({ clock, config: CONFIG });
  assert.equal(engine.status("web!http")?.state, "PENDING");
  assert.equal(engine.nextWakeup(), T0 + 120_000);
  clock.advance(120_000);
  const events = engine.tick();
  assert.deepEqual(
    events.map((e) => e.type),
    ["CheckResultProcessed", "StateChange"],
  );
  assert.equal(events[0]?.at, T0 + 120_000);
  assert.throws(() => createEngine().tick(), /no clock/);
});

test("applying the same config again changes nothing but says so", () => {
  const engine = createEngine();
  const first = engine.applyConfig(CONFIG, T0);
  assert.equal(first.filter((e) => e.type === "ObjectAdded").length, 5);
  const digest = engine.digest();
  const again = engine.applyConfig(CONFIG, T0 + 1);
  assert.deepEqual(again, [
    { type: "ConfigApplied", at: T0 + 1, digest, hosts: 3, services: 2, added: 0, removed: 0 },
  ]);
  const other = engine.apply({ type: "ApplyConfig", at: T0 + 2, config: CONFIG, digest: "sha256:given" });
  assert.equal(engine.digest(), "sha256:given");
  assert.equal(other.length, 1);
});
