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
import type { Config } from "../model/config.js";
import type { RecordedEvent } from "../model/events.js";
import { silentLogger } from "../model/logger.js";
import type { LoggedEvent } from "../store/index.js";
import { Notifier } from "./notifier.js";
import { createNotifyZone } from "./period.js";
import type { Sender, SendOutcome } from "./sender.js";

const dir = mkdtempSync(join(tmpdir(), "lookout-notifier-pause-"));
after(() => rmSync(dir, { recursive: true, force: true }));

const config: Config = buildConfig(
  [
    "contact live type=webhook",
    "policy p",
    "level p contacts=live",
    "host web",
    "service web/s0 max_attempts=1 flap=off notification=p",
  ].map((l, i) => ({ text: tokenize(l), line: i + 1 })),
);

/** Engine events for results, numbered like the log's. */
function logOf(statuses: (0 | 2)[]): LoggedEvent[] {
  const engine = createEngine();
  engine.apply({ type: "ApplyConfig", at: 0, config });
  const out: LoggedEvent[] = [];
  let seq = 1;
  let at = Date.now();
  for (const status of statuses) {
    const events = engine.apply({
      type: "ProcessCheckResult",
      at: at++,
      result: {
        host: "web",
        service: "s0",
        checkedAt: at,
        durationMs: 0,
        source: "passive",
        exitStatus: status,
        output: `${status}`,
        longOutput: "",
        perfdata: [],
      },
    });
    for (const event of events) out.push({ seq: seq++, cmdSeq: seq, event });
  }
  return out;
}

/** A webhook whose answer the test switches: "ok", "fail" (retryable), "hang" (until aborted). */
function switchable() {
  const s = {
    mode: "ok" as "ok" | "fail" | "hang",
    sent: [] as string[],
    delivered: [] as string[],
    sender: {
      async send(n, _contact, _config, signal): Promise<SendOutcome> {
        s.sent.push(n.id);
        if (s.mode === "fail") return { ok: false, retryable: true, error: "503" };
        if (s.mode === "hang") {
          await new Promise((r) => signal.addEventListener("abort", r, { once: true }));
          return { ok: false, retryable: true, error: "aborted" };
        }
        s.delivered.push(n.id);
        return { ok: true };
      },
    } as Sender,
  };
  return s;
}

function notifier(stateDir: string, sender: Sender, recorded: RecordedEvent[], paused?: boolean): Notifier {
  const none: Sender = { send: async () => ({ ok: false, retryable: false, error: "unused" }) };
  return new Notifier({
    submit: async (cmds: RecordEventsCommand[]) => {
      for (const c of cmds) recorded.push(...c.events);
    },
    state: openConsumerState(stateDir),
    config,
    senders: { webhook: sender, email: none, command: none, telegram: none },
    clock: systemClock,
    logger: silentLogger,
    zone: createNotifyZone("UTC"),
    backoffBaseMs: 100,
    backoffCapMs: 200,
    sendTimeoutMs: 60_000,
    ...(paused === undefined ? {} : { paused }),
  });
}

async function until(what: () => boolean, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!what()) {
    if (Date.now() > end) throw new Error("timed out");
    await new Promise((r) => setTimeout(r, 10));
  }
}

const settle = (ms = 300) => new Promise((r) => setTimeout(r, ms));

describe("the notifier on a server that does not lead (pause, resume)", () => {
  it("started paused it sends no pending notification, and sends them under the same ids once resumed", async () => {
    const stateDir = join(dir, "a");
    const recorded: RecordedEvent[] = [];
    const first = switchable();
    first.mode = "fail";
    const n1 = notifier(stateDir, first.sender, recorded);
    await n1.handle(logOf([2]));
    await until(() => first.sent.length >= 1);
    await n1.stop();
    const ids = [...new Set(first.sent)];

    const second = switchable();
    const n2 = notifier(stateDir, second.sender, recorded, true);
    try {
      await settle();
      assert.deepEqual(second.sent, [], "a replica sends nothing");
      assert.equal(n2.pending, 0);
      await n2.applyConfig(config);
      await n2.idle();
      await settle(100);
      assert.deepEqual(second.sent, [], "nor on a reload or an idle call");
      n2.resume();
      await until(() => second.delivered.length === ids.length);
      assert.deepEqual(second.delivered, ids, "the same ids, once leading");
    } finally {
      await n2.stop();
    }
  });

  it("pausing aborts the sends in flight, records no failure for them, and keeps them pending for the next leader", async () => {
    const stateDir = join(dir, "b");
    const recorded: RecordedEvent[] = [];
    const s = switchable();
    s.mode = "hang";
    const n = notifier(stateDir, s.sender, recorded);
    try {
      await n.handle(logOf([2]));
      await until(() => s.sent.length === 1);
      await n.pause();
      await settle(100);
      assert.equal(n.pending, 0);
      assert.deepEqual(
        recorded.filter((e) => e.type === "NotificationFailed" || e.type === "NotificationSent"),
        [],
        "an aborted send is not a failure",
      );
      // The pending send is still in the state: whoever leads next sends it, under the same id.
      s.mode = "ok";
      n.resume();
      await until(() => s.delivered.length === 1);
      assert.deepEqual(s.delivered, s.sent.slice(0, 1));
      await until(() => recorded.some((e) => e.type === "NotificationSent"));
    } finally {
      await n.stop();
    }
  });
});
