import type http from "node:http";
import type http2 from "node:http2";
import { Code, ConnectError } from "@connectrpc/connect";
import { codeToHttpStatus, errorToJsonBytes } from "@connectrpc/connect/protocol-connect";
import { connectNodeAdapter } from "@connectrpc/connect-node";
import { Counter, type Registry } from "prom-client";
import type { Surface } from "../auth/index.js";
import type { Logger } from "../model/logger.js";
import { NO_AUDIT } from "./api-audit.js";
import { admit, peerOf, requestContextValues } from "./caller.js";
import { resultsIngestOf } from "./command-service.js";
import { answerDecodeErrorsAsInvalid } from "./decode-errors.js";
import { createH1FastPath } from "./h1-fast-path.js";
import { ingestMethods } from "./ingest-fast-path.js";
import { listStatusMethod } from "./list-status-fast-path.js";
import type { RequestHandler } from "./listener.js";
import { statusPagerOf } from "./query-service.js";
import { finishBodyAfterAnswer, type NodeRequest } from "./request-body.js";
import { mountedServices, type RouteOptions, registerRoutes } from "./routes.js";
import { createRpcMetrics } from "./rpc-metrics.js";
import { createUnaryCalls, createUnaryFastPath, type UnaryMethod } from "./unary-fast-path.js";

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
  /**
   * JSON documents served on GET at these paths (`/zones/workers`) to callers the gate lets use
   * QueryService; nothing secret goes here.
   */
  readonly documents?: ReadonlyMap<string, () => unknown>;
  /**
   * The Host check (host-check.ts), when it is in force: every request whose Host or `:authority`
   * it refuses is answered `permission_denied` before anything else looks at it.
   */
  readonly allowHost?: (host: string | undefined) => boolean;
  /**
   * Whether the fast path's Connect calls over HTTP/1.1 are served straight from the socket
   * (src/api/h1-fast-path.ts; default true). False: node's HTTP server reads every request (tests
   * compare the two).
   */
  readonly h1FastPath?: boolean;
}

/** Security headers of every page of the dashboard: nothing may frame it. */
const FRAME_HEADERS = { "x-frame-options": "DENY" } as const;

/**
 * The placeholder page's policy (the built dashboard's is the static site's): no script at all,
 * only its own inline style.
 */
const PLACEHOLDER_CSP =
  "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

type Res = http.ServerResponse | http2.Http2ServerResponse;

/**
 * Everything served on -listen: `/metrics`, the dashboard at `/`, and the Connect routes (Connect
 * JSON/binary, gRPC and gRPC-Web) for the mounted services; anything else is a plain 404. Passive
 * ingestion (ProcessCheckResults, ProcessCheckResult) and ListStatus, in the forms the fast path
 * fully handles, are served by it before the router (src/api/unary-fast-path.ts,
 * ingest-fast-path.ts, list-status-fast-path.ts), with the same answers; over HTTP/1.1 its Connect
 * calls are read straight from the socket (`h1`, src/api/h1-fast-path.ts).
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
  const calls = methods.length === 0 ? undefined : createUnaryCalls({ methods, metrics, readMaxBytes });
  const fast =
    calls === undefined ? undefined : createUnaryFastPath({ methods, metrics, readMaxBytes }, calls);
  const h1 =
    calls === undefined || o.h1FastPath === false
      ? undefined
      : createH1FastPath({
          calls,
          readMaxBytes,
          ...(o.allowHost === undefined ? {} : { allowHost: o.allowHost }),
        });
  const refusedHosts = new Counter({
    name: "lookout_http_host_refused_total",
    help: "Requests refused because their Host (or :authority) is not a loopback name, an address or in -allowed-hosts, while the check is in force",
    registers: [o.metrics],
  });
  let lastHostLog = 0;
  const handler = (req: NodeRequest, res: Res): void => {
    // The one place every request enters: the Host check covers the fast paths and the router.
    if (o.allowHost !== undefined) {
      const host = hostOf(req);
      if (!o.allowHost(host)) {
        refusedHosts.inc();
        const now = Date.now();
        if (now - lastHostLog >= 60_000) {
          lastHostLog = now;
          o.logger.warn("refused a request for a Host that is not allowed (logged once a minute)", {
            host: (host ?? "").slice(0, 200),
            peer: peerOf(req),
          });
        }
        refuseHost(req, res, host ?? "");
        return;
      }
    }
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
      res.writeHead(200, { ...asset.headers, ...FRAME_HEADERS });
      (res as http.ServerResponse).end(req.method === "HEAD" ? undefined : asset.body);
      return;
    }
    const document = isRead && path !== undefined ? o.documents?.get(path) : undefined;
    if (document !== undefined) {
      // Read like QueryService: with -auth-config it needs a viewer.
      const admitted = admit(
        o.gate,
        "query",
        { authorization: header(req.headers.authorization), cookie: header(req.headers.cookie) },
        peerOf(req),
      );
      if (admitted instanceof ConnectError) {
        sendError(res, admitted);
        return;
      }
      send(res, 200, "application/json", `${JSON.stringify(document())}\n`);
      return;
    }
    if (path === "/" && isRead) {
      send(res, 200, "text/html; charset=utf-8", o.page(), {
        "content-security-policy": PLACEHOLDER_CSP,
        ...FRAME_HEADERS,
      });
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
  return h1 === undefined ? handler : Object.assign(handler, { h1 });
}

function header(v: string | string[] | undefined): string | undefined {
  return Array.isArray(v) ? v.join(",") : v;
}

function send(
  res: Res,
  status: number,
  contentType: string,
  body: string,
  extra: Record<string, string> = {},
): void {
  res.writeHead(status, {
    "content-type": contentType,
    "content-length": Buffer.byteLength(body),
    ...extra,
  });
  (res as http.ServerResponse).end(body);
}

/** A Connect error as a plain HTTP answer (Connect's JSON error body and status). */
function sendError(res: Res, e: ConnectError): void {
  const body = errorToJsonBytes(e, {});
  res.writeHead(codeToHttpStatus(e.code), {
    "content-type": "application/json",
    "content-length": body.byteLength,
  });
  (res as http.ServerResponse).end(body);
}

/** The Host a request names: `:authority` over HTTP/2, else the Host header. */
function hostOf(req: NodeRequest): string | undefined {
  return header(req.headers[":authority"]) ?? header(req.headers.host);
}

/**
 * Answers a request whose Host is refused with `permission_denied` in its protocol's form: gRPC
 * and gRPC-Web as a status in trailers, everything else (Connect, the dashboard, /metrics) as
 * HTTP 403 with Connect's JSON error body. The body is not read.
 */
function refuseHost(req: NodeRequest, res: Res, host: string): void {
  const shown = host.length > 100 ? `${host.slice(0, 100)}…` : host;
  const message = `Host "${shown}" is not allowed: while writes need no credentials, only loopback names, IP addresses and the names in -allowed-hosts are served (a guard against DNS rebinding; docs/api.md)`;
  finishBodyAfterAnswer(req, res);
  const type = header(req.headers["content-type"]) ?? "";
  if (/^application\/grpc(-web)?([+;]|$)/.test(type)) {
    const web = type.startsWith("application/grpc-web");
    const status = {
      "grpc-status": String(Code.PermissionDenied),
      "grpc-message": encodeURIComponent(message),
    };
    if (web) {
      // Trailers-only: gRPC-Web reads the status from the headers of a body-less answer.
      res.writeHead(200, { "content-type": type, ...status });
      res.end();
      return;
    }
    res.writeHead(200, { "content-type": "application/grpc+proto" });
    res.addTrailers(status);
    res.end();
    return;
  }
  sendError(res, new ConnectError(message, Code.PermissionDenied));
}
