import assert from "node:assert/strict";
import { test } from "node:test";
import { startWebhookReceiver } from "../testing/peers/webhook-receiver.js";
import { sendResults } from "../testing/replica-writes.js";
import { type Replica, withReplicaSet } from "../testing/replicas.js";

/**
 * Issue 29, "no notification lost or delivered twice under a new id": three servers, one webhook
 * contact on a loopback receiver that answers slowly (sends stay in flight). 300 services go
 * CRITICAL through one call to the leader; once a quarter of their PROBLEM notifications arrived
 * the leader is killed with SIGKILL. The new leader sends the rest: every service's PROBLEM arrives,
 * each under exactly one id, and a repeat carries the id of the one it repeats (the receiver can
 * drop it). Only the leader notifies: replicas sending too would show as repeats far above the
 * sends in flight at the kill (the bound the single-server crash test, src/notify/notifier-crash.test.ts, uses).
 */

const SERVICES = 300;

function fleet(hookUrl: string): string {
  const out = [
    `contacts: hook: {type: "webhook", url: "${hookUrl}"}`,
    `notifications: p: levels: [{contacts: ["hook"]}]`,
    "hosts: h: {",
    `\taddress: "127.0.0.1"`,
    `\tcheck: {type: "passive", freshness_threshold: "24h"}`,
    "\tservices: {",
  ];
  for (let i = 0; i < SERVICES; i++)
    out.push(
      `\t\t"s${i}": {check: {type: "passive", freshness_threshold: "24h", max_attempts: 1, flap: enabled: false}, notification: "p"}`,
    );
  out.push("\t}", "}", "");
  return out.join("\n");
}

test("kill -9 of the leader while it notifies: the new leader sends the rest, none lost, none under a new id", async (t) => {
  const hook = await startWebhookReceiver({ delayMs: 15 });
  try {
    // The default 10 s lease: a loaded machine delays renewals, and a leader that steps down (lease −
    // 2 × renew) aborts its sends, which the next leader then repeats.
    await withReplicaSet({ config: fleet(hook.url), leaderLease: "10s" }, async (set) => {
      await set.addMany(3);
      const leader = await set.leader();
      const all = (status: number) =>
        Array.from({ length: SERVICES }, (_, i) => ["h", `s${i}`, status, `s${i} ${status}`] as const);
      await sendResults(leader, all(0));
      await sendResults(leader, all(2));
      await hook.waitFor(SERVICES / 4);
      await set.kill(leader);
      const before = hook.counts.size;
      assert.ok(before < SERVICES, `all ${before} arrived before the kill: the test did not cut a send`);
      const problems: string[] = [];
      let next: Replica | undefined;
      try {
        next = await set.leader(30_000);
      } catch (e) {
        problems.push(`after the leader's death: ${String(e)}`);
      }
      await hook.waitFor(SERVICES, 45_000).catch((e: unknown) => {
        problems.push(
          `notifications lost: ${String(e)} (${before} before the kill, new leader ${next?.name})`,
        );
      });
      const byId = new Map<string, string>();
      for (const g of hook.got) {
        const what = JSON.stringify([g.body.object, g.body.kind]);
        const seen = byId.get(g.id);
        if (seen !== undefined && seen !== what) problems.push(`id ${g.id} reused: ${seen} then ${what}`);
        byId.set(g.id, what);
      }
      const ids = new Map<string, number>();
      for (const what of byId.values()) ids.set(what, (ids.get(what) ?? 0) + 1);
      const twice = [...ids].filter(([, n]) => n > 1).map(([what, n]) => `${what} under ${n} ids`);
      if (twice.length > 0)
        problems.push(`delivered under a new id: ${twice.slice(0, 3).join("; ")} (${twice.length})`);
      const repeats = hook.got.length - byId.size;
      t.diagnostic(`${before} arrived before the kill; ${byId.size} ids, ${repeats} repeats`);
      // Sends in flight at a handover, or delivered and not yet mirrored to the bucket, repeat
      // under their ids (docs/replication.md); how many depends on the machine's load (a slow
      // answer retried, a leader that steps down). What must hold: a server that never led sent
      // nothing — only the leader notifies.
      let checked = 0;
      for (const r of set.running()) {
        if (r.log().includes('"leadership won"')) continue;
        const text = await (await fetch(`${r.url}/metrics`)).text();
        const attempts = text
          .split("\n")
          .filter(
            (l) => l.startsWith("lookout_notifications_total{") && /result="(sent|failed|retry)"/.test(l),
          )
          .reduce((n, l) => n + Number(l.slice(l.lastIndexOf(" ") + 1)), 0);
        if (attempts > 0) problems.push(`${r.name} never led, yet attempted ${attempts} notifications`);
        checked++;
      }
      t.diagnostic(`${checked} server(s) that never led checked for sends`);
      assert.deepEqual(problems, []);
    });
  } finally {
    await hook.close();
  }
});
