import type http from "node:http";
import type http2 from "node:http2";
import { Code, ConnectError } from "@connectrpc/connect";

/** A request as the listener hands it over: HTTP/1.1 or HTTP/2. */
export type NodeRequest = http.IncomingMessage | http2.Http2ServerRequest;

/**
 * Reads a request body chunk by chunk until it ends, or until `take` returns false: then it resolves
 * at once, and the rest of the body is read and dropped (so a keep-alive connection stays usable).
 * Resolves false when the client went away first.
 */
function readChunks(req: NodeRequest, take: (chunk: Buffer) => boolean): Promise<boolean> {
  return new Promise((resolve) => {
    let taking = true;
    let ended = false;
    req.on("data", (chunk: Buffer) => {
      if (!taking) return;
      taking = take(chunk);
      if (!taking) resolve(true);
    });
    req.once("end", () => {
      ended = true;
      resolve(true);
    });
    req.once("error", () => resolve(false));
    req.once("close", () => {
      if (!ended && taking) resolve(false);
    });
  });
}

/** Copies `len` bytes at `start` of the concatenated chunks into a new buffer of its own. */
function copyOut(chunks: readonly Buffer[], start: number, len: number): Uint8Array {
  const out = new Uint8Array(len);
  let offset = 0;
  for (const c of chunks) {
    if (start >= offset + c.length) {
      offset += c.length;
      continue;
    }
    const from = Math.max(0, start - offset);
    const to = Math.min(c.length, start + len - offset);
    if (to > from) out.set(c.subarray(from, to), offset + from - start);
    offset += c.length;
    if (offset >= start + len) break;
  }
  return out;
}

/** Connect's error for a message above the size limit (`size` when it is known up front). */
export function tooLarge(limit: number, size?: number): ConnectError {
  return new ConnectError(
    size === undefined
      ? `message size is larger than configured readMaxBytes ${limit}`
      : `message size ${size} is larger than configured readMaxBytes ${limit}`,
    Code.ResourceExhausted,
  );
}

/**
 * The body of a Connect unary request, read as Connect reads it: at most `limit` bytes, and exactly
 * the Content-Length when one is given. The bytes own their ArrayBuffer (so they can be transferred).
 * Undefined when the client went away.
 */
export async function readUnaryBody(
  req: NodeRequest,
  limit: number,
  contentLength: string | undefined,
): Promise<Uint8Array | ConnectError | undefined> {
  const hint = contentLength === undefined ? Number.NaN : Number.parseInt(contentLength, 10);
  let error: ConnectError | undefined;
  if (Number.isSafeInteger(hint) && hint >= 0) {
    if (hint > limit) {
      void readChunks(req, () => false);
      return tooLarge(limit, hint);
    }
    const out = new Uint8Array(hint);
    let offset = 0;
    const complete = await readChunks(req, (chunk) => {
      if (offset + chunk.length > hint) {
        error = new ConnectError(
          `protocol error: promised ${hint} bytes, received ${offset + chunk.length}`,
          Code.InvalidArgument,
        );
        return false;
      }
      out.set(chunk, offset);
      offset += chunk.length;
      return true;
    });
    if (!complete) return undefined;
    if (error === undefined && offset < hint) {
      error = new ConnectError(
        `protocol error: promised ${hint} bytes, received ${offset}`,
        Code.InvalidArgument,
      );
    }
    return error ?? out;
  }
  const chunks: Buffer[] = [];
  let total = 0;
  const complete = await readChunks(req, (chunk) => {
    total += chunk.length;
    if (total > limit) {
      error = tooLarge(limit);
      return false;
    }
    chunks.push(chunk);
    return true;
  });
  if (!complete) return undefined;
  return error ?? copyOut(chunks, 0, total);
}

/** One gRPC length-prefixed message: its flags byte and where its bytes are in the body. */
export interface Envelope {
  readonly flags: number;
  readonly start: number;
  readonly len: number;
}

/** A gRPC request body, split into envelopes as far as a unary call needs it. */
export interface GrpcBody {
  /** The envelopes whose bytes arrived in full (at most two: a unary call needs no more). */
  readonly envelopes: readonly Envelope[];
  /** Whether the body went on past those envelopes (an envelope cut short, or more). */
  readonly trailing: boolean;
  /** The declared size of the envelope after those, when it is above the limit. */
  readonly tooLarge: number | undefined;
  /** An envelope's message, in a buffer of its own. */
  message(e: Envelope): Uint8Array;
}

/**
 * Reads a gRPC request body and splits it into envelopes (1 byte flags, 4 bytes big-endian length,
 * the message) as Connect does, stopping once a unary call is decided: after two whole envelopes,
 * or at an envelope declared larger than `limit`. Undefined when the client went away.
 */
export async function readGrpcBody(req: NodeRequest, limit: number): Promise<GrpcBody | undefined> {
  const chunks: Buffer[] = [];
  let total = 0;
  const envelopes: Envelope[] = [];
  let next = 0;
  let over: number | undefined;
  const byteAt = (at: number): number => {
    for (const c of chunks) {
      if (at < c.length) return c[at] as number;
      at -= c.length;
    }
    return 0;
  };
  const complete = await readChunks(req, (chunk) => {
    chunks.push(chunk);
    total += chunk.length;
    while (envelopes.length < 2 && total >= next + 5) {
      const len =
        ((byteAt(next + 1) << 24) | (byteAt(next + 2) << 16) | (byteAt(next + 3) << 8) | byteAt(next + 4)) >>>
        0;
      if (len > limit) {
        over = len;
        return false;
      }
      envelopes.push({ flags: byteAt(next), start: next + 5, len });
      next += 5 + len;
    }
    return !(envelopes.length === 2 && total >= next);
  });
  if (!complete) return undefined;
  const whole = envelopes.filter((e) => e.start + e.len <= total);
  const end =
    whole.length === 0
      ? 0
      : (whole[whole.length - 1] as Envelope).start + (whole[whole.length - 1] as Envelope).len;
  return {
    envelopes: whole,
    trailing: total > end && over === undefined,
    tooLarge: over,
    message: (e) => copyOut(chunks, e.start, e.len),
  };
}

/**
 * Once the answer to an HTTP/1.1 request is sent, reads and drops what is left of its body, so the
 * keep-alive connection stays usable. The router stops reading a body it has answered early (a
 * gRPC envelope declared above the limit, a message that does not parse) and leaves the request
 * stream paused or destroyed; node then never takes the rest off the socket, and the next request
 * on that connection would wait forever. Node drops the body of a request nobody read in the same
 * way (`IncomingMessage#_dump`); it skips a request the router began to read. HTTP/2 streams are
 * independent: nothing to do there.
 */
export function finishBodyAfterAnswer(
  req: NodeRequest,
  res: { once(event: "finish", f: () => void): unknown },
): void {
  if (req.httpVersionMajor !== 1) return;
  // Node detaches the socket from the request once the answer is out: keep it now.
  const socket = (req as http.IncomingMessage).socket;
  res.once("finish", () => {
    if (req.complete) return;
    // Marked dumped, node's parser drops the body's bytes instead of pushing them to the stream
    // (and pausing the socket when nobody reads them).
    (req as unknown as { _dump?: () => void })._dump?.();
    socket?.resume();
  });
}
