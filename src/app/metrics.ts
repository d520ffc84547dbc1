import { collectDefaultMetrics, Gauge, Registry } from "prom-client";

/** The process-wide Prometheus registry: process metrics plus `lookout_build_info{version}`. */
export function createMetricsRegistry(version: string): Registry {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const info = new Gauge({
    name: "lookout_build_info",
    help: "A metric with a constant '1' value labelled by the version Lookout was built from.",
    labelNames: ["version", "nodeversion"],
    registers: [registry],
  });
  info.set({ version, nodeversion: process.version }, 1);
  return registry;
}
