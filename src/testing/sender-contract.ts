import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import type { Config, ContactConfig } from "../model/config.js";
import type { Notification, Sender, SendOutcome } from "../notify/sender.js";

/** How the far side of a contact behaves for one case of the contract. */
export type PeerMode = "ok" | "retryable" | "permanent" | "hang";

/** One contact type wired to a real (loopback) far side. */
export interface SenderRig {
  readonly sender: Sender;
  readonly contact: ContactConfig;
  readonly config: Config;
  setMode(m: PeerMode): void;
  /** Notifications the far side accepted so far. */
  received(): number;
  /** Strings that must appear in no outcome and no log line (tokens, passwords, URLs). */
  readonly secrets: readonly string[];
  /** Every log line the rig's parts wrote. */
  logs(): string[];
  close(): Promise<void>;
}

/** A notification for the contract's cases. */
export function contractNotification(id: string): Notification {
  return {
    id,
    kind: "PROBLEM",
    key: "web!http",
    host: "web",
    service: "http",
    state: "CRITICAL",
    output: "CRITICAL - connection refused",
    level: 1,
    policy: "standard",
    number: 1,
    at: Date.UTC(2026, 0, 1),
    labels: { team: "web" },
  };
}

/**
 * The one suite every contact type passes (hono's common.case.test.ts in spirit): delivered,
 * retryable failure, permanent failure, timeout, and no secret in any outcome or log line.
 */
export function senderContract(name: string, open: () => Promise<SenderRig>): void {
  let rig: SenderRig;
  const outcomes: SendOutcome[] = [];
  before(async () => {
    rig = await open();
  });
  after(async () => {
    rig.sender.close?.();
    await rig.close();
  });
  const send = async (id: string, timeoutMs = 10_000): Promise<SendOutcome> => {
    const o = await rig.sender.send(
      contractNotification(id),
      rig.contact,
      rig.config,
      AbortSignal.timeout(timeoutMs),
    );
    outcomes.push(o);
    return o;
  };

  const cases: { mode: PeerMode; check(o: SendOutcome, before: number): void }[] = [
    {
      mode: "ok",
      check(o, before) {
        assert.deepEqual(o, { ok: true });
        assert.equal(rig.received(), before + 1, "the far side got it exactly once");
      },
    },
    {
      mode: "retryable",
      check(o, before) {
        assert.equal(o.ok, false);
        assert.equal(!o.ok && o.retryable, true, JSON.stringify(o));
        assert.equal(rig.received(), before);
      },
    },
    {
      mode: "permanent",
      check(o, before) {
        assert.equal(o.ok, false);
        assert.equal(!o.ok && o.retryable, false, JSON.stringify(o));
        assert.equal(rig.received(), before);
      },
    },
  ];
  for (const c of cases) {
    test(`${name} contract: ${c.mode}`, async () => {
      rig.setMode(c.mode);
      const before = rig.received();
      c.check(await send(`contract-${c.mode}`), before);
    });
  }
  test(`${name} contract: a far side that hangs is a retryable timeout`, async () => {
    rig.setMode("hang");
    const t0 = performance.now();
    const o = await send("contract-hang", 500);
    const took = performance.now() - t0;
    assert.equal(o.ok, false);
    assert.equal(!o.ok && o.retryable, true, JSON.stringify(o));
    assert.match(!o.ok ? o.error : "", /timeout/);
    assert.ok(took < 5_000, `took ${took} ms`);
  });
  test(`${name} contract: no secret in any outcome or log line`, () => {
    assert.ok(outcomes.length >= 4);
    const text = [...outcomes.map((o) => JSON.stringify(o)), ...rig.logs()].join("\n");
    for (const s of rig.secrets) assert.ok(!text.includes(s), `secret ${s.slice(0, 3)}… leaked:\n${text}`);
  });
}
