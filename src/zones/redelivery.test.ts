import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { AckPolicy, type JsMsg, jetstream, jetstreamManager } from "@nats-io/jetstream";
import { connect, type NatsConnection, nanos } from "@nats-io/transport-node";
import { fleetConfig, fleetHost, fleetService } from "../core/fleet-config.js";
import { Core } from "../core/index.js";
import { silentLogger } from "../model/logger.js";
import { openEventLogReader } from "../store/index.js";
import { type NatsCluster, startNatsCluster } from "../testing/peers/index.js";
import { type LoggedSeqs, loggedResultSeqs, startResultsIngest } from "./index.js";
import { encodeResult, type ResultMessage } from "./job.js";
import { noZoneMetrics } from "./metrics.js";
import { RESULTS_CONSUMER, RESULTS_STREAM, resultSubject } from "./names.js";
import { ensureStreams } from "./streams.js";

/**
 * A leader that took results from the stream and died before logging them: JetStream delivers
 * them again only after the consumer's ack wait, behind the newer results the next leader has
 * logged meanwhile. They must be logged then, not skipped as already logged (docs/zones.md).
 */

const ACK_WAIT_MS = 1_500;
let nats: NatsCluster;
let nc: NatsConnection;
const dirs: string[] = [];

before(async () => {
  nats = await startNatsCluster(1);
  nc = await connect({ servers: nats.urls });
  const jsm = await jetstreamManager(nc);
  await ensureStreams(jsm, 1);
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

function result(i: number, at: number): ResultMessage {
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

function loggedOutputs(dir: string): string[] {
  const reader = openEventLogReader(dir);
  try {
    const out: string[] = [];
    for (let from = 0; ; ) {
      const batch = reader.eventsAfter(from, 1000);
      if (batch.length === 0) return out;
      for (const e of batch) {
        from = e.seq;
        if (e.event.type === "CheckResultProcessed") out.push(e.event.result.output);
      }
    }
  } finally {
    reader.close();
  }
}

test("results a dead leader took are logged when redelivered behind newer ones, each once", async () => {
  const dir = mkdtempSync(join(tmpdir(), "lookout-redelivery-"));
  dirs.push(dir);
  const js = jetstream(nc);
  const at = Date.now();
  for (let i = 1; i <= 5; i++) await js.publish(resultSubject("dc2"), encodeResult(result(i, at)));

  // The dead leader: takes the first three and never acknowledges them.
  const dead = await connect({ servers: nats.urls });
  const taken: number[] = [];
  const iter = await (await jetstream(dead).consumers.get(RESULTS_STREAM, RESULTS_CONSUMER)).fetch({
    max_messages: 3,
    expires: 2_000,
  });
  for await (const m of iter as AsyncIterable<JsMsg>) taken.push(m.seq);
  await dead.close();
  assert.deepEqual(taken, [1, 2, 3]);
  for (let i = 6; i <= 8; i++) await js.publish(resultSubject("dc2"), encodeResult(result(i, at)));

  const core = await Core.open({ dataDir: dir, config: fleetConfig({ hosts: 1, servicesPerHost: 9 }) });
  const saved: LoggedSeqs[] = [];
  const ingest = await startResultsIngest({
    nc,
    submit: (commands, onVisible) => core.submit(commands, { onVisible }),
    known: () => true,
    applied: () => {},
    logged: { floor: 0, above: [] },
    store: { load: () => saved.at(-1), save: (s) => saved.push(s) },
    logger: silentLogger,
    metrics: noZoneMetrics,
    now: () => Date.now(),
  });
  try {
    const deadline = Date.now() + 20_000;
    while (ingest.logged.floor < 8) {
      assert.ok(Date.now() < deadline, `logged only ${JSON.stringify(ingest.logged)}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    // The newer ones came first, with a gap below them that the redelivery then closed.
    assert.equal(saved[0]?.floor, 0, "the first batch logged above a gap");
    assert.equal(saved[0]?.above[0]?.[0], 4);
    assert.deepEqual(saved.at(-1), { floor: 8, above: [] });
  } finally {
    await ingest.stop();
    await core.flush();
  }
  const outputs = loggedOutputs(dir).sort();
  assert.deepEqual(
    outputs,
    [1, 2, 3, 4, 5, 6, 7, 8].map((i) => `result ${i}`),
  );
  // The log records the whole set after the last batch, for a restart that finds no store.
  assert.deepEqual(loggedResultSeqs(dir), { floor: 8, above: [] });
  await core.close();
});
