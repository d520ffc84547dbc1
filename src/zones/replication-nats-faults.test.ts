import assert from "node:assert/strict";
import { test } from "node:test";
import { Code, ConnectError } from "@connectrpc/connect";
import {
  describeMissing,
  keyOf,
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
 * Issue 29, "NATS faults": three servers on a 3-node nats cluster whose stream keeps 3 replicas.
 * One nats node is killed (SIGKILL) during ingestion: writes go on (a quorum is left) and no write
 * the API acknowledged is lost on any server. A second one is killed (no quorum): a write to the
 * leader or to a replica answers Connect `unavailable` and does not hang (a bound of 15 s, far above
 * what it should take, only tells a hang from an answer), while reads keep answering. Both nodes
 * come back: writes succeed again on every server without restarting Lookout, and every server
 * shows them.
 */

/** An answer later than this is a hang, not a prompt `unavailable`. */
const HANG_MS = 15_000;
// Generous: a loaded machine delays a replica; servers that diverge never converge.
const CONVERGE_MS = 30_000;

test("one nats node dies: writes go on, none lost; the quorum lost: unavailable, reads go on; it returns: writes resume", async (t) => {
  await withReplicaSet({ config: passiveFleet(6, 5) }, async (set) => {
    await set.addMany(3);
    const leader = await set.leader();
    const servers = set.running();
    const replica = servers.find((r) => r !== leader) as Replica;
    const [n1, n2] = set.nats.nodes;
    assert.ok(n1 !== undefined && n2 !== undefined);
    const objects: ObjectName[] = [];
    for (let h = 0; h < 5; h++) for (let s = 0; s < 5; s++) objects.push({ host: `h${h}`, service: `s${s}` });
    const ackObjects: ObjectName[] = [0, 1, 2, 3, 4].map((s) => ({ host: "h5", service: `s${s}` }));
    await sendResults(
      leader,
      ackObjects.map((o) => [o.host, o.service, 2, `CRITICAL - ${keyOf(o)} to acknowledge`] as const),
    );
    const problems: string[] = [];

    // 1. One of three nats nodes dies during ingestion.
    const load = startWriteLoad({
      targets: () => [leader, ...servers.filter((r) => r !== leader)],
      objects,
      ackObjects,
      sideObject: { host: "h5" },
      writers: 2,
      batch: 10,
      pauseMs: 50,
      tag: "nats",
    });
    await sleep(2_000);
    const before = load.ledger.ackedResults;
    await n1.kill();
    // JetStream elects a new leader for the streams the node led: a few seconds on a quiet machine,
    // more on a loaded one; writes wait for it (within their budget) or are retried by the load.
    const deadline = Date.now() + 60_000;
    while (load.ledger.ackedResults < before + 50 && Date.now() < deadline) await sleep(250);
    await sleep(2_000);
    const ledger = await load.stop();
    t.diagnostic(
      `one node down: ${ledger.ackedResults} results acknowledged (${before} before the kill), ${ledger.failures} calls failed unanswered`,
    );
    if (ledger.ackedResults <= before) problems.push("no write was acknowledged after one nats node died");
    const c = await converge(
      leader,
      servers.filter((r) => r !== leader),
      { timeoutMs: CONVERGE_MS },
    );
    if (!c.equal) problems.push(`one nats node down, servers differ: ${c.difference}`);
    for (const r of servers) {
      const m = describeMissing(r.name, await settledWrites(r, ledger), ledger);
      if (m !== undefined) problems.push(`one nats node down: ${m}`);
    }

    // 2. A second one dies: no quorum. Writes answer `unavailable`, promptly; reads answer.
    await n2.kill();
    // Every call at once: each is bounded by its own timeout, so a hang answers DeadlineExceeded.
    const limit = { timeoutMs: HANG_MS + 5_000 };
    const calls = [leader, replica].flatMap((r) => {
      const api = apiOf(r.url);
      const who = `${r.name}${r === leader ? " (leader)" : ""}`;
      return [
        [
          `AddComment on ${who}`,
          () => api.command.addComment({ object: { host: "h5" }, author: "t", comment: "no quorum" }, limit),
        ],
        [
          `ProcessCheckResults on ${who}`,
          () => sendResults(r, [["h0", "s0", 1, "WARNING - no quorum"]], limit.timeoutMs),
        ],
      ] as const;
    });
    await Promise.all(
      calls.map(async ([name, call]) => {
        const t0 = performance.now();
        const code = await call().then(
          () => "OK",
          (e: unknown) => Code[ConnectError.from(e).code],
        );
        const ms = performance.now() - t0;
        t.diagnostic(`no quorum: ${name} answered ${code} after ${Math.round(ms)} ms`);
        if (code !== Code[Code.Unavailable] || ms > HANG_MS)
          problems.push(
            `no quorum: ${name} answered ${code} after ${Math.round(ms)} ms, want Unavailable within ${HANG_MS} ms`,
          );
      }),
    );
    // Reads keep answering, on every server.
    for (const r of servers) {
      try {
        const s = await apiOf(r.url).query.listStatus({ pageSize: 1000 }, { timeoutMs: HANG_MS });
        if (s.statuses.length === 0) problems.push(`no quorum: ListStatus on ${r.name} answered no object`);
      } catch (e) {
        problems.push(`no quorum: ListStatus on ${r.name}: ${String(e)}`);
      }
    }

    // 3. The quorum returns: writes succeed again on every server, without restarting Lookout.
    await n1.restart();
    await n2.restart();
    const resumed: string[] = [];
    for (const r of servers) {
      const deadline = Date.now() + 60_000;
      let last = "";
      for (let attempt = 1; ; attempt++) {
        try {
          const out = `OK - ${r.name} after the quorum returned`;
          await sendResults(r, [["h0", `s${servers.indexOf(r)}`, 0, out]], 10_000);
          resumed.push(out);
          t.diagnostic(
            `the quorum back: a write to ${r.name} acknowledged at attempt ${attempt} (${new Date().toISOString()})${attempt > 1 ? `; the last failure: ${last}` : ""}`,
          );
          break;
        } catch (e) {
          last = String(e);
        }
        if (Date.now() > deadline) {
          problems.push(`the quorum back: writes to ${r.name} still fail after 60 s: ${last}`);
          break;
        }
        await sleep(500);
      }
    }
    // Acknowledged means stored: each server shows the writes once its follower, which the outage
    // cut off, has caught up again. Then they all agree.
    for (const r of servers) {
      const deadline = Date.now() + 30_000;
      let missing: string[] = resumed;
      while (missing.length > 0 && Date.now() < deadline) {
        const outputs = new Set((await readState(r.url)).status.map((s) => fieldOf(s, "output")));
        missing = resumed.filter((out) => !outputs.has(out));
        if (missing.length > 0) await sleep(250);
      }
      for (const out of missing)
        problems.push(`the quorum back: ${r.name} does not show "${out}" after 30 s`);
    }
    const after = await converge(
      leader,
      servers.filter((r) => r !== leader),
      { timeoutMs: CONVERGE_MS },
    );
    if (!after.equal) problems.push(`the quorum back, servers differ: ${after.difference}`);
    assert.deepEqual(problems, []);
  });
});
