import assert from "node:assert/strict";
import { join } from "node:path";
import { test } from "node:test";
import {
  acknowledgedCount,
  keyOf,
  missingWrites,
  type ObjectName,
  sendResults,
  settledWrites,
  startWriteLoad,
} from "./replica-writes.js";
import { converge, passiveFleet, readState, sleep, withReplicaSet } from "./replicas.js";
import { startServer } from "./server-process.js";

/**
 * The replication harness on what holds today, one server with a log of its own: a write load
 * (results, comments, downtimes, acknowledgements) through the API, a SIGKILL mid-load and a
 * restart on the same data directory; the ledger finds every acknowledged write in the restarted
 * server's state, `converge` finds it equal to itself, and a server of its own (not a replica)
 * that took none of the writes differs from it (h2's services take 3 attempts: their results go SOFT). So a replication test that fails does so because servers differ, not
 * because the harness miscounts.
 */
test("the harness: kill -9 and restart of one server loses nothing it acknowledged; another server differs", async (t) => {
  await withReplicaSet({ config: passiveFleet(4, 5, "", new Set(["h2"])) }, async (set) => {
    const [s1] = await set.addMany(1);
    assert.ok(s1 !== undefined);
    assert.equal(await set.leader(), s1);
    const objects: ObjectName[] = [];
    for (let h = 0; h < 3; h++) for (let s = 0; s < 5; s++) objects.push({ host: `h${h}`, service: `s${s}` });
    const ackObjects: ObjectName[] = [0, 1, 2, 3, 4].map((s) => ({ host: "h3", service: `s${s}` }));
    await sendResults(
      s1,
      ackObjects.map((o) => [o.host, o.service, 2, `CRITICAL - ${keyOf(o)}`] as const),
    );
    const load = startWriteLoad({
      targets: () => [s1],
      objects,
      ackObjects,
      sideObject: { host: "h3" },
      sideEveryMs: 50,
      batch: 10,
      tag: "harness",
    });
    // Every kind of write acknowledged at least once before the kill (a loaded machine is slow).
    const deadline = Date.now() + 30_000;
    const l = load.ledger;
    while (
      !(l.ackedResults > 0 && l.comments.length > 0 && l.downtimes.length > 0 && l.ackCalls > 0) &&
      Date.now() < deadline
    ) {
      await sleep(100);
    }
    await sleep(500);
    await set.kill(s1);
    await sleep(500);
    await set.restart(s1);
    await sleep(1_500);
    const ledger = await load.stop();
    t.diagnostic(
      `${acknowledgedCount(ledger)} acknowledged (${ledger.ackedResults} results, ${ledger.comments.length} comments, ${ledger.downtimes.length} downtimes, ${ledger.ackCalls} acknowledgement calls), ${ledger.failures} failed unanswered`,
    );
    assert.ok(
      ledger.ackedResults > 0 &&
        ledger.comments.length > 0 &&
        ledger.downtimes.length > 0 &&
        ledger.ackCalls > 0,
    );
    assert.ok(ledger.failures > 0, "some calls met the dead server");
    assert.deepEqual(await settledWrites(s1, ledger), { lost: [], stale: [] });
    const self = await converge(s1, [s1], { timeoutMs: 0 });
    assert.equal(self.difference, undefined);
    assert.ok(self.equal);

    // A server of its own (no -nats: not a replica) took none of the writes.
    const alone = await startServer(
      ["-config", join(set.dir, "lookout.cue"), "-data-dir", join(set.dir, "alone")],
      { timeoutMs: 60_000 },
    );
    try {
      const s2 = { ...s1, name: "s2", url: alone.url };
      const other = await converge(s1, [s2], { timeoutMs: 0 });
      assert.equal(other.equal, false);
      assert.match(other.difference ?? "", /\(s1 vs s2\)|absent on s2/);
      const lost = missingWrites(await readState(alone.url), ledger);
      assert.ok(lost.lost.length > 0 && lost.stale.length > 0, "the ledger finds what s2 lacks");
    } finally {
      await alone.stop();
    }
  });
});
