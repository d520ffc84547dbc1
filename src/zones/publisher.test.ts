import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { jetstreamManager } from "@nats-io/jetstream";
import { connect, type NatsConnection } from "@nats-io/transport-node";
import { type NatsCluster, startNatsCluster } from "../testing/peers/index.js";
import { createAckedPublisher } from "./publisher.js";

let nats: NatsCluster;
let nc: NatsConnection;
const data = new TextEncoder().encode("job");

before(async () => {
  nats = await startNatsCluster(1);
  nc = await connect({ servers: nats.urls });
  const jsm = await jetstreamManager(nc);
  await jsm.streams.add({ name: "T", subjects: ["t.>"], duplicate_window: 60_000_000_000 });
});

after(async () => {
  await nc?.close();
  await nats?.stop();
});

test("acknowledged with the stream sequence; the same message id again is a duplicate of it", async () => {
  const p = createAckedPublisher(nc, 2_000);
  try {
    const first = await p.publish("t.a", data, "a@1");
    assert.equal(first.duplicate, false);
    const again = await p.publish("t.a", data, "a@1");
    assert.deepEqual(again, { seq: first.seq, duplicate: true });
    const other = await p.publish("t.a", data, "a@2");
    assert.deepEqual(other, { seq: first.seq + 1, duplicate: false });
  } finally {
    p.close();
  }
});

test("thousands in flight are each acknowledged once, with distinct sequences", async () => {
  const p = createAckedPublisher(nc, 5_000);
  try {
    const acks = await Promise.all(
      Array.from({ length: 5_000 }, (_, i) => p.publish(`t.m${i % 50}`, data, `m${i}`)),
    );
    assert.equal(new Set(acks.map((a) => a.seq)).size, 5_000);
    assert.ok(acks.every((a) => !a.duplicate));
    assert.equal(p.pending, 0);
  } finally {
    p.close();
  }
});

test("no stream for the subject: refused at once, not at the timeout", async () => {
  const p = createAckedPublisher(nc, 10_000);
  try {
    const t0 = Date.now();
    await assert.rejects(p.publish("nostream.x", data, "x"), /no responders/);
    assert.ok(Date.now() - t0 < 2_000, `${Date.now() - t0} ms`);
  } finally {
    p.close();
  }
});

test("an answer that never comes times out; closing refuses what still waits", async () => {
  const silent = nc.subscribe("silent.>"); // takes the message and never answers
  const p = createAckedPublisher(nc, 300);
  try {
    const t0 = Date.now();
    await assert.rejects(p.publish("silent.x", data, "s1"), /no acknowledgement within 300 ms/);
    assert.ok(Date.now() - t0 >= 290, `${Date.now() - t0} ms`);
    const waiting = p.publish("silent.y", data, "s2");
    p.close();
    await assert.rejects(waiting, /publisher closed/);
    await assert.rejects(p.publish("t.a", data, "s3"), /publisher closed/);
  } finally {
    silent.unsubscribe();
    p.close();
  }
});
