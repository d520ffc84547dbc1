import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, beforeEach, test } from "node:test";
import { AckPolicy, type JsMsg, jetstream, jetstreamManager } from "@nats-io/jetstream";
import { connect, type NatsConnection, nanos } from "@nats-io/transport-node";
import { fleetConfig, fleetHost, fleetService } from "../core/fleet-config.js";
import { Core } from "../core/index.js";
import { silentLogger } from "../model/logger.js";
import { loggedResults } from "../testing/logged-results.js";
import { type NatsCluster, startNatsCluster } from "../testing/peers/index.js";
import { type LoggedSeqs, loggedResultSeqs, SeqSet, startResultsIngest } from "./index.js";
import { encodeResult, type ResultMessage } from "./job.js";
import { noZoneMetrics } from "./metrics.js";
import { RESULTS_CONSUMER, RESULTS_STREAM, resultSubject } from "./names.js";
import { ensureStreams } from "./streams.js";

/**
 * A leader that took results from the stream and died before logging them: JetStream delivers
 * them again only after the consumer's ack wait, behind the newer results the next leader has
 * logged meanwhile. They must be logged then, not skipped as already logged (docs/zones.md).
 */

// Long enough that the ingest, started right after the dead leader, takes the newer results before
// JetStream delivers the old ones again, also on a loaded machine (the store is opened before).
const ACK_WAIT_MS = 3_000;
let nats: NatsCluster;
let nc: NatsConnection;
const dirs: string[] = [];
const at = Date.now();

before(async () => {
  nats = await startNatsCluster(1);
  nc = await connect({ servers: nats.urls });
  await ensureStreams(await jetstreamManager(nc), 1);
});

// Each test starts from an empty stream and a fresh consumer; the stream's sequences go on.
beforeEach(async () => {
  const jsm = await jetstreamManager(nc);
  await jsm.streams.purge(RESULTS_STREAM);
  await jsm.consumers.delete(RESULTS_STREAM, RESULTS_CONSUMER).catch(() => {});
  // The ingest creates its consumer only when missing: this one has a short ack wait for the test.
  await jsm.consumers.add(RESULTS_STREAM, {
    durable_name: RESULTS_CONSUMER,
    ack_policy: AckPolicy.Explicit,
    ack_wait: nanos(ACK_WAIT_MS),
    max_deliver: -1,
  });
});

after(async () => {
  await nc?.close();
  await nats?.stop();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** Result `i` of the test: its own service, so no result is older than another of its object. */
function result(i: number): ResultMessage {
  return {
    v: 1,
    key: `${fleetHost(0)}!${fleetService(i)}`,
    host: fleetHost(0),
    service: fleetService(i),
    zone: "dc2",
    worker: "w1",
    due: at,
    checkedAt: at + i,
    durationMs: 1,
    exitStatus: 0,
    output: `result ${i}`,
    longOutput: "",
    perfdata: [],
  };
}

/** Publishes results `from`..`to`; answers their stream sequences. */
async function publish(from: number, to: number): Promise<number[]> {
  const seqs: number[] = [];
  for (let i = from; i <= to; i++) {
    seqs.push((await jetstream(nc).publish(resultSubject("dc2"), encodeResult(result(i)))).seq);
  }
  return seqs;
}

/** The dead leader: takes the oldest `n` results, acknowledges those `acked` says, and dies. */
async function deadLeaderTakes(n: number, acked: (index: number) => boolean): Promise<void> {
  const dead = await connect({ servers: nats.urls });
  const consumer = await jetstream(dead).consumers.get(RESULTS_STREAM, RESULTS_CONSUMER);
  let index = 0;
  for await (const m of (await consumer.fetch({ max_messages: n, expires: 2_000 })) as AsyncIterable<JsMsg>) {
    if (acked(index++)) await m.ackAck();
  }
  await dead.close();
  assert.equal(index, n);
}

/** A fresh log for the next leader, opened before the dead leader takes anything. */
async function openLog(): Promise<{ dir: string; core: Core }> {
  const dir = mkdtempSync(join(tmpdir(), "lookout-redelivery-"));
  dirs.push(dir);
  return {
    dir,
    core: await Core.open({ dataDir: dir, config: fleetConfig({ hosts: 1, servicesPerHost: 9 }) }),
  };
}

/** Ingests into `log` until `done` holds for what is logged; answers the log's results. */
async function ingestUntil(
  { dir, core }: { dir: string; core: Core },
  done: (logged: SeqSet) => boolean,
): Promise<{ saved: LoggedSeqs[]; results: string[]; record: LoggedSeqs | undefined }> {
  const saved: LoggedSeqs[] = [];
  const ingest = await startResultsIngest({
    nc,
    submit: (commands, onVisible) => core.submit(commands, { onVisible }),
    placement: () => ({ zone: "dc2", active: true }),
    isLocal: () => false,
    zoneOfToken: (t) => t,
    applied: () => {},
    logged: { floor: 0, above: [] },
    store: { load: () => saved.at(-1), save: (s) => saved.push(s) },
    logger: silentLogger,
    metrics: noZoneMetrics,
    now: () => Date.now(),
  });
  try {
    const deadline = Date.now() + 20_000;
    while (!done(new SeqSet(ingest.logged))) {
      assert.ok(Date.now() < deadline, `logged only ${JSON.stringify(ingest.logged)}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  } finally {
    await ingest.stop();
    await core.flush();
  }
  // The log records the whole set after the last batch, for a restart that finds no store.
  const record = loggedResultSeqs(dir);
  const results = loggedResults(dir).sort();
  await core.close();
  return { saved, results, record };
}

const logged = (...i: number[]) => i.map((n) => `${fleetHost(0)}!${fleetService(n)}@${at + n}`).sort();

test("results a dead leader took are logged when redelivered behind newer ones, each once", async () => {
  const log = await openLog();
  const first = await publish(1, 5);
  await deadLeaderTakes(3, () => false);
  const last = (await publish(6, 8)).at(-1) as number;
  const { saved, results, record } = await ingestUntil(log, (s) => s.floor >= last);
  // The newer ones came first, with a gap below them that the redelivery then closed.
  assert.equal(saved[0]?.floor, 0, "the first batch logged above a gap");
  assert.equal(saved[0]?.above[0]?.[0], first[3]);
  assert.deepEqual(saved.at(-1), { floor: last, above: [] });
  assert.deepEqual(results, logged(1, 2, 3, 4, 5, 6, 7, 8));
  assert.deepEqual(record, { floor: last, above: [] });
});

test("a redelivery that fills a gap between logged ranges is logged too", async () => {
  // The dead leader logged and acknowledged 1 and 3 (in its own log); 2 comes back alone, between
  // ranges of this log's set, moving neither its floor nor its highest sequence.
  const log = await openLog();
  const seqs = await publish(1, 5);
  await deadLeaderTakes(3, (index) => index !== 1);
  const last = (await publish(6, 8)).at(-1) as number;
  const second = seqs[1] as number;
  const { results, record } = await ingestUntil(log, (s) => s.has(second) && s.has(last));
  assert.deepEqual(results, logged(2, 4, 5, 6, 7, 8));
  assert.ok(record !== undefined && new SeqSet(record).has(second), JSON.stringify(record));
});
