import type http from "node:http";
import type http2 from "node:http2";
import { connectNodeAdapter } from "@connectrpc/connect-node";
import type { Registry } from "prom-client";
import type { Surface } from "../auth/index.js";
import type { Logger } from "../model/logger.js";
import { NO_AUDIT } from "./api-audit.js";
import { admit, requestContextValues } from "./caller.js";
import { resultsIngestOf } from "./command-service.js";
import { answerDecodeErrorsAsInvalid } from "./decode-errors.js";
import { ingestMethods } from "./ingest-fast-path.js";
import { listStatusMethod } from "./list-status-fast-path.js";
import type { RequestHandler } from "./listener.js";
import { statusPagerOf } from "./query-service.js";
import { finishBodyAfterAnswer, type NodeRequest } from "./request-body.js";
import { mountedServices, type RouteOptions, registerRoutes } from "./routes.js";
import { createRpcMetrics } from "./rpc-metrics.js";
import { createUnaryFastPath, type UnaryMethod } from "./unary-fast-path.js";

export interface HttpHandlerOptions extends RouteOptions {
  readonly metrics: Registry;
  /** The page served at `/`. */
  readonly page: () => string;
  /**
   * The dashboard's built files: the answer for a GET/HEAD path, or undefined when the path is not
   * one of them. When it answers `/`, `page` is not used.
   */
  readonly site?: (
    path: string,
    acceptEncoding: string | undefined,
  ) => { readonly headers: Record<string, string>; readonly body: Buffer } | undefined;
  readonly logger: Logger;
  /** Largest accepted request body; larger requests get `resource_exhausted`. */
  readonly readMaxBytes?: number;
  /** Extra plain-HTTP routes by path (login and logout), answered before the Connect routes. */
  readonly extraRoutes?: ReadonlyMap<string, (req: NodeRequest, res: Res) => void>;
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
    routes: (router) => {
      registerRoutes(router, o, [metrics.interceptor]);
      answerDecodeErrorsAsInvalid(router);
    },
    readMaxBytes,
    // Unknown fields of a request are skipped, not kept: nothing reads them, and keeping them costs
    // protobuf-es several times the time on a body made of them, on the thread serving reads.
    binaryOptions: { readUnknownFields: false },
    contextValues: requestContextValues,
  });
  const methods: UnaryMethod[] = [];
  // The fast paths ask the same gate as the routers' interceptors (caller.ts `admit`).
  const authorize =
    (surface: Surface): UnaryMethod["authorize"] =>
    (credentials, peer) =>
      admit(o.gate, surface, credentials, peer);
  const ingest = mountedServices(o).command ? resultsIngestOf(o.command) : undefined;
  if (ingest !== undefined) methods.push(...ingestMethods(ingest, authorize("command"), o.audit ?? NO_AUDIT));
  const pager = statusPagerOf(o.query);
  if (pager !== undefined) methods.push(listStatusMethod(pager, authorize("query")));
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
    const asset =
      isRead && o.site !== undefined
        ? o.site(path ?? "/", header(req.headers["accept-encoding"]))
        : undefined;
    if (asset !== undefined) {
      res.writeHead(200, asset.headers);
      (res as http.ServerResponse).end(req.method === "HEAD" ? undefined : asset.body);
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
    const extra = req.method === "POST" && path !== undefined ? o.extraRoutes?.get(path) : undefined;
    if (extra !== undefined) {
      extra(req, res);
      return;
    }
    if (fast?.(req, res)) return;
    finishBodyAfterAnswer(req, res);
    rpc(req, res);
  };
}

function header(v: string | string[] | undefined): string | undefined {
  return Array.isArray(v) ? v.join(",") : v;
}

function send(res: Res, status: number, contentType: string, body: string): void {
  res.writeHead(status, { "content-type": contentType, "content-length": Buffer.byteLength(body) });
  (res as http.ServerResponse).end(body);
}
