/**
 * A `lookout worker` for bench/zones-throughput.ts whose checks are in-process dummies (tcp checks
 * answer OK at once), so the figures are those of JetStream and Lookout's job flow, not of probes.
 *
 *   node dist/bench/zones-worker-child.js NATS_URL ZONE NAME CONCURRENCY
 */
import { connect } from "@nats-io/transport-node";
import type { Checker } from "../src/model/checker.js";
import { systemClock } from "../src/model/clock.js";
import { silentLogger } from "../src/model/logger.js";
import { natsConnectOptions, startWorker } from "../src/zones/index.js";

const [url = "", zone = "z", name = "w", concurrency = "1000"] = process.argv.slice(2);
const dummy: Checker = {
  type: "tcp",
  run: async () => ({ exitStatus: 0, output: "TCP OK - dummy", longOutput: "", perfdata: [] }),
};
const nc = await connect(natsConnectOptions(url, `bench-worker-${name}`));
const worker = await startWorker({
  nc,
  zone,
  id: name,
  concurrency: Number(concurrency),
  checkers: new Map([["tcp", dummy]]),
  clock: systemClock,
  logger: silentLogger,
});
process.send?.("ready");
process.on("SIGTERM", () => {
  void worker
    .stop()
    .then(() => nc.close())
    .then(() => process.exit(0));
});
