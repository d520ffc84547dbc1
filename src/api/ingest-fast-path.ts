import type http from "node:http";
import type http2 from "node:http2";
import { Code, ConnectError } from "@connectrpc/connect";
import { type Compression, compressionNegotiate } from "@connectrpc/connect/protocol";
import {
  codeToHttpStatus,
  contentTypeUnaryRegExp,
  errorToJsonBytes,
  parseTimeout as parseConnectTimeout,
} from "@connectrpc/connect/protocol-connect";
import { parseTimeout as parseGrpcTimeout, setTrailerStatus } from "@connectrpc/connect/protocol-grpc";
import { compressionBrotli, compressionGzip } from "@connectrpc/connect-node";
import type { AuthorizationCheck } from "./bearer-token.js";
import { codeName } from "./connect-codes.js";
import { type GrpcBody, type NodeRequest, readGrpcBody, readUnaryBody, tooLarge } from "./request-body.js";
import { type BodyFormat, decodeRequest, type IngestAnswer, type ResultsIngest } from "./results-ingest.js";
import type { RpcMetrics } from "./rpc-metrics.js";

type NodeResponse = http.ServerResponse | http2.Http2ServerResponse;

/** What the fast path serves with. */
export interface IngestFastPathOptions {
  readonly ingest: ResultsIngest;
  /** The -api-token check; undefined when writes are open. */
  readonly authorize: AuthorizationCheck | undefined;
  readonly metrics: RpcMetrics;
  /** Largest accepted message, as for the Connect router. */
  readonly readMaxBytes: number;
}

const SERVICE = "svc.v1.CommandService";
const METHODS: ReadonlyMap<string, { readonly name: string; readonly batch: boolean }> = new Map([
  [`/${SERVICE}/ProcessCheckResults`, { name: "ProcessCheckResults", batch: true }],
  [`/${SERVICE}/ProcessCheckResult`, { name: "ProcessCheckResult", batch: false }],
]);
/** What connect-node accepts and offers (its adapter's default), in its order of preference. */
const COMPRESSIONS: Compression[] = [compressionGzip, compressionBrotli];
/** Connect's default: smaller bodies are never compressed. */
const COMPRESS_MIN_BYTES = 1024;
/** The longest timer Node keeps; a longer deadline is as good as none. */
const MAX_TIMER_MS = 2 ** 31 - 1;
const GRPC_CONTENT_TYPE = /^application\/grpc(?:\+proto)?$/i;

/** The wire protocols served here: gRPC over HTTP/2, and Connect unary. */
type Protocol = "grpc" | "connect";

interface Call {
  readonly protocol: Protocol;
  readonly format: BodyFormat;
  readonly method: string;
  readonly batch: boolean;
  readonly timeoutMs: number | undefined;
  /** How the response may be compressed (the client accepts it). */
  readonly compression: Compression | undefined;
}

/**
 * Serves ProcessCheckResults and ProcessCheckResult without the Connect router, for the requests it
 * fully handles — gRPC (`application/grpc`, `application/grpc+proto`, over HTTP/2) and Connect
 * unary (`application/proto`, `application/json`), uncompressed — so that this thread only frames
 * the request: the body goes to the writer's thread undecoded (ResultsIngest), where it is decoded,
 * validated and enqueued. Answers, status codes, error bodies, gRPC trailers, size limits and RPC
 * metrics are Connect's; the -api-token check runs first. A deadline (`grpc-timeout`,
 * `connect-timeout-ms`) that passes first is answered `deadline_exceeded` (the batch may still be
 * enqueued, as with any deadline). Everything else — gRPC-Web, compressed requests, malformed
 * headers, other methods — is left to the router: the handler returns false without touching it.
 */
export function createIngestFastPath(
  o: IngestFastPathOptions,
): (req: NodeRequest, res: NodeResponse) => boolean {
  return (req, res) => {
    const call = match(req);
    if (call === undefined) return false;
    void serve(o, call, req, res);
    return true;
  };
}

function header(req: NodeRequest, name: string): string | undefined {
  const v = req.headers[name];
  return Array.isArray(v) ? v.join(", ") : v;
}

/** The call, when the request is one served here; decided from the headers alone. */
function match(req: NodeRequest): Call | undefined {
  if (req.method !== "POST") return undefined;
  const method = METHODS.get((req.url ?? "").split("?", 1)[0] as string);
  if (method === undefined) return undefined;
  const type = header(req, "content-type") ?? "";
  if (GRPC_CONTENT_TYPE.test(type)) {
    const encoding = header(req, "grpc-encoding");
    if (req.httpVersionMajor !== 2 || (encoding !== undefined && encoding !== "identity")) return undefined;
    const timeout = parseGrpcTimeout(header(req, "grpc-timeout") ?? null, Number.MAX_SAFE_INTEGER);
    if (timeout.error !== undefined) return undefined;
    return {
      protocol: "grpc",
      format: "proto",
      method: method.name,
      batch: method.batch,
      timeoutMs: timeout.timeoutMs,
      compression: negotiate(header(req, "grpc-accept-encoding"), "grpc-accept-encoding"),
    };
  }
  if (contentTypeUnaryRegExp.test(type)) {
    const encoding = header(req, "content-encoding");
    if (encoding !== undefined && encoding !== "identity") return undefined;
    const timeout = parseConnectTimeout(header(req, "connect-timeout-ms") ?? null, Number.MAX_SAFE_INTEGER);
    if (timeout.error !== undefined) return undefined;
    return {
      protocol: "connect",
      format: /^application\/json/i.test(type) ? "json" : "proto",
      method: method.name,
      batch: method.batch,
      timeoutMs: timeout.timeoutMs,
      compression: negotiate(header(req, "accept-encoding"), "accept-encoding"),
    };
  }
  return undefined;
}

function negotiate(accepted: string | undefined, headerName: string): Compression | undefined {
  return compressionNegotiate(COMPRESSIONS, null, accepted ?? null, headerName).response ?? undefined;
}

/** The outcome to answer: accepted results, or an error (`counted` unless Connect would not count it). */
type Outcome = { readonly accepted: number } | { readonly error: ConnectError; readonly counted: boolean };

async function serve(
  o: IngestFastPathOptions,
  call: Call,
  req: NodeRequest,
  res: NodeResponse,
): Promise<void> {
  let answered = false;
  let started: bigint | undefined;
  const answer = (outcome: Outcome): void => {
    if (answered) return;
    answered = true;
    clearTimeout(timer);
    if ("error" in outcome && outcome.counted) record(outcome.error);
    if ("accepted" in outcome) record(undefined);
    respond(call, res, outcome).catch(() => res.destroy());
  };
  const record = (error: ConnectError | undefined): void => {
    const seconds = started === undefined ? 0 : Number(process.hrtime.bigint() - started) / 1e9;
    o.metrics.observe(SERVICE, call.method, error === undefined ? "ok" : codeName(error.code), seconds);
  };
  const deadline = call.timeoutMs === undefined ? undefined : performance.now() + call.timeoutMs;
  const timedOut = (): void =>
    answer({ error: new ConnectError("the operation timed out", Code.DeadlineExceeded), counted: true });
  const timer =
    call.timeoutMs !== undefined && call.timeoutMs <= MAX_TIMER_MS
      ? setTimeout(timedOut, call.timeoutMs)
      : undefined;

  // Reading: what Connect checks before any interceptor runs (sizes, framing) is not counted.
  let grpc: GrpcBody | undefined;
  let body: Uint8Array | ConnectError | undefined;
  if (call.protocol === "grpc") {
    grpc = await readGrpcBody(req, o.readMaxBytes);
    body = grpc === undefined ? undefined : unaryMessage(grpc, o.readMaxBytes);
  } else {
    body = await readUnaryBody(req, o.readMaxBytes, header(req, "content-length"));
  }
  if (grpc === undefined && body === undefined) {
    // The client went away: nothing to answer, nothing was submitted.
    answered = true;
    clearTimeout(timer);
    return;
  }
  if (answered) return;
  if (body instanceof ConnectError) {
    answer({ error: body, counted: false });
    return;
  }
  // From here on what the interceptors (metrics, then the token) would see.
  started = process.hrtime.bigint();
  const refused = o.authorize?.(header(req, "authorization"));
  if (refused !== undefined) {
    answer({ error: refused, counted: true });
    return;
  }
  // A client that has given up gets no batch enqueued (the timer may not have had its turn yet).
  if (deadline !== undefined && performance.now() >= deadline) {
    timedOut();
    return;
  }
  if (body === undefined) {
    // A gRPC body that is not one plain message: the error Connect gives for it.
    answer({ error: irregular(call, grpc as GrpcBody, o.readMaxBytes), counted: false });
    return;
  }
  const result: IngestAnswer = await o.ingest.submit(call.batch, call.format, body);
  answer(result.ok ? { accepted: result.accepted } : { error: result.error, counted: !result.decoding });
}

/** The message of a gRPC body that is exactly one uncompressed envelope. */
function unaryMessage(body: GrpcBody, limit: number): Uint8Array | ConnectError | undefined {
  const [first] = body.envelopes;
  if (body.envelopes.length === 0 && body.tooLarge !== undefined) return tooLarge(limit, body.tooLarge);
  if (first === undefined || body.envelopes.length > 1 || body.trailing || body.tooLarge !== undefined)
    return undefined;
  if ((first.flags & 1) !== 0) return undefined;
  return body.message(first);
}

/**
 * The error for a gRPC body that is not one plain message, in Connect's order: the first message
 * (missing, cut short, compressed without an encoding, or not parsing), then the second (too large,
 * cut short, ... or just there).
 */
function irregular(call: Call, body: GrpcBody, limit: number): ConnectError {
  const [first, second] = body.envelopes;
  if (first === undefined) {
    return body.trailing
      ? new ConnectError("protocol error: incomplete envelope", Code.InvalidArgument)
      : new ConnectError("protocol error: missing input message for unary method", Code.Unimplemented);
  }
  const messageError = (e: typeof first): ConnectError | undefined => {
    if ((e.flags & 1) !== 0) {
      return new ConnectError(
        "received compressed envelope, but do not know how to decompress",
        Code.Internal,
      );
    }
    try {
      decodeRequest(call.batch, "proto", body.message(e));
      return undefined;
    } catch (err) {
      return ConnectError.from(err);
    }
  };
  const firstError = messageError(first);
  if (firstError !== undefined) return firstError;
  if (second === undefined) {
    if (body.tooLarge !== undefined) return tooLarge(limit, body.tooLarge);
    return new ConnectError("protocol error: incomplete envelope", Code.InvalidArgument);
  }
  return (
    messageError(second) ??
    new ConnectError("protocol error: received extra input message for unary method", Code.Unimplemented)
  );
}

/** Writes the answer as Connect's handlers write it for the protocol. */
async function respond(call: Call, res: NodeResponse, outcome: Outcome): Promise<void> {
  if (res.writableEnded || res.destroyed) return;
  const message = "accepted" in outcome ? responseMessage(call, outcome.accepted) : undefined;
  if (call.protocol === "grpc") {
    res.writeHead(200, {
      "content-type": "application/grpc+proto",
      ...(call.compression === undefined ? {} : { "grpc-encoding": call.compression.name }),
    });
    if (message !== undefined) {
      // Never compressed: far below COMPRESS_MIN_BYTES.
      const envelope = new Uint8Array(5 + message.length);
      new DataView(envelope.buffer).setUint32(1, message.length);
      envelope.set(message, 5);
      (res as http.ServerResponse).write(envelope);
    }
    const trailer = setTrailerStatus(new Headers(), "error" in outcome ? outcome.error : undefined);
    res.addTrailers(Object.fromEntries(trailer));
    res.end();
    return;
  }
  let status = 200;
  let type = call.format === "json" ? "application/json" : "application/proto";
  let body = message ?? new Uint8Array(0);
  if ("error" in outcome) {
    status = codeToHttpStatus(outcome.error.code);
    type = "application/json";
    body = errorToJsonBytes(outcome.error, {});
  }
  let encoding: string | undefined;
  if (call.compression !== undefined && body.byteLength >= COMPRESS_MIN_BYTES) {
    body = await call.compression.compress(body);
    encoding = call.compression.name;
  }
  if (res.writableEnded || res.destroyed) return;
  res.writeHead(status, {
    "content-type": type,
    ...(encoding === undefined ? {} : { "content-encoding": encoding }),
    "content-length": String(body.byteLength),
  });
  res.end(body);
}

/** ProcessCheckResultsResponse{accepted} or the empty ProcessCheckResultResponse, as protobuf-es writes them. */
function responseMessage(call: Call, accepted: number): Uint8Array {
  if (call.format === "json") {
    return new TextEncoder().encode(call.batch && accepted !== 0 ? `{"accepted":${accepted}}` : "{}");
  }
  if (!call.batch || accepted === 0) return new Uint8Array(0);
  const out = [0x08];
  for (let n = accepted; ; n >>>= 7) {
    if (n < 0x80) {
      out.push(n);
      break;
    }
    out.push((n & 0x7f) | 0x80);
  }
  return new Uint8Array(out);
}
