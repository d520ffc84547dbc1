import assert from "node:assert/strict";
import { test } from "node:test";
import {
  acknowledgedCount,
  describeMissing,
  keyOf,
  type Ledger,
  type ObjectName,
  sendResults,
  settledWrites,
  startWriteLoad,
} from "../testing/replica-writes.js";
import {
  apiOf,
  converge,
  fieldOf,
  passiveFleet,
  type Replica,
  readState,
  sleep,
  withReplicaSet,
} from "../testing/replicas.js";

/**
 * Issue 29, "failover with nothing lost": three servers on a 3-node nats cluster, a 3 s lease.
 * Two clients ingest ProcessCheckResults batches (each result flips its object between OK and
 * CRITICAL, so each is a history entry; half the objects take 3 attempts, so soft states are in
 * flight too, and flapping soon is) and a third adds comments, schedules fixed and flexible
 * downtimes and sets and removes acknowledgements, all through the leader; the leader is killed
 * with SIGKILL mid-stream, and the clients carry on with the next server that answers. Once a new
 * leader is elected and the writes stop, every write the API acknowledged (answered OK) is on
 * every surviving server (0 lost: results in status and history, comments, downtimes and
 * acknowledgements by id and value), the survivors answer the same state field by field, and the
 * new leader takes a write that then shows on every survivor.
 */

// Generous: a loaded machine delays a replica; servers that diverge never converge.
const CONVERGE_MS = 30_000;

/** Waits until `f` holds or `ms` pass (then the assertions below say what was missing). */
async function until(f: () => boolean, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  while (!f() && Date.now() < deadline) await sleep(100);
}

const describe = (l: Ledger): string =>
  `${acknowledgedCount(l)} acknowledged writes (${l.ackedResults} results, ${l.comments.length} comments, ` +
  `${l.downtimes.length} downtimes, ${l.ackCalls} acknowledgement calls); ${l.failures} calls failed unanswered; ` +
  `refused ${JSON.stringify(Object.fromEntries(l.refused))}`;

test("kill -9 of the leader during ingestion: a new leader, no acknowledged write lost, survivors equal", async (t) => {
  await withReplicaSet(
    { config: passiveFleet(10, 10, "", new Set(["h4", "h5", "h6", "h7"])) },
    async (set) => {
      await set.addMany(3);
      const leader = await set.leader();
      const objects: ObjectName[] = [];
      for (let h = 0; h < 8; h++)
        for (let s = 0; s < 10; s++) objects.push({ host: `h${h}`, service: `s${s}` });
      const ackObjects: ObjectName[] = [];
      for (let h = 8; h < 10; h++)
        for (let s = 0; s < 10; s++) ackObjects.push({ host: `h${h}`, service: `s${s}` });
      // The acknowledgements' objects are in a problem state before the load starts.
      await sendResults(
        leader,
        ackObjects.map((o) => [o.host, o.service, 2, `CRITICAL - ${keyOf(o)} to acknowledge`] as const),
      );
      const others = set.running().filter((r) => r !== leader);
      const load = startWriteLoad({
        targets: () => [leader, ...others],
        objects,
        ackObjects,
        sideObject: { host: "h9" },
        writers: 2,
        batch: 25,
        pauseMs: 50,
        tag: "failover",
      });
      // Writes flow before the kill: a few seconds on a quiet machine, more on a loaded one.
      await until(() => acknowledgedCount(load.ledger) >= 100, 60_000);
      const atKill = acknowledgedCount(load.ledger);
      await set.kill(leader);
      const killedAt = performance.now();
      const problems: string[] = [];
      let next: Replica | undefined;
      try {
        next = await set.leader(30_000);
      } catch (e) {
        problems.push(`after the leader's death: ${String(e)}`);
      }
      const electedMs = performance.now() - killedAt;
      // Writes go on a while under the new leader (until some more are acknowledged).
      await until(() => acknowledgedCount(load.ledger) >= atKill + 100, 60_000);
      await sleep(1_000);
      const ledger = await load.stop();
      t.diagnostic(
        `${describe(ledger)}; ${atKill} acknowledged before the kill; a new leader ${next?.name ?? "none"} after ${Math.round(electedMs)} ms`,
      );
      assert.ok(atKill > 0 && acknowledgedCount(ledger) > atKill, `writes went on: ${describe(ledger)}`);
      const survivors = set.running();

      // The new leader takes writes, and every survivor shows them.
      let after: string | undefined;
      if (next !== undefined) {
        const api = apiOf(next.url);
        try {
          await sendResults(next, [["h9", undefined, 0, "UP - written to the new leader"]]);
          after = (
            await api.command.addComment({
              object: { host: "h9" },
              author: "after",
              comment: "after failover",
            })
          ).id;
        } catch (e) {
          problems.push(`a write to the new leader ${next.name}: ${String(e)}`);
        }
      }

      const reference = next ?? (survivors[0] as Replica);
      const c = await converge(
        reference,
        survivors.filter((r) => r !== reference),
        { timeoutMs: CONVERGE_MS },
      );
      if (!c.equal)
        problems.push(`survivors differ ${Math.round(c.ms)} ms after writes stopped: ${c.difference}`);
      for (const r of survivors) {
        const missing = describeMissing(
          r === next ? `${r.name} (new leader)` : r.name,
          await settledWrites(r, ledger, CONVERGE_MS),
          ledger,
        );
        if (missing !== undefined) problems.push(missing);
        // Acknowledged means stored: the writes to the new leader show once applied (a loaded
        // machine may apply them after the servers already agreed without them).
        const deadline = Date.now() + CONVERGE_MS;
        let resultShown = false;
        let commentShown = false;
        for (;;) {
          const state = await readState(r.url);
          const h9 = state.status.find(
            (s) => fieldOf(s, "host") === "h9" && fieldOf(s, "service") === undefined,
          );
          resultShown = fieldOf(h9, "output") === "UP - written to the new leader";
          commentShown = state.comments.some((x) => fieldOf(x, "id") === after);
          if ((resultShown || next === undefined) && (commentShown || after === undefined)) break;
          if (Date.now() > deadline) break;
          await new Promise((resolve) => setTimeout(resolve, 250));
        }
        if (next !== undefined && !resultShown)
          problems.push(`${r.name}: the result written to the new leader is not in its status`);
        if (after !== undefined && !commentShown)
          problems.push(`${r.name}: the comment written to the new leader is absent`);
      }
      assert.deepEqual(problems, []);
    },
  );
});
