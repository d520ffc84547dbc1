/**
 * A contact that comes back gets the current picture (docs/notifications.md): sends of one problem
 * to one contact that a newer one made stale while the contact failed are collapsed into the newest,
 * durably (a restart restores only the newest, with its count), never replayed as a burst.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { openConsumerState } from "../consumers/index.js";
import { createEngine } from "../engine/index.js";
import { buildConfig, tokenize } from "../engine/scenario/index.js";
import type { Command } from "../model/commands.js";
import type { Config } from "../model/config.js";
import type { RecordedEvent } from "../model/events.js";
import { silentLogger } from "../model/logger.js";
import type { LoggedEvent } from "../store/index.js";
import { FakeClock } from "../testing/fake-clock.js";
import { Notifier } from "./notifier.js";
import { createNotifyZone } from "./period.js";
import type { Notification, Sender } from "./sender.js";

const dir = mkdtempSync(join(tmpdir(), "lookout-notifier-collapse-"));
after(() => rmSync(dir, { recursive: true, force: true }));

const config: Config = buildConfig(
  [
    "contact hook type=webhook",
    "policy p",
    "level p contacts=hook renotify=15s",
    "host web label.env=prod label.team=infra",
    "service web/http max_attempts=1 flap=off notification=p label.team=web",
    "service web/db max_attempts=1 flap=off notification=p",
  ].map((l, i) => ({ text: tokenize(l), line: i + 1 })),
);

/** A log built by a real engine, numbered like the store's. */
function createLog(clock: FakeClock) {
  const engine = createEngine();
  let seq = 0;
  const apply = (c: Command): LoggedEvent[] =>
    engine.apply(c).map((event) => {
      seq++;
      return { seq, cmdSeq: seq, event };
    });
  apply({ type: "ApplyConfig", at: clock.now(), config });
  return {
    result: (service: string, exitStatus: 0 | 2) =>
      apply({
        type: "ProcessCheckResult",
        at: clock.now(),
        result: {
          host: "web",
          service,
          checkedAt: clock.now(),
          durationMs: 0,
          source: "passive",
          exitStatus,
          output: `${exitStatus}`,
          longOutput: "",
          perfdata: [],
        },
      }),
  };
}

function notifier(state: string, clock: FakeClock, sender: Sender, recorded: RecordedEvent[]): Notifier {
  const none: Sender = { send: async () => ({ ok: false, retryable: false, error: "unused" }) };
  return new Notifier({
    submit: async (cmds) => {
      for (const c of cmds) recorded.push(...c.events);
    },
    state: openConsumerState(state),
    config,
    senders: { webhook: sender, email: none, command: none, telegram: none },
    clock,
    logger: silentLogger,
    zone: createNotifyZone("UTC"),
  });
}

/** Lets queued sends, their outcomes and the outbox's flush run. */
async function settle(clock: FakeClock): Promise<void> {
  for (let i = 0; i < 20; i++) {
    await new Promise((r) => setImmediate(r));
    clock.advance(0);
  }
  clock.advance(25);
  for (let i = 0; i < 20; i++) await new Promise((r) => setImmediate(r));
}

describe("collapsing what a contact missed", () => {
  it("the page and two renotifications to a webhook that is down arrive as one, replaces 2, also after a restart", async () => {
    const clock = new FakeClock();
    const log = createLog(clock);
    let down = true;
    const attempts: Notification[] = [];
    const delivered: Notification[] = [];
    const hook: Sender = {
      async send(n) {
        attempts.push(n);
        if (down) return { ok: false, retryable: true, error: "webhook: HTTP 503" };
        delivered.push(n);
        return { ok: true };
      },
    };
    const recorded: RecordedEvent[] = [];
    const state = join(dir, "a");
    let n = notifier(state, clock, hook, recorded);
    await n.handle([...log.result("http", 0), ...log.result("http", 2)]);
    await settle(clock);
    assert.equal(attempts.length, 1, "the first page was tried");
    // Two renotifications while the webhook is down.
    clock.advance(15_000);
    await n.idle();
    await settle(clock);
    clock.advance(15_000);
    await n.idle();
    await settle(clock);
    assert.equal(n.pending, 1, "one send left: the newest");
    const superseded = recorded.filter(
      (e) => e.type === "NotificationSuppressed" && e.reason === "superseded",
    );
    assert.equal(superseded.length, 2);
    assert.ok(superseded.every((e) => e.type === "NotificationSuppressed" && e.contact === "hook"));

    // A restart restores the newest only, with its count.
    await n.stop();
    n = notifier(state, clock, hook, recorded);
    assert.equal(n.pending, 1);
    down = false;
    clock.advance(60_000);
    await settle(clock);
    assert.equal(delivered.length, 1, JSON.stringify(delivered.map((d) => [d.id, d.replaces])));
    const [one] = delivered;
    assert.equal(one?.kind, "PROBLEM");
    assert.equal(one?.number, 3);
    assert.equal(one?.replaces, 2);
    // Never a stale one afterwards.
    clock.advance(1000);
    await settle(clock);
    assert.equal(delivered.length, 1);
    await n.stop();
  });

  it("a healthy contact is never collapsed; other kinds and other problems are never folded", async () => {
    const clock = new FakeClock();
    const log = createLog(clock);
    const delivered: Notification[] = [];
    let down = false;
    const hook: Sender = {
      async send(n) {
        if (down) return { ok: false, retryable: true, error: "webhook: HTTP 503" };
        delivered.push(n);
        return { ok: true };
      },
    };
    const n = notifier(join(dir, "b"), clock, hook, []);
    await n.handle([...log.result("http", 0), ...log.result("http", 2)]);
    await settle(clock);
    clock.advance(15_000);
    await n.idle();
    await settle(clock);
    assert.deepEqual(
      delivered.map((d) => [d.number, d.replaces ?? 0]),
      [
        [1, 0],
        [2, 0],
      ],
    );
    // Down through a renotification; then a problem of another object (not folded) and this
    // one's recovery, which folds the undelivered renotification of its problem.
    down = true;
    clock.advance(15_000);
    await n.idle();
    await settle(clock);
    await n.handle(log.result("db", 2));
    await settle(clock);
    await n.handle(log.result("http", 0));
    await settle(clock);
    down = false;
    clock.advance(60_000);
    await settle(clock);
    const after = delivered.slice(2).map((d) => `${d.key} ${d.kind} ${d.replaces ?? 0}`);
    assert.deepEqual(after.sort(), ["web!db PROBLEM 0", "web!http RECOVERY 1"]);
    await n.stop();
  });

  it("a service's labels are its host's overlaid by its own", async () => {
    const clock = new FakeClock();
    const log = createLog(clock);
    const delivered: Notification[] = [];
    const hook: Sender = {
      async send(n) {
        delivered.push(n);
        return { ok: true };
      },
    };
    const n = notifier(join(dir, "c"), clock, hook, []);
    await n.handle([...log.result("http", 0), ...log.result("http", 2), ...log.result("db", 2)]);
    await settle(clock);
    const labels = Object.fromEntries(delivered.map((d) => [d.key, d.labels]));
    assert.deepEqual(labels, {
      "web!http": { env: "prod", team: "web" },
      "web!db": { env: "prod", team: "infra" },
    });
    await n.stop();
  });
});
