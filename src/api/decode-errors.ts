import type { ConnectRouter } from "@connectrpc/connect";
import type { UniversalHandler, UniversalServerResponse } from "@connectrpc/connect/protocol";
import { boundGrpcMessage } from "./error-message-bound.js";

/**
 * How connect-es words a request body that does not parse as protobuf binary (protocol/
 * serialization.ts). It answers that `internal`, as if the server were at fault; the body is the
 * client's, so Lookout answers it `invalid_argument` (as Connect already does for a JSON body that
 * does not parse). The fast path (unary-fast-path.ts `parseBinary`) uses the same words and code.
 */
export const PARSE_BINARY = "parse binary: ";

/**
 * How connect-es words a gRPC or gRPC-Web message whose compressed flag is set while the request
 * names no encoding (protocol/envelope.ts). It answers that `internal` too (so does grpc-go); the
 * flag is the client's mistake, so Lookout answers it `invalid_argument`, as connect-es's own doc
 * comment of envelopeDecompress says it should. The fast path uses the same words and code.
 */
export const COMPRESSED_WITHOUT_ENCODING = "received compressed envelope, but do not know how to decompress";

/**
 * How connect-es words a gRPC or gRPC-Web request to a unary method whose body holds no message, or
 * more than one (protocol/invoke-implementation.ts `ensureSingle`). It answers that `unimplemented`,
 * as if the method did not exist; the framing is the client's mistake, so Lookout answers it
 * `invalid_argument` (docs/reliability.md), keeping connect-es's words. The fast path uses the same.
 */
export const MISSING_MESSAGE = "protocol error: missing input message for unary method";
export const EXTRA_MESSAGE = "protocol error: received extra input message for unary method";

const INTERNAL = 13;
const INVALID_ARGUMENT = 3;
const UNIMPLEMENTED = 12;

/** Whether an answer of connect-es with this gRPC status and message is in fact about the client's body. */
function isClientBody(status: number, message: string): boolean {
  switch (status) {
    case INTERNAL:
      return message.startsWith(PARSE_BINARY) || message === COMPRESSED_WITHOUT_ENCODING;
    case UNIMPLEMENTED:
      return message === MISSING_MESSAGE || message === EXTRA_MESSAGE;
    default:
      return false;
  }
}

/**
 * Replaces every handler of `router` with one whose answer to a request body that does not parse
 * as protobuf binary, or to a message flagged compressed without an encoding, is
 * `invalid_argument` instead of connect-es's `internal`, and to a gRPC or gRPC-Web unary call
 * with no message or two `invalid_argument` instead of its `unimplemented`, in each protocol's
 * form: a Connect unary error body (HTTP 400), a gRPC trailer, a gRPC-Web trailer frame. A gRPC
 * answer's `grpc-message` is bounded too (error-message-bound.ts: a longer one would not be sent,
 * and its whole HTTP/2 session would close). Every other answer passes through untouched. Call it
 * after the routes are registered.
 */
export function answerDecodeErrorsAsInvalid(router: ConnectRouter): void {
  const handlers = router.handlers;
  for (let i = 0; i < handlers.length; i++) {
    const h = handlers[i] as UniversalHandler;
    const wrapped = async (req: Parameters<UniversalHandler>[0]) => rewrite(await h(req));
    handlers[i] = Object.assign(wrapped, {
      protocolNames: h.protocolNames,
      service: h.service,
      method: h.method,
      requestPath: h.requestPath,
      supportedContentType: h.supportedContentType,
      allowedMethods: h.allowedMethods,
    });
  }
}

function rewrite(res: UniversalServerResponse): UniversalServerResponse | Promise<UniversalServerResponse> {
  const type = res.header?.get("content-type") ?? "";
  if (type.startsWith("application/grpc-web")) {
    return res.body === undefined ? res : { ...res, body: grpcWebBody(res.body) };
  }
  if (type.startsWith("application/grpc")) {
    if (res.header !== undefined) {
      fixGrpcStatus(res.header);
      boundGrpcMessage(res.header);
    }
    return res.body === undefined || res.trailer === undefined
      ? res
      : { ...res, body: grpcBody(res.body, res.trailer) };
  }
  if (res.status === 500 && res.body !== undefined && !res.header?.has("content-encoding")) {
    return connectUnary(res, res.body);
  }
  return res;
}

/** A gRPC status `internal` or `unimplemented` for the client's body becomes `invalid_argument`, in place. */
function fixGrpcStatus(h: Headers): void {
  const status = Number(h.get("grpc-status") ?? Number.NaN);
  if (status !== INTERNAL && status !== UNIMPLEMENTED) return;
  const message = h.get("grpc-message") ?? "";
  if (isClientBody(status, safeDecode(message))) h.set("grpc-status", String(INVALID_ARGUMENT));
}

async function* grpcBody(body: AsyncIterable<Uint8Array>, trailer: Headers): AsyncIterable<Uint8Array> {
  yield* body;
  // The adapter writes the trailers after the last chunk of the body.
  fixGrpcStatus(trailer);
  boundGrpcMessage(trailer);
}

/** gRPC-Web carries its trailers as the body's last envelope (flags 0x80), one chunk of its own. */
async function* grpcWebBody(body: AsyncIterable<Uint8Array>): AsyncIterable<Uint8Array> {
  for await (const chunk of body) yield fixGrpcWebTrailer(chunk);
}

function fixGrpcWebTrailer(chunk: Uint8Array): Uint8Array {
  if (chunk.length < 5 || chunk[0] !== 0x80) return chunk;
  const len = new DataView(chunk.buffer, chunk.byteOffset, chunk.byteLength).getUint32(1);
  if (5 + len !== chunk.length) return chunk;
  const text = new TextDecoder().decode(chunk.subarray(5));
  const lines = text.split("\r\n");
  const headers = new Headers();
  for (const line of lines) {
    const i = line.indexOf(":");
    if (i > 0) headers.append(line.slice(0, i).trim(), line.slice(i + 1).trim());
  }
  const before = headers.get("grpc-status");
  fixGrpcStatus(headers);
  if (headers.get("grpc-status") === before) return chunk;
  const out = new TextEncoder().encode(
    lines
      .map((line) => (/^grpc-status\s*:/i.test(line) ? `grpc-status: ${INVALID_ARGUMENT}` : line))
      .join("\r\n"),
  );
  const framed = new Uint8Array(5 + out.length);
  framed[0] = 0x80;
  new DataView(framed.buffer).setUint32(1, out.length);
  framed.set(out, 5);
  return framed;
}

/** A Connect unary error body `{"code":"internal","message":"parse binary: …"}` becomes a 400. */
async function connectUnary(
  res: UniversalServerResponse,
  body: AsyncIterable<Uint8Array>,
): Promise<UniversalServerResponse> {
  const chunks: Uint8Array[] = [];
  for await (const c of body) chunks.push(c);
  const bytes = Buffer.concat(chunks);
  const same = { ...res, body: once(bytes) };
  let error: { code?: unknown; message?: unknown };
  try {
    error = JSON.parse(bytes.toString("utf8")) as typeof error;
  } catch {
    return same;
  }
  if (
    error.code !== "internal" ||
    typeof error.message !== "string" ||
    !isClientBody(INTERNAL, error.message)
  ) {
    return same;
  }
  const out = Buffer.from(JSON.stringify({ ...error, code: "invalid_argument" }));
  const header = new Headers(res.header);
  header.set("content-length", String(out.length));
  return { ...res, status: 400, header, body: once(out) };
}

async function* once(bytes: Uint8Array): AsyncIterable<Uint8Array> {
  yield bytes;
}

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}
