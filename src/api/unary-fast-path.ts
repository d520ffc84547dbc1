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
import { type Caller, peerOf } from "./caller.js";
import { codeName } from "./connect-codes.js";
import {
  COMPRESSED_WITHOUT_ENCODING,
  EXTRA_MESSAGE,
  MISSING_MESSAGE,
  PARSE_BINARY,
} from "./decode-errors.js";
import { boundedMessage } from "./error-message-bound.js";
import { type GrpcBody, type NodeRequest, readGrpcBody, readUnaryBody, tooLarge } from "./request-body.js";
import type { RpcMetrics } from "./rpc-metrics.js";

/** A response as the listener hands it over: HTTP/1.1 or HTTP/2. */
export type NodeResponse = http.ServerResponse | http2.Http2ServerResponse;

/** The wire format of a request body: protobuf binary or JSON. */
export type BodyFormat = "proto" | "json";

/** The wire protocols served here: gRPC over HTTP/2, and Connect unary. */
type Protocol = "grpc" | "connect";

/** A call as decided from its headers. */
export interface UnaryCall {
  readonly protocol: Protocol;
  readonly format: BodyFormat;
  /**
   * Bytes a response message must leave free in front of it, for the gRPC envelope's header (5),
   * so that the message is sent as it was written, without a copy (0 for Connect).
   */
  readonly room: number;
}

/**
 * How a call ended: a response message (`body`, after `room` free bytes), or an error —
 * `counted` in the RPC metrics unless Connect reports it before any interceptor runs.
 */
export type UnaryOutcome =
  | { readonly body: Uint8Array }
  | { readonly error: ConnectError; readonly counted: boolean };

/** One unary RPC served by a fast path. */
export interface UnaryMethod {
  /** `svc.v1.QueryService`, say. */
  readonly service: string;
  /** `ListStatus`, say. */
  readonly name: string;
  /** Whether Connect JSON requests are served too (otherwise they are the router's). */
  readonly json: boolean;
  /**
   * Whether a gRPC response is compressed as the client accepts (the router's way) or always sent
   * uncompressed, as grpc-go and grpc-java servers do unless told otherwise.
   */
  readonly grpcCompression: boolean;
  /**
   * The service's gate (caller.ts `admit`), run where the router runs its interceptors: the caller
   * when it may pass, else the error to answer. Undefined: open.
   */
  readonly authorize?: (
    credentials: { authorization: string | undefined; cookie: string | undefined },
    peer: string,
  ) => Caller | ConnectError;
  /**
   * Decodes a request body as Connect's serialization does, throwing its ConnectError: names what
   * is wrong with a gRPC body that is not exactly one plain message.
   */
  check(format: BodyFormat, body: Uint8Array): void;
  /** Answers a well-formed request body from a caller the gate let in. */
  serve(call: UnaryCall, body: Uint8Array, caller: Caller): UnaryOutcome | Promise<UnaryOutcome>;
}

/** What a fast path serves with. */
export interface UnaryFastPathOptions {
  readonly methods: readonly UnaryMethod[];
  readonly metrics: RpcMetrics;
  /** Largest accepted message, as for the Connect router. */
  readonly readMaxBytes: number;
}

/** What connect-node accepts and offers (its adapter's default), in its order of preference. */
const COMPRESSIONS: Compression[] = [compressionGzip, compressionBrotli];
/** Connect's default: smaller bodies are never compressed. */
const COMPRESS_MIN_BYTES = 1024;
/** The longest timer Node keeps; a longer deadline is as good as none. */
const MAX_TIMER_MS = 2 ** 31 - 1;
const GRPC_CONTENT_TYPE = /^application\/grpc(?:\+proto)?$/i;
const GRPC_ROOM = 5;
const GRPC_OK = { "grpc-status": "0" };

/** A call with everything serving it needs from the headers. */
export interface ServedCall extends UnaryCall {
  readonly method: UnaryMethod;
  readonly timeoutMs: number | undefined;
  /** How the response may be compressed (the client accepts it). */
  readonly compression: Compression | undefined;
}

/** A request's header by lower-case name (repeated ones joined), however the request arrived. */
export type HeaderOf = (name: string) => string | undefined;

/** A request body as read: the message (or the error reading it), and a gRPC body's envelopes. */
export interface ReadBody {
  readonly body: Uint8Array | ConnectError | undefined;
  readonly grpc?: GrpcBody;
}

/** The fast path's calls, whichever way their requests arrive (node's HTTP, or h1-fast-path.ts). */
export interface UnaryCalls {
  /** The call, when a POST to `path` with these headers is one served here; from the headers alone. */
  match(path: string, header: HeaderOf, httpVersionMajor: number): ServedCall | undefined;
  /**
   * Serves a matched call: reads its body (`read`; undefined when the client went away, and then
   * nothing is done), runs the gate and the method, and hands the outcome to `send` once.
   */
  run(
    call: ServedCall,
    header: HeaderOf,
    peer: string,
    read: Promise<ReadBody | undefined>,
    send: (outcome: UnaryOutcome) => void,
  ): Promise<void>;
}

/**
 * Serves unary RPCs without the Connect router, for the requests it fully handles — gRPC
 * (`application/grpc`, `application/grpc+proto`, over HTTP/2) and Connect unary
 * (`application/proto`, and `application/json` where the method takes it), uncompressed — with
 * the answers, status codes, error bodies, gRPC trailers, size limits and RPC metrics of Connect;
 * a method's gate runs first. A deadline (`grpc-timeout`, `connect-timeout-ms`) that
 * passes first is answered `deadline_exceeded`. Everything else — gRPC-Web, compressed requests,
 * malformed headers, other methods — is left to the router: the handler returns false without
 * touching the request.
 */
export function createUnaryFastPath(
  o: UnaryFastPathOptions,
  calls: UnaryCalls = createUnaryCalls(o),
): (req: NodeRequest, res: NodeResponse) => boolean {
  return (req, res) => {
    if (req.method !== "POST") return false;
    const headerOf: HeaderOf = (name) => header(req, name);
    const call = calls.match((req.url ?? "").split("?", 1)[0] as string, headerOf, req.httpVersionMajor);
    if (call === undefined) return false;
    const read: Promise<ReadBody | undefined> =
      call.protocol === "grpc"
        ? readGrpcBody(req, o.readMaxBytes).then((grpc) =>
            grpc === undefined ? undefined : { grpc, body: unaryMessage(grpc, o.readMaxBytes) },
          )
        : readUnaryBody(req, o.readMaxBytes, headerOf("content-length")).then((body) =>
            body === undefined ? undefined : { body },
          );
    void calls.run(call, headerOf, peerOf(req), read, (outcome) => {
      respond(call, res, outcome).catch(() => res.destroy());
    });
    return true;
  };
}

/** The calls of `o.methods`, for the fast paths. */
export function createUnaryCalls(o: UnaryFastPathOptions): UnaryCalls {
  const byPath = new Map(o.methods.map((m) => [`/${m.service}/${m.name}`, m]));
  return {
    match(path, headerOf, major) {
      const method = byPath.get(path);
      return method === undefined ? undefined : match(headerOf, major, method);
    },
    run: (call, headerOf, peer, read, send) => serve(o, call, headerOf, peer, read, send),
  };
}

/**
 * Runs a protobuf-es binary parse as the router answers it (decode-errors.ts): a body that does not
 * parse is the client's error, `invalid_argument`, protobuf-es's message kept.
 */
export function parseBinary<T>(parse: () => T): T {
  try {
    return parse();
  } catch (e) {
    throw new ConnectError(
      `${PARSE_BINARY}${e instanceof Error ? e.message : String(e)}`,
      Code.InvalidArgument,
    );
  }
}

function header(req: NodeRequest, name: string): string | undefined {
  const v = req.headers[name];
  return Array.isArray(v) ? v.join(", ") : v;
}

/** The call, when the request is one served here; decided from the headers alone. */
function match(header: HeaderOf, httpVersionMajor: number, method: UnaryMethod): ServedCall | undefined {
  const type = header("content-type") ?? "";
  if (GRPC_CONTENT_TYPE.test(type)) {
    const encoding = header("grpc-encoding");
    if (httpVersionMajor !== 2 || (encoding !== undefined && encoding !== "identity")) return undefined;
    const timeout = parseGrpcTimeout(header("grpc-timeout") ?? null, Number.MAX_SAFE_INTEGER);
    if (timeout.error !== undefined) return undefined;
    return {
      protocol: "grpc",
      format: "proto",
      room: GRPC_ROOM,
      method,
      timeoutMs: timeout.timeoutMs,
      compression: negotiate(header("grpc-accept-encoding"), "grpc-accept-encoding"),
    };
  }
  if (contentTypeUnaryRegExp.test(type)) {
    const encoding = header("content-encoding");
    if (encoding !== undefined && encoding !== "identity") return undefined;
    const format: BodyFormat = /^application\/json/i.test(type) ? "json" : "proto";
    if (format === "json" && !method.json) return undefined;
    const timeout = parseConnectTimeout(header("connect-timeout-ms") ?? null, Number.MAX_SAFE_INTEGER);
    if (timeout.error !== undefined) return undefined;
    return {
      protocol: "connect",
      format,
      room: 0,
      method,
      timeoutMs: timeout.timeoutMs,
      compression: negotiate(header("accept-encoding"), "accept-encoding"),
    };
  }
  return undefined;
}

function negotiate(accepted: string | undefined, headerName: string): Compression | undefined {
  return compressionNegotiate(COMPRESSIONS, null, accepted ?? null, headerName).response ?? undefined;
}

async function serve(
  o: UnaryFastPathOptions,
  call: ServedCall,
  header: HeaderOf,
  peer: string,
  read: Promise<ReadBody | undefined>,
  send: (outcome: UnaryOutcome) => void,
): Promise<void> {
  const method = call.method;
  let answered = false;
  let started: bigint | undefined;
  const answer = (outcome: UnaryOutcome): void => {
    if (answered) return;
    answered = true;
    clearTimeout(timer);
    if ("error" in outcome && outcome.counted) record(outcome.error);
    if ("body" in outcome) record(undefined);
    send(outcome);
  };
  const record = (error: ConnectError | undefined): void => {
    const seconds = started === undefined ? 0 : Number(process.hrtime.bigint() - started) / 1e9;
    o.metrics.observe(
      method.service,
      method.name,
      error === undefined ? "ok" : codeName(error.code),
      seconds,
    );
  };
  const deadline = call.timeoutMs === undefined ? undefined : performance.now() + call.timeoutMs;
  const timedOut = (): void =>
    answer({ error: new ConnectError("the operation timed out", Code.DeadlineExceeded), counted: true });
  const timer =
    call.timeoutMs !== undefined && call.timeoutMs <= MAX_TIMER_MS
      ? setTimeout(timedOut, call.timeoutMs)
      : undefined;

  // Reading: what Connect checks before any interceptor runs (sizes, framing) is not counted.
  const got = await read;
  if (got === undefined) {
    // The client went away: nothing to answer, nothing was done.
    answered = true;
    clearTimeout(timer);
    return;
  }
  const { grpc, body } = got;
  if (answered) return;
  if (body instanceof ConnectError) {
    answer({ error: body, counted: false });
    return;
  }
  // From here on what the interceptors (metrics, then the token) would see.
  started = process.hrtime.bigint();
  const caller =
    method.authorize === undefined
      ? { peer }
      : method.authorize({ authorization: header("authorization"), cookie: header("cookie") }, peer);
  if (caller instanceof ConnectError) {
    answer({ error: caller, counted: true });
    return;
  }
  // A client that has given up gets nothing done (the timer may not have had its turn yet).
  if (deadline !== undefined && performance.now() >= deadline) {
    timedOut();
    return;
  }
  if (body === undefined) {
    // A gRPC body that is not one plain message: the error Connect gives for it.
    answer({ error: irregular(method, grpc as GrpcBody, o.readMaxBytes), counted: false });
    return;
  }
  answer(await method.serve(call, body, caller));
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
 * cut short, ... or just there). Connect's words, and the router's codes (decode-errors.ts): no
 * message or a second one is `invalid_argument`, not Connect's `unimplemented`.
 */
function irregular(method: UnaryMethod, body: GrpcBody, limit: number): ConnectError {
  const [first, second] = body.envelopes;
  if (first === undefined) {
    return body.trailing
      ? new ConnectError("protocol error: incomplete envelope", Code.InvalidArgument)
      : new ConnectError(MISSING_MESSAGE, Code.InvalidArgument);
  }
  const messageError = (e: typeof first): ConnectError | undefined => {
    if ((e.flags & 1) !== 0) {
      return new ConnectError(COMPRESSED_WITHOUT_ENCODING, Code.InvalidArgument);
    }
    try {
      method.check("proto", body.message(e));
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
  return messageError(second) ?? new ConnectError(EXTRA_MESSAGE, Code.InvalidArgument);
}

/**
 * The outcome with its error message bounded (error-message-bound.ts): a refusal quoting megabytes
 * the client sent would not fit in gRPC trailers.
 */
function bounded(outcome: UnaryOutcome): UnaryOutcome {
  if (!("error" in outcome)) return outcome;
  const message = boundedMessage(outcome.error.rawMessage);
  if (message === outcome.error.rawMessage) return outcome;
  return { ...outcome, error: new ConnectError(message, outcome.error.code) };
}

/** Writes the answer as Connect's handlers write it for the protocol. */
async function respond(call: ServedCall, res: NodeResponse, given: UnaryOutcome): Promise<void> {
  if (res.writableEnded || res.destroyed) return;
  if (call.protocol === "grpc") {
    const outcome = bounded(given);
    const compression = call.method.grpcCompression ? call.compression : undefined;
    let envelope: Uint8Array | undefined;
    if ("body" in outcome) {
      envelope = outcome.body;
      let flags = 0;
      if (compression !== undefined && envelope.byteLength - GRPC_ROOM >= COMPRESS_MIN_BYTES) {
        const compressed = await compression.compress(envelope.subarray(GRPC_ROOM));
        envelope = new Uint8Array(GRPC_ROOM + compressed.byteLength);
        envelope.set(compressed, GRPC_ROOM);
        flags = 1;
        if (res.writableEnded || res.destroyed) return;
      }
      envelope[0] = flags;
      new DataView(envelope.buffer, envelope.byteOffset).setUint32(1, envelope.byteLength - GRPC_ROOM);
    }
    res.writeHead(200, {
      "content-type": "application/grpc+proto",
      ...(compression === undefined ? {} : { "grpc-encoding": compression.name }),
    });
    if (envelope !== undefined) (res as http.ServerResponse).write(envelope);
    // What setTrailerStatus writes for success, without a Headers object (its first use loads undici).
    const trailer =
      "error" in outcome ? Object.fromEntries(setTrailerStatus(new Headers(), outcome.error)) : GRPC_OK;
    res.addTrailers(trailer);
    res.end();
    return;
  }
  const answer = await connectAnswer(call, given);
  if (res.writableEnded || res.destroyed) return;
  res.writeHead(answer.status, answer.headers);
  res.end(answer.body);
}

/** A Connect unary answer: its status, headers (in the order written) and body. */
export interface ConnectAnswer {
  readonly status: number;
  readonly headers: Record<string, string>;
  readonly body: Uint8Array;
}

/** The answer to a Connect unary call, as Connect's handler writes it (compressed as accepted). */
export async function connectAnswer(call: ServedCall, given: UnaryOutcome): Promise<ConnectAnswer> {
  const plain = plainConnectAnswer(call, given);
  if (call.compression === undefined || plain.body.byteLength < COMPRESS_MIN_BYTES) return plain;
  const body = await call.compression.compress(plain.body);
  return {
    status: plain.status,
    headers: {
      "content-type": plain.headers["content-type"] as string,
      "content-encoding": call.compression.name,
      "content-length": String(body.byteLength),
    },
    body,
  };
}

/**
 * The answer to a Connect unary call at once, when Connect would not compress it (what nearly
 * every answer of the fast paths is); undefined when it would.
 */
export function connectAnswerNow(call: ServedCall, given: UnaryOutcome): ConnectAnswer | undefined {
  const plain = plainConnectAnswer(call, given);
  return call.compression === undefined || plain.body.byteLength < COMPRESS_MIN_BYTES ? plain : undefined;
}

function plainConnectAnswer(call: ServedCall, given: UnaryOutcome): ConnectAnswer {
  if ("body" in given) {
    const body = given.body;
    return {
      status: 200,
      headers: {
        "content-type": call.format === "json" ? "application/json" : "application/proto",
        "content-length": String(body.byteLength),
      },
      body,
    };
  }
  const outcome = bounded(given) as { readonly error: ConnectError };
  const body = errorToJsonBytes(outcome.error, {});
  return {
    status: codeToHttpStatus(outcome.error.code),
    headers: { "content-type": "application/json", "content-length": String(body.byteLength) },
    body,
  };
}
