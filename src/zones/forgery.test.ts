import assert from "node:assert/strict";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { jetstream } from "@nats-io/jetstream";
import { connect, type NatsConnection } from "@nats-io/transport-node";
import { type NatsCluster, startNatsCluster } from "../testing/peers/index.js";
import { type ServerProcess, startServer } from "../testing/server-process.js";
import {
  auditRecords,
  FORGERY_CONFIG,
  forgedResult,
  metricValue,
  postJson,
  START_TIMEOUT_MS,
  statusOf,
  waitFor,
} from "../testing/zone-forgery.js";
import { encodeResult } from "./job.js";
import { resultSubject } from "./names.js";

/**
 * A worker of zone z1 publishes on its subject results for objects that are not z1's to set: a
 * passive service of the default zone (acknowledged, as in the issue), a z2 object, an object the
 * config does not have, a passive z1 service, a result claiming zone z2, garbage. Each is refused —
 * the object unchanged, counted by reason, audited with the worker's name — and acknowledged (the
 * stream does not keep it); an honest z1 result published after them all lands.
 */

let dir = "";
let nats: NatsCluster;
let server: ServerProcess | undefined;
let nc: NatsConnection | undefined;

before(async () => {
  dir = await mkdtemp(join(tmpdir(), "lookout-forgery-"));
  await writeFile(join(dir, "z.cue"), FORGERY_CONFIG);
  nats = await startNatsCluster(1);
});

after(async () => {
  await nc?.close();
  await server?.kill();
  await nats?.stop();
  await rm(dir, { recursive: true, force: true });
});

test("a z1 worker's results for objects outside z1's active checks are refused, counted and audited", async () => {
  const s = await startServer(
    [
      "-config",
      join(dir, "z.cue"),
      "-data-dir",
      join(dir, "data"),
      "-nats",
      nats.urls,
      "-no-worker-grace",
      "1h",
    ],
    { timeoutMs: START_TIMEOUT_MS },
  );
  server = s;
  const cmd = `${s.url}/svc.v1.CommandService`;
  assert.equal(
    (
      await postJson(`${cmd}/ProcessCheckResult`, {
        host: "web1",
        service: "http",
        exitStatus: 2,
        output: "DOWN",
      })
    ).status,
    200,
  );
  const target = { object: { host: "web1", service: "http" } };
  assert.equal((await postJson(`${cmd}/AcknowledgeProblem`, { target, author: "ops" })).status, 200);
  const downtime = {
    target,
    start: new Date(Date.now() - 60_000).toISOString(),
    end: new Date(Date.now() + 3_600_000).toISOString(),
    author: "ops",
  };
  assert.equal((await postJson(`${cmd}/ScheduleDowntime`, downtime)).status, 200);
  await waitFor("web1!http acknowledged, in downtime", async () => {
    const st = await statusOf(s.url, "web1", "http");
    return st?.acknowledgement !== undefined && st.inDowntime === true;
  });
  const before = await statusOf(s.url, "web1", "http");

  nc = await connect({ servers: nats.urls });
  const js = jetstream(nc);
  const z1 = resultSubject("z1");
  const forged: [string, Uint8Array, string][] = [
    ["the issue's forgery", encodeResult(forgedResult("web1", "http", "z1")), "wrong_zone"],
    ["a z2 object", encodeResult(forgedResult("r2", "s", "z1")), "wrong_zone"],
    ["the default zone's host", encodeResult(forgedResult("web1", undefined, "z1")), "wrong_zone"],
    ["an object not in the config", encodeResult(forgedResult("nowhere", "s", "z1")), "unknown_object"],
    ["a passive z1 service", encodeResult(forgedResult("r1", "p", "z1")), "not_active"],
    ["a result claiming zone z2", encodeResult(forgedResult("r1", "s", "z2")), "zone_mismatch"],
    ["garbage", new TextEncoder().encode("{not json"), "malformed"],
  ];
  for (const [, data] of forged) await js.publish(z1, data);
  // An honest result after them: once it is visible, every forgery before it was read.
  await js.publish(z1, encodeResult({ ...forgedResult("r1", "s", "z1"), output: "HONEST", worker: "w1" }));
  await waitFor("the honest z1 result", async () => (await statusOf(s.url, "r1", "s"))?.output === "HONEST");

  const after = await statusOf(s.url, "web1", "http");
  assert.deepEqual(after, before, "the default zone's passive service is untouched");
  assert.notEqual((await statusOf(s.url, "r2", "s"))?.output, "FORGED");
  assert.notEqual((await statusOf(s.url, "r1", "p"))?.output, "FORGED");
  assert.equal((await statusOf(s.url, "r1", "s"))?.checkedBy, "w1");

  const want = new Map<string, number>();
  for (const [, , reason] of forged) want.set(reason, (want.get(reason) ?? 0) + 1);
  await waitFor("refusals counted", async () => {
    for (const [reason, n] of want) {
      const got = await metricValue(
        s.url,
        `lookout_zone_results_refused_total{zone="z1",reason="${reason}"}`,
      );
      if (got !== n) return false;
    }
    return true;
  });
  // Refused results were acknowledged: none waits for the leader.
  await waitFor(
    "nothing pending",
    async () => (await metricValue(s.url, "lookout_zone_results_pending")) === 0,
  );

  const records = auditRecords(join(dir, "data"));
  assert.equal(records.length, forged.length, JSON.stringify(records, null, 1));
  for (const r of records) {
    assert.equal(r.source, "zone");
    assert.equal(r.rpc, z1);
    assert.equal(r.outcome, "rejected");
  }
  const issue = records.find((r) => r.commandJson.includes('"Host":"web1","Service":"http"'));
  assert.ok(issue !== undefined, JSON.stringify(records));
  assert.equal(issue.principalName, "worker:evil");
  assert.match(issue.reason, /^wrong_zone: the object is in zone "default", not "z1"/);
  assert.deepEqual(records.map((r) => r.reason.split(":")[0]).sort(), forged.map((f) => f[2]).sort());
  // Logged once for the worker within the minute, not once per result.
  const lines = s
    .stderr()
    .split("\n")
    .filter((l) => l.includes("refused a result from a zone's worker"));
  assert.equal(lines.filter((l) => l.includes('"worker":"evil"')).length, 1, lines.join("\n"));
});
