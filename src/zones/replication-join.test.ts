import assert from "node:assert/strict";
import { test } from "node:test";
import {
  describeMissing,
  keyOf,
  type ObjectName,
  sendResults,
  settledWrites,
  startWriteLoad,
} from "../testing/replica-writes.js";
import { converge, passiveFleet, type Replica, sleep, withReplicaSet } from "../testing/replicas.js";

/**
 * Issue 29, "joining and rejoining": three servers take writes in turn (results, comments,
 * downtimes, acknowledgements, each call to the next server) while one of them is killed with
 * SIGKILL, a fourth with an empty data directory joins, and the killed one is restarted on its
 * data directory. Once writes stop, all four answer ListStatus, ListHistory, ListDowntimes and
 * ListComments as the leader does, field by field, and each shows every write the API
 * acknowledged, whichever server took it and whether or not it was running then.
 */

/** The newcomer replays the whole stream (or a snapshot and its tail): more time than a replica's lag. */
const CATCH_UP_MS = 20_000;

test("a server with an empty data dir joins, a killed one restarts: both catch up to identical state", async (t) => {
  await withReplicaSet({ config: passiveFleet(6, 5) }, async (set) => {
    await set.addMany(3);
    const leader = await set.leader();
    const [r1, r2] = set.running().filter((r) => r !== leader) as [Replica, Replica];
    const objects: ObjectName[] = [];
    for (let h = 0; h < 5; h++) for (let s = 0; s < 5; s++) objects.push({ host: `h${h}`, service: `s${s}` });
    const ackObjects: ObjectName[] = [0, 1, 2, 3, 4].map((s) => ({ host: "h5", service: `s${s}` }));
    await sendResults(
      leader,
      ackObjects.map((o) => [o.host, o.service, 2, `CRITICAL - ${keyOf(o)} to acknowledge`] as const),
    );
    let targets: Replica[] = [leader, r1, r2];
    const load = startWriteLoad({
      targets: () => targets,
      rotate: true,
      objects,
      ackObjects,
      sideObject: { host: "h5" },
      writers: 2,
      batch: 10,
      pauseMs: 100,
      tag: "join",
    });
    await sleep(2_000);
    await set.kill(r2);
    targets = [leader, r1];
    await sleep(2_000);
    const fresh = await set.add("newcomer");
    targets = [leader, r1, fresh];
    await sleep(2_000);
    await set.restart(r2);
    targets = [leader, r1, r2, fresh];
    await sleep(2_000);
    const ledger = await load.stop();
    t.diagnostic(
      `${ledger.ackedResults} results, ${ledger.comments.length} comments, ${ledger.downtimes.length} downtimes, ${ledger.ackCalls} acknowledgement calls acknowledged; refused ${JSON.stringify(Object.fromEntries(ledger.refused))}`,
    );
    assert.ok(ledger.ackedResults > 0 && ledger.comments.length > 0, "the load wrote");

    const problems: string[] = [];
    const c = await converge(leader, [r1, r2, fresh], { timeoutMs: CATCH_UP_MS });
    if (!c.equal) problems.push(`not equal ${Math.round(c.ms)} ms after writes stopped: ${c.difference}`);
    for (const r of [leader, r1, r2, fresh]) {
      const role = r === leader ? " (leader)" : r === r2 ? " (restarted)" : r === fresh ? " (newcomer)" : "";
      const missing = describeMissing(`${r.name}${role}`, await settledWrites(r, ledger), ledger);
      if (missing !== undefined) problems.push(missing);
    }
    assert.deepEqual(problems, []);
  });
});
