import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { openConsumerState } from "../consumers/index.js";
import { createEngine } from "../engine/index.js";
import { buildConfig, tokenize } from "../engine/scenario/index.js";
import { systemClock } from "../model/clock.js";
import type { RecordEventsCommand } from "../model/commands.js";
import type { Config, ContactType } from "../model/config.js";
import type { RecordedEvent } from "../model/events.js";
import { silentLogger } from "../model/logger.js";
import type { LoggedEvent } from "../store/index.js";
import { hasPolicy, Notifier } from "./notifier.js";
import { createNotifyZone } from "./period.js";
import type { Sender, SendOutcome } from "./sender.js";

const dir = mkdtempSync(join(tmpdir(), "lookout-notifier-"));
after(() => rmSync(dir, { recursive: true, force: true }));

const config: Config = buildConfig(
  [
    "contact live type=webhook",
    "contact dead type=email",
    "policy p",
    "level p contacts=live,dead",
    "host web",
    ...Array.from({ length: 20 }, (_, i) => `service web/s${i} max_attempts=1 flap=off notification=p`),
  ].map((l, i) => ({ text: tokenize(l), line: i + 1 })),
);

/** Engine events for results, numbered like the log's. */
function logOf(results: { service: string; status: 0 | 2 }[], from = 1): LoggedEvent[] {
  const engine = createEngine();
  engine.apply({ type: "ApplyConfig", at: 0, config });
  const out: LoggedEvent[] = [];
  let seq = from;
  let at = Date.now();
  for (const r of results) {
    const events = engine.apply({
      type: "ProcessCheckResult",
      at: at++,
      result: {
        host: "web",
        service: r.service,
        checkedAt: at,
        durationMs: 0,
        source: "passive",
        exitStatus: r.status,
        output: `${r.status}`,
        longOutput: "",
        perfdata: [],
      },
    });
    for (const event of events) out.push({ seq: seq++, cmdSeq: seq, event });
  }
  return out;
}

function senderOf(fn: (id: string) => Promise<SendOutcome>, seen: string[]): Sender {
  return {
    async send(n) {
      seen.push(n.id);
      return fn(n.id);
    },
  };
}

function notifier(
  stateDir: string,
  senders: Partial<Record<ContactType, Sender>>,
  recorded: RecordedEvent[],
  maxQueued?: number,
) {
  const none: Sender = { send: async () => ({ ok: false, retryable: false, error: "unused" }) };
  return new Notifier({
    submit: async (cmds: RecordEventsCommand[]) => {
      for (const c of cmds) recorded.push(...c.events);
    },
    state: openConsumerState(stateDir),
    config,
    senders: { webhook: none, email: none, command: none, telegram: none, ...senders },
    clock: systemClock,
    logger: silentLogger,
    zone: createNotifyZone("UTC"),
    backoffBaseMs: 200,
    backoffCapMs: 400,
    sendTimeoutMs: 300,
    ...(maxQueued === undefined ? {} : { maxQueued }),
  });
}

async function until(what: () => boolean, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!what()) {
    if (Date.now() > end) throw new Error("timed out");
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe("the notifier", () => {
  it("a dead contact never delays a live one; each backs off on its own", async () => {
    const live: string[] = [];
    const dead: string[] = [];
    const recorded: RecordedEvent[] = [];
    const n = notifier(
      join(dir, "a"),
      {
        webhook: senderOf(async () => ({ ok: true }), live),
        // Hangs until the send timeout aborts it (retryable).
        email: senderOf(
          () =>
            new Promise<SendOutcome>((r) =>
              setTimeout(() => r({ ok: false, retryable: true, error: "timeout" }), 300),
            ),
          dead,
        ),
      },
      recorded,
    );
    const batch = logOf(Array.from({ length: 20 }, (_, i) => ({ service: `s${i}`, status: 2 as const })));
    const t0 = Date.now();
    assert.equal(await n.handle(batch), batch.at(-1)?.seq);
    await until(() => live.length === 20);
    assert.ok(Date.now() - t0 < 1000, `live contact took ${Date.now() - t0} ms`);
    await until(() => recorded.some((e) => e.type === "NotificationFailed" && e.contact === "dead"));
    assert.ok(n.pending >= 20, `${n.pending} pending for the dead contact`);
    const failed = recorded.filter((e) => e.type === "NotificationFailed");
    assert.ok(failed.every((e) => e.type === "NotificationFailed" && e.retryable && e.contact === "dead"));
    await n.stop();
    assert.equal(recorded.filter((e) => e.type === "NotificationSent").length, 20);
  });

  it("pending sends and who was told survive a restart; the same ids are delivered, nothing is decided twice", async () => {
    const stateDir = join(dir, "b");
    const recorded: RecordedEvent[] = [];
    const first: string[] = [];
    const failing = senderOf(async () => ({ ok: false, retryable: true, error: "503" }), first);
    const n1 = notifier(stateDir, { webhook: failing, email: failing }, recorded);
    const problems = logOf([{ service: "s1", status: 2 }]);
    await n1.handle(problems);
    await until(() => first.length >= 2);
    await n1.stop();
    const second: string[] = [];
    const n2 = notifier(
      stateDir,
      {
        webhook: senderOf(async () => ({ ok: true }), second),
        email: senderOf(async () => ({ ok: true }), second),
      },
      recorded,
    );
    await until(() => second.length === 2);
    assert.deepEqual([...second].sort(), [...new Set(first)].sort(), "the same ids");
    // The recovery goes to both contacts told of the problem (their tracker state was restored).
    const both = logOf(
      [
        { service: "s1", status: 2 },
        { service: "s1", status: 0 },
      ],
      100,
    );
    // Only the second result's events: the first re-creates the problem in a fresh engine.
    const recovery = both.slice(both.findLastIndex((e) => e.event.type === "CheckResultProcessed"));
    await n2.handle(recovery);
    await until(() => second.length === 4);
    assert.deepEqual(second.slice(2).sort(), [
      `${recovery.find((e) => e.event.type === "StateChange")?.seq}.RECOVERY.dead`,
      `${recovery.find((e) => e.event.type === "StateChange")?.seq}.RECOVERY.live`,
    ]);
    await n2.stop();
  });

  it("is inactive while no object has a policy, and active once one has (reload)", async () => {
    const lines = (withPolicy: boolean) =>
      buildConfig(
        [
          "contact live type=webhook",
          ...(withPolicy ? ["policy p", "level p contacts=live"] : []),
          "host web",
          `service web/s0 max_attempts=1 flap=off${withPolicy ? " notification=p" : ""}`,
        ].map((l, i) => ({ text: tokenize(l), line: i + 1 })),
      );
    const cases: { name: string; config: Config; want: boolean }[] = [
      { name: "no policy", config: lines(false), want: false },
      { name: "a service with a policy", config: lines(true), want: true },
      { name: "the test fleet", config, want: true },
    ];
    for (const c of cases) assert.equal(hasPolicy(c.config), c.want, c.name);
    const recorded: RecordedEvent[] = [];
    const n = notifier(join(dir, "c"), {}, recorded);
    try {
      assert.equal(n.active(), true);
      await n.applyConfig(lines(false));
      assert.equal(n.active(), false, "policies removed by a reload");
      await n.applyConfig(lines(true));
      assert.equal(n.active(), true, "a policy added by a reload");
    } finally {
      await n.stop();
    }
  });

  it("stops reading while a live contact's queue is above maxQueued, never for a dead contact", async () => {
    const gates: (() => void)[] = [];
    const slow: string[] = [];
    const dead: string[] = [];
    const recorded: RecordedEvent[] = [];
    const n = notifier(
      join(dir, "d"),
      {
        // Live but slow: each send waits for the test to release it.
        webhook: senderOf(() => new Promise<SendOutcome>((r) => gates.push(() => r({ ok: true }))), slow),
        email: senderOf(async () => ({ ok: false, retryable: true, error: "refused" }), dead),
      },
      recorded,
      4,
    );
    try {
      const problems = (from: number) =>
        logOf(
          Array.from({ length: 10 }, (_, i) => ({ service: `s${i}`, status: 2 as const })),
          from,
        );
      const first = problems(1);
      assert.equal(await n.handle(first), first.at(-1)?.seq);
      await until(() => dead.length > 0 && slow.length > 0);
      // The dead contact's 10 pending sends do not count; the slow contact's 10 do.
      let done = false;
      const second = problems(1000);
      const handled = n.handle(second).then((seq) => {
        done = true;
        return seq;
      });
      await new Promise((r) => setTimeout(r, 200));
      assert.equal(done, false, "reading waits for the live contact's queue");
      while (!done) {
        for (const g of gates.splice(0)) g();
        await new Promise((r) => setTimeout(r, 10));
      }
      assert.equal(await handled, second.at(-1)?.seq);
      // With the slow contact drained, the dead one's growing queue never holds the reading.
      const t0 = Date.now();
      const release = setInterval(() => {
        for (const g of gates.splice(0)) g();
      }, 5);
      let timer: NodeJS.Timeout | undefined;
      try {
        await Promise.race([
          (async () => {
            for (let k = 2; k < 6; k++) await n.handle(problems(1000 * k));
          })(),
          new Promise((_, reject) => {
            timer = setTimeout(() => reject(new Error("reading held back by the dead contact")), 5000);
          }),
        ]);
      } finally {
        clearInterval(release);
        clearTimeout(timer);
      }
      assert.ok(Date.now() - t0 < 5000, `took ${Date.now() - t0} ms`);
      assert.ok(n.pending >= 40, `${n.pending} pending, most for the dead contact`);
    } finally {
      for (const g of gates.splice(0)) g();
      await n.stop();
    }
  });
});
