import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { Core } from "../core/core.js";
import { fleetConfig } from "../core/fleet-config.js";
import type { CommandInput } from "../core/validate.js";
import type { Logger } from "../model/logger.js";
import { listStatus } from "../store/read-model.js";
import { FakeClock } from "../testing/fake-clock.js";
import { LOSE_MARK } from "../testing/lossy-log.js";
import { type NatsCluster, startNatsCluster } from "../testing/peers/nats.js";
import type { CommandStreamOptions } from "./command-stream.js";

/**
 * A write the command log acknowledged and then lost (docs/replication.md, "A write the log
 * lost"): the writer watches every position the log gave one of its groups, and when the follower
 * passes it with another group there, publishes its group again, says so in the log and counts it.
 * The log here is a real nats-server whose stream stores a foreign empty group where the writer was
 * told its group went (src/testing/lossy-writer-worker.ts).
 */

let nats: NatsCluster;
let dir: string;
before(async () => {
  nats = await startNatsCluster(1);
  dir = mkdtempSync(join(tmpdir(), "lookout-lost-write-"));
});
after(async () => {
  await nats.stop();
  rmSync(dir, { recursive: true, force: true });
});

function result(output: string, at: number): CommandInput {
  return {
    type: "ProcessCheckResult",
    result: {
      host: "host-00000",
      service: "svc-000",
      exitStatus: 2,
      output,
      longOutput: "",
      perfdata: [],
      checkedAt: at,
      durationMs: 0,
      source: "passive",
    },
  };
}

test("a write the log acknowledged and lost is published again, logged and counted", async () => {
  const errors: { msg: string; fields: unknown }[] = [];
  const logger: Logger = {
    debug: () => {},
    info: () => {},
    warn: () => {},
    error: (msg, fields) => errors.push({ msg, fields }),
    child: () => logger,
  };
  const options: CommandStreamOptions = { servers: nats.urls, name: "test", replicas: 1 };
  const config = fleetConfig({ hosts: 1, servicesPerHost: 1, maxAttempts: 1 });
  const core = await Core.open({
    dataDir: dir,
    config,
    clock: new FakeClock(Date.UTC(2026, 10, 1)),
    logger,
    replication: {
      workerUrl: new URL("../testing/lossy-writer-worker.js", import.meta.url),
      origin: "lost-write-test",
      options,
    },
  });
  try {
    await core.applyConfig(config, "cfg-1");
    await core.submit([result(`CRITICAL - ${LOSE_MARK}`, Date.UTC(2026, 10, 1, 0, 1))]);
    const shown = () =>
      listStatus(core.view.index, core.view.projection, {
        host: "host-00000",
        service: "svc-000",
        pageSize: 10,
      }).items.map((i) => i.status?.output);
    const deadline = Date.now() + 20_000;
    while (!shown().includes(`CRITICAL - ${LOSE_MARK}`) && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 50));
    }
    assert.deepEqual(
      shown(),
      [`CRITICAL - ${LOSE_MARK}`],
      `the acknowledged write is applied after all (lost ${core.lostWrites}, ${JSON.stringify(errors)}, ${JSON.stringify(core.replica)})`,
    );
    assert.equal(core.lostWrites, 1);
    const said = errors.find(
      (e) => e.msg === "the command log lost a write it had acknowledged; published it again",
    );
    assert.ok(said !== undefined, `logged: ${JSON.stringify(errors)}`);
    assert.match(JSON.stringify(said.fields), /"found":"thief-1"/);
    // A later write goes through as usual and nothing more is counted.
    await core.submit([result("OK - later", Date.UTC(2026, 10, 1, 0, 2))]);
    const later = Date.now() + 20_000;
    while (!shown().includes("OK - later") && Date.now() < later) await new Promise((r) => setTimeout(r, 50));
    assert.deepEqual(shown(), ["OK - later"]);
    assert.equal(core.lostWrites, 1);
  } finally {
    await core.close();
  }
});
