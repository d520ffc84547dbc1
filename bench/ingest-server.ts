/**
 * A Lookout API server over a synthetic passive fleet, for the ingestion benchmarks and the crash
 * test: Core (event log, writer thread, projection) behind the real Connect/gRPC/gRPC-Web handler
 * with the real Command and Query services. Stands in for `node dist/src/main.js` until the app
 * wires Core in; prints `listening <port>` on stdout when ready, stops on SIGTERM.
 *
 *   node dist/bench/ingest-server.js <dataDir> <hosts> <servicesPerHost> [port=0] [snapshotEveryEvents]
 */
import { createCommandService } from "../src/api/command-service.js";
import { createHttpHandler } from "../src/api/http-handler.js";
import { DualProtocolServer } from "../src/api/listener.js";
import { createQueryService } from "../src/api/query-service.js";
import { createMetricsRegistry } from "../src/app/metrics.js";
import { Core } from "../src/core/core.js";
import { fleetConfig } from "../src/core/fleet-config.js";
import { silentLogger } from "../src/model/logger.js";

const [dataDir, hosts, services, port, snapshotEvery] = process.argv.slice(2);
if (dataDir === undefined || hosts === undefined || services === undefined) {
  throw new Error("usage: ingest-server <dataDir> <hosts> <servicesPerHost> [port] [snapshotEveryEvents]");
}
const config = fleetConfig({ hosts: Number(hosts), servicesPerHost: Number(services) });
const core = await Core.open({
  dataDir,
  config,
  configDigest: `fleet:${hosts}x${services}`,
  ...(snapshotEvery === undefined ? {} : { writer: { snapshotEveryEvents: Number(snapshotEvery) } }),
});
const handler = createHttpHandler({
  readOnly: false,
  authConfigured: false,
  query: createQueryService({ version: "dev", core }),
  command: createCommandService({ core }),
  admin: {},
  metrics: createMetricsRegistry("dev"),
  page: () => "lookout bench",
  logger: silentLogger,
});
const server = new DualProtocolServer(handler);
const address = await server.listen(Number(port ?? 0), "127.0.0.1");
process.stdout.write(`listening ${address.port}\n`);
if (process.env.BENCH_STATS === "1") {
  setInterval(() => {
    void core.writerHeap().then((w) => {
      const m = process.memoryUsage();
      const mib = (b: number): string => (b / 1048576).toFixed(0);
      process.stderr.write(
        `rss ${mib(m.rss)} MiB; reader heap ${mib(m.heapUsed)}/${mib(m.heapTotal)}; writer heap ${mib(w.heapUsed)}/${mib(w.heapTotal)}; projection eventSeq ${core.view.projection.eventSeq()}\n`,
      );
    });
  }, 3000).unref();
}
process.on("SIGTERM", () => {
  void server
    .close()
    .then(() => core.close())
    .then(() => process.exit(0));
});
