import { ConnectError, type Interceptor } from "@connectrpc/connect";
import { Counter, Histogram, type Registry } from "prom-client";
import { codeName } from "./connect-codes.js";

/** The per-RPC metrics of one registry: an interceptor for the Connect router, and direct recording. */
export interface RpcMetrics {
  /** Counts and times every call that passes through it. */
  readonly interceptor: Interceptor;
  /**
   * Records one call served outside the router (the ingestion fast path, src/api/ingest-fast-path.ts):
   * `code` is the Connect wire name (`ok` for success).
   */
  observe(service: string, method: string, code: string, seconds: number): void;
}

/**
 * Counts every RPC and times it, labelled by service, method and the Connect code it ended with
 * (`ok` for success), in the Prometheus registry given. Create it once per registry.
 */
export function createRpcMetrics(registry: Registry): RpcMetrics {
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
  // Each label set's children, kept: prom-client hashes a label object on every call made with one,
  // and the fast paths record tens of thousands of calls a second.
  const children = new Map<string, { inc(): void; observe(v: number): void }>();
  const observe = (service: string, method: string, code: string, seconds: number): void => {
    const key = `${service}/${method}/${code}`;
    let child = children.get(key);
    if (child === undefined) {
      const labels = { service, method, code };
      const count = total.labels(labels);
      const time = duration.labels(labels);
      child = { inc: () => count.inc(), observe: (v) => time.observe(v) };
      children.set(key, child);
    }
    child.inc();
    child.observe(seconds);
  };
  return {
    observe,
    interceptor: (next) => async (req) => {
      const start = process.hrtime.bigint();
      let code = "ok";
      try {
        return await next(req);
      } catch (e) {
        code = codeName(ConnectError.from(e).code);
        throw e;
      } finally {
        observe(req.service.typeName, req.method.name, code, Number(process.hrtime.bigint() - start) / 1e9);
      }
    },
  };
}
