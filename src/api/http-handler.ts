import type http from "node:http";
import type http2 from "node:http2";
import { connectNodeAdapter } from "@connectrpc/connect-node";
import type { Registry } from "prom-client";
import type { Logger } from "../model/logger.js";
import { bearerTokenCheck } from "./bearer-token.js";
import { resultsIngestOf } from "./command-service.js";
import { ingestMethods } from "./ingest-fast-path.js";
import { listStatusMethod } from "./list-status-fast-path.js";
import type { RequestHandler } from "./listener.js";
import { statusPagerOf } from "./query-service.js";
import { mountedServices, type RouteOptions, registerRoutes } from "./routes.js";
import { createRpcMetrics } from "./rpc-metrics.js";
import { createUnaryFastPath, type UnaryMethod } from "./unary-fast-path.js";

export interface HttpHandlerOptions extends RouteOptions {
  readonly metrics: Registry;
  /** The page served at `/`. */
  readonly page: () => string;
  readonly logger: Logger;
  /** Largest accepted request body; larger requests get `resource_exhausted`. */
  readonly readMaxBytes?: number;
  /** JSON documents served on GET at these paths (`/zones/workers`); nothing secret goes here. */
  readonly documents?: ReadonlyMap<string, () => unknown>;
}

type Res = http.ServerResponse | http2.Http2ServerResponse;

/**
 * Everything served on -listen: `/metrics`, the dashboard at `/`, and the Connect routes (Connect
 * JSON/binary, gRPC and gRPC-Web) for the mounted services; anything else is a plain 404. Passive
 * ingestion (ProcessCheckResults, ProcessCheckResult) and ListStatus, in the forms the fast path
 * fully handles, are served by it before the router (src/api/unary-fast-path.ts,
 * ingest-fast-path.ts, list-status-fast-path.ts), with the same answers.
 */
export function createHttpHandler(o: HttpHandlerOptions): RequestHandler {
  const readMaxBytes = o.readMaxBytes ?? 64 * 1024 * 1024;
  const metrics = createRpcMetrics(o.metrics);
  const rpc = connectNodeAdapter({
    routes: (router) => registerRoutes(router, o),
    interceptors: [metrics.interceptor],
    readMaxBytes,
  });
  const methods: UnaryMethod[] = [];
  // Only when the gate on writes is one it can apply itself (the -api-token check): any other
  // interceptor keeps every call on the router.
  const ingest = mountedServices(o).command ? resultsIngestOf(o.command) : undefined;
  const authorize = o.commandAuth === undefined ? undefined : bearerTokenCheck(o.commandAuth);
  if (ingest !== undefined && (o.commandAuth === undefined || authorize !== undefined)) {
    methods.push(...ingestMethods(ingest, authorize));
  }
  // The query service has no interceptor of its own (only the metrics one, which the fast path
  // reproduces). Should reads ever be gated (identities under -auth-config), the ListStatus fast
  // path must apply that gate as the ingestion one applies the token, or step aside.
  const pager = statusPagerOf(o.query);
  if (pager !== undefined) methods.push(listStatusMethod(pager));
  const fast = methods.length === 0 ? undefined : createUnaryFastPath({ methods, metrics, readMaxBytes });
  return (req, res) => {
    const path = (req.url ?? "/").split("?")[0];
    const isRead = req.method === "GET" || req.method === "HEAD";
    if (path === "/metrics" && isRead) {
      o.metrics.metrics().then(
        (text) => send(res, 200, o.metrics.contentType, text),
        (e: unknown) => {
          o.logger.error("metrics collection failed", { error: e });
          send(res, 500, "text/plain; charset=utf-8", "metrics collection failed\n");
        },
      );
      return;
    }
    const document = isRead && path !== undefined ? o.documents?.get(path) : undefined;
    if (document !== undefined) {
      send(res, 200, "application/json", `${JSON.stringify(document())}\n`);
      return;
    }
    if (path === "/" && isRead) {
      send(res, 200, "text/html; charset=utf-8", o.page());
      return;
    }
    if (fast?.(req, res)) return;
    rpc(req, res);
  };
}

function send(res: Res, status: number, contentType: string, body: string): void {
  res.writeHead(status, { "content-type": contentType, "content-length": Buffer.byteLength(body) });
  (res as http.ServerResponse).end(body);
}
