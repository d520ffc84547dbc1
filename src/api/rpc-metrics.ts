import { ConnectError, type Interceptor } from "@connectrpc/connect";
import { Counter, Histogram, type Registry } from "prom-client";
import { codeName } from "./connect-codes.js";

/**
 * Counts every RPC and times it, labelled by service, method and the Connect code it ended with
 * (`ok` for success), in the Prometheus registry given.
 */
export function createRpcMetricsInterceptor(registry: Registry): Interceptor {
  const labelNames = ["service", "method", "code"] as const;
  const total = new Counter({
    name: "lookout_rpc_requests_total",
    help: "API calls by service, method and result code.",
    labelNames,
    registers: [registry],
  });
  const duration = new Histogram({
    name: "lookout_rpc_duration_seconds",
    help: "API call duration by service, method and result code.",
    labelNames,
    buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [registry],
  });
  return (next) => async (req) => {
    const start = process.hrtime.bigint();
    const labels = { service: req.service.typeName, method: req.method.name, code: "ok" };
    try {
      return await next(req);
    } catch (e) {
      labels.code = codeName(ConnectError.from(e).code);
      throw e;
    } finally {
      total.inc(labels);
      duration.observe(labels, Number(process.hrtime.bigint() - start) / 1e9);
    }
  };
}
