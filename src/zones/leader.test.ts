import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { connect, type NatsConnection } from "@nats-io/transport-node";
import { silentLogger } from "../model/logger.js";
import { type NatsCluster, startNatsCluster } from "../testing/peers/index.js";
import { type LeaderElection, startLeaderElection } from "./leader.js";

let nats: NatsCluster;
const conns: NatsConnection[] = [];

before(async () => {
  nats = await startNatsCluster(1);
});

after(async () => {
  for (const c of conns) await c.close();
  await nats?.stop();
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

test("a server that wins the lease but cannot lead gives it back at once, and a standby leads", async () => {
  const elect = async (id: string, onElected: (token: number) => Promise<void>): Promise<LeaderElection> => {
    const nc = await connect({ servers: nats.urls });
    conns.push(nc);
    return startLeaderElection({
      nc,
      id,
      replicas: 1,
      logger: silentLogger,
      onElected,
      onLost: async () => {},
      // A lease far longer than the test: only giving it back lets the standby in.
      ttlMs: 60_000,
      renewMs: 300,
    });
  };
  let failures = 0;
  const broken = await elect("broken", async () => {
    failures++;
    throw new Error("cannot start the scheduler");
  });
  assert.ok(failures >= 1, "the first server won the free lease");
  assert.equal(broken.token, undefined, "and does not claim to lead");
  let led = 0;
  const standby = await elect("standby", async () => {
    led++;
  });
  const deadline = Date.now() + 5_000;
  while (standby.token === undefined) {
    assert.ok(Date.now() < deadline, "the standby never won the lease");
    await sleep(50);
  }
  assert.equal(led, 1);
  assert.equal(broken.token, undefined);
  await standby.stop();
  await broken.stop();
});
