/**
 * kill -9 of the real binary while the notifier is sending: after the restart every notification
 * arrives, and a repeat only ever carries the id of the one it repeats (the receiver can drop it).
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, it } from "node:test";
import { connectJson } from "../api/core-test-server.js";
import { startWebhookReceiver } from "../testing/peers/webhook-receiver.js";
import { startServer } from "../testing/server-process.js";

const SERVICES = 300;
const dir = mkdtempSync(join(tmpdir(), "lookout-notify-crash-"));
after(() => rmSync(dir, { recursive: true, force: true }));

function fleet(hookUrl: string): string {
  const out = [
    `contacts: hook: {type: "webhook", url: "${hookUrl}"}`,
    `notifications: p: levels: [{contacts: ["hook"]}]`,
    `hosts: h: {`,
    `\taddress: "127.0.0.1"`,
    `\tcheck: {type: "passive", freshness_threshold: "24h"}`,
    `\tservices: {`,
  ];
  for (let i = 0; i < SERVICES; i++) {
    out.push(
      `\t\t"s${i}": {check: {type: "passive", freshness_threshold: "24h", max_attempts: 1, flap: enabled: false}, notification: "p"}`,
    );
  }
  out.push("\t}", "}", "");
  return out.join("\n");
}

it("kill -9 while sending: nothing lost, repeats only with the same id", async () => {
  // Slow answers keep sends in flight when the kill lands.
  const hook = await startWebhookReceiver({ delayMs: 15 });
  const config = join(dir, "fleet.cue");
  const dataDir = join(dir, "data");
  writeFileSync(config, fleet(hook.url));
  const args = ["-config", config, "-data-dir", dataDir];
  let srv = await startServer(args);
  try {
    const results = (status: number) => ({
      results: Array.from({ length: SERVICES }, (_, i) => ({
        host: "h",
        service: `s${i}`,
        exitStatus: status,
        output: `s${i}`,
      })),
    });
    assert.equal(
      (await connectJson(srv.url, "/svc.v1.CommandService/ProcessCheckResults", results(0))).status,
      200,
    );
    assert.equal(
      (await connectJson(srv.url, "/svc.v1.CommandService/ProcessCheckResults", results(2))).status,
      200,
    );
    await hook.waitFor(SERVICES / 4);
    await srv.kill();
    const before = hook.counts.size;
    assert.ok(before < SERVICES, `all ${before} arrived before the kill: the test did not cut a send`);
    srv = await startServer(args);
    await hook.waitFor(SERVICES, 45_000);
    // Every problem notified once by id; a repeat is the same notification (same id, same object).
    const byId = new Map<string, string>();
    for (const g of hook.got) {
      const obj = JSON.stringify([g.body.object, g.body.kind]);
      const seen = byId.get(g.id);
      if (seen !== undefined) assert.equal(obj, seen, `id ${g.id} reused for another notification`);
      byId.set(g.id, obj);
    }
    assert.equal(byId.size, SERVICES);
    const objects = new Set([...byId.values()]);
    assert.equal(objects.size, SERVICES, "each service's PROBLEM has exactly one id");
    const repeats = hook.got.length - byId.size;
    // Only sends that were in flight (or delivered but not yet recorded) at the kill may repeat.
    assert.ok(repeats <= 64, `${repeats} repeats`);
  } finally {
    await srv.stop();
    await hook.close();
  }
});
