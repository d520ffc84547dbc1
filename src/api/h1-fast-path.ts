import { STATUS_CODES } from "node:http";
import type net from "node:net";
import { socketPeer } from "./caller.js";
import {
  type ConnectAnswer,
  connectAnswer,
  connectAnswerNow,
  type HeaderOf,
  type ServedCall,
  type UnaryCalls,
} from "./unary-fast-path.js";

/** Node's default limit on a request's head (`--max-http-header-size`): a longer one is node's to refuse. */
const MAX_HEAD = 16 * 1024;
/** Requests of one connection read and not yet answered, at most; later ones wait in the socket. */
const MAX_IN_FLIGHT = 64;
const HEAD_END = Buffer.from("\r\n\r\n");
/** RFC 9110 `token`: the characters of a header name. */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
/** Control characters node's parser refuses in a header line (HTAB is allowed). */
const CONTROL = /[\x00-\x08\x0a-\x1f\x7f]/;
const DIGITS = /^[0-9]{1,15}$/;
const CHUNK_SIZE = /^[0-9a-fA-F]{1,7}$/;
/**
 * A chunked request (connect-node sends every body so) is served here only when it is whole within
 * this many bytes, head included; a longer one is handed over. Until then its bytes are kept, so
 * that it can still be handed over whole.
 */
const MAX_CHUNKED = 64 * 1024;

/** What the raw HTTP/1.1 path serves with. */
export interface H1FastPathOptions {
  /** The unary fast path's calls (unary-fast-path.ts `createUnaryCalls`): the same gate, methods and metrics. */
  readonly calls: UnaryCalls;
  /** Largest accepted message; a larger request is handed over (the handler refuses it as Connect does). */
  readonly readMaxBytes: number;
  /** The Host check in force (host-check.ts): a request it refuses is handed over, and refused there. */
  readonly allowHost?: (host: string | undefined) => boolean;
}

/** One HTTP/1.1 connection while this path serves it. */
export interface H1Connection {
  /** The server is closing: end the connection once what it has in flight is answered (at once when idle). */
  close(): void;
}

/** The raw HTTP/1.1 path (see `createH1FastPath`). */
export interface H1FastPath {
  /**
   * Serves a new HTTP/1.1 connection, whose socket is paused with its first bytes unshifted. At the
   * first request it does not serve, once every earlier answer is written, it puts the unread bytes
   * back, pauses the socket and calls `handOver`: node's HTTP server takes the connection from there.
   * `keepAliveMs`: node's `keepAliveTimeout` for the connection, which idle ones are closed after.
   */
  accept(socket: net.Socket, keepAliveMs: number, handOver: () => void): H1Connection;
  /** Requests answered here so far. */
  readonly served: number;
}

/** A request's head as this path reads it. */
interface Head {
  readonly path: string;
  /** By lower-case name; a name given twice makes no Head. */
  readonly headers: Map<string, string>;
}

/** A request read, in the order of its connection: its answer's bytes once they are ready. */
interface Slot {
  bytes: Buffer | undefined;
  /** Answered with `connection: close` (it came while the server was closing). */
  readonly last: boolean;
}

/** A request whose body is still arriving. */
interface Reading {
  readonly call: ServedCall;
  readonly header: HeaderOf;
  readonly slot: Slot;
  readonly body: Uint8Array;
  filled: number;
}

/**
 * Serves the unary fast path's Connect calls (`POST /svc.v1.CommandService/ProcessCheckResult`
 * with `application/json`, say) on HTTP/1.1 keep-alive connections straight from the socket,
 * without node's HTTP parser, request and response objects: each answer is one write of bytes laid
 * out as node's server writes them (status line, the Connect answer's headers, `Date`,
 * `Connection: keep-alive`, `Keep-Alive: timeout=…`). Pipelined requests are answered in order.
 * The calls are the same as the other fast path's — gate, deadline, methods, audit, metrics,
 * answers (unary-fast-path.ts) — and `h1-fast-path.test.ts` compares every answer byte for byte
 * with a server without this path.
 *
 * Only plain requests are served: `POST <a fast-path method> HTTP/1.1`, a Host, one
 * Content-Length within the limit, no Transfer-Encoding, Expect or Upgrade, `Connection` absent or
 * `keep-alive`, no header given twice, no control character or folded line, a head within
 * node's 16 KiB, the Host allowed. The first request that is anything else hands the connection
 * to node's HTTP server for good, so everything else is served exactly as before.
 */
export function createH1FastPath(o: H1FastPathOptions): H1FastPath {
  let served = 0;
  /**
   * A Connect call, when the request is one served here, and its body's length (-1: chunked).
   */
  const accepted = (head: Head): { call: ServedCall; length: number; header: HeaderOf } | undefined => {
    const h = head.headers;
    if (h.has("expect") || h.has("upgrade")) return undefined;
    const connection = h.get("connection");
    if (connection !== undefined && connection.toLowerCase() !== "keep-alive") return undefined;
    const host = h.get("host");
    if (host === undefined || (o.allowHost !== undefined && !o.allowHost(host))) return undefined;
    const length = h.get("content-length");
    const coding = h.get("transfer-encoding");
    let n = -1;
    if (coding !== undefined) {
      if (length !== undefined || coding.toLowerCase() !== "chunked") return undefined;
    } else {
      if (length === undefined || !DIGITS.test(length)) return undefined;
      n = Number(length);
      if (n > o.readMaxBytes) return undefined;
    }
    const header: HeaderOf = (name) => h.get(name);
    const call = o.calls.match(head.path, header, 1);
    if (call === undefined || call.protocol !== "connect") return undefined;
    return { call, length: n, header };
  };

  const accept = (socket: net.Socket, keepAliveMs: number, handOver: () => void): H1Connection => {
    const peer = socketPeer(socket);
    const keepAlive = `Connection: keep-alive\r\nKeep-Alive: timeout=${Math.floor(keepAliveMs / 1000)}\r\n\r\n`;
    /** Bytes read and not yet parsed. */
    let pending: Buffer | undefined;
    let reading: Reading | undefined;
    const queue: Slot[] = [];
    /** A request not served here came: hand over once every earlier answer is written. */
    let handing = false;
    /** The server is closing. */
    let closing = false;
    /** Read no more requests: one came while closing. */
    let done = false;
    /** Closed, or handed over. */
    let gone = false;

    const parse = (): void => {
      while (pending !== undefined && !gone && !handing && !done) {
        if (reading !== undefined) {
          const r = reading;
          const take = Math.min(r.body.length - r.filled, pending.length);
          r.body.set(take === pending.length ? pending : pending.subarray(0, take), r.filled);
          r.filled += take;
          pending = take === pending.length ? undefined : pending.subarray(take);
          if (r.filled < r.body.length) return;
          reading = undefined;
          start(r);
          continue;
        }
        if (queue.length >= MAX_IN_FLIGHT || socket.writableNeedDrain) {
          // Resumed when answers are written (flush) or the socket drains.
          socket.pause();
          return;
        }
        const end = pending.indexOf(HEAD_END);
        if (end < 0 || end > MAX_HEAD) {
          // A head too long, or with a bare LF (which would never end in CRLF CRLF): node's.
          if (end > MAX_HEAD || pending.length > MAX_HEAD + 3 || bareLf(pending)) handOverWhenIdle();
          return;
        }
        const head = parseHead(pending.toString("latin1", 0, end));
        const found = head === undefined ? undefined : accepted(head);
        if (found === undefined) {
          handOverWhenIdle();
          return;
        }
        let body: Uint8Array | undefined;
        let next = end + 4;
        if (found.length < 0) {
          const chunked = dechunk(pending, next, Math.min(o.readMaxBytes, MAX_CHUNKED));
          if (chunked === "more") return;
          if (chunked === "other") {
            handOverWhenIdle();
            return;
          }
          body = chunked.body;
          next = chunked.end;
        }
        pending = pending.length === next ? undefined : pending.subarray(next);
        const slot: Slot = { bytes: undefined, last: closing };
        queue.push(slot);
        if (closing) done = true;
        const r: Reading = { ...found, slot, body: body ?? new Uint8Array(found.length), filled: 0 };
        if (body !== undefined || found.length === 0) start(r);
        else reading = r;
      }
    };

    const start = (r: Reading): void => {
      served++;
      void o.calls.run(r.call, r.header, peer, Promise.resolve({ body: r.body }), (outcome) => {
        const now = connectAnswerNow(r.call, outcome);
        if (now !== undefined) {
          answered(r.slot, now);
          return;
        }
        connectAnswer(r.call, outcome).then(
          (answer) => answered(r.slot, answer),
          () => socket.destroy(),
        );
      });
    };

    const answered = (slot: Slot, answer: ConnectAnswer): void => {
      slot.bytes = encode(answer, slot.last ? undefined : keepAlive);
      flush();
    };

    /** Writes the answers that are ready, in order; then hands over, ends, or reads on. */
    const flush = (): void => {
      if (gone) return;
      let first = queue[0];
      if (first?.bytes === undefined) return;
      const several = queue.length > 1 && queue[1]?.bytes !== undefined;
      if (several) socket.cork();
      while (first?.bytes !== undefined) {
        socket.write(first.bytes);
        queue.shift();
        first = queue[0];
      }
      if (several) socket.uncork();
      if (queue.length > 0 || reading !== undefined) return;
      if (closing) {
        gone = true;
        socket.end();
        return;
      }
      if (handing) {
        release();
        return;
      }
      readOn();
    };

    const readOn = (): void => {
      if (gone || handing || done) return;
      if (socket.isPaused()) socket.resume();
      parse();
    };

    const handOverWhenIdle = (): void => {
      handing = true;
      socket.pause();
      if (queue.length === 0) release();
    };

    /** Gives the connection to node's HTTP server: the bytes not parsed are read again there. */
    const release = (): void => {
      gone = true;
      socket.removeListener("data", onData);
      socket.removeListener("drain", readOn);
      socket.removeListener("timeout", onTimeout);
      socket.removeListener("close", onClose);
      socket.setTimeout(0);
      socket.pause();
      if (pending !== undefined) socket.unshift(pending);
      pending = undefined;
      handOver();
    };

    const onData = (chunk: Buffer): void => {
      pending = pending === undefined ? chunk : Buffer.concat([pending, chunk]);
      parse();
    };
    // As node's keepAliveTimeout (and its header timeout, roughly): a connection with nothing in
    // flight that stays silent that long is closed.
    const onTimeout = (): void => {
      if (queue.length === 0) socket.destroy();
    };
    const onClose = (): void => {
      gone = true;
      pending = undefined;
      reading = undefined;
      queue.length = 0;
    };
    socket.setNoDelay(true);
    socket.setTimeout(keepAliveMs, onTimeout);
    socket.on("data", onData);
    socket.on("drain", readOn);
    socket.once("close", onClose);
    return {
      close() {
        closing = true;
        if (!gone && queue.length === 0) {
          gone = true;
          socket.end();
        }
      },
    };
  };

  return {
    accept,
    get served() {
      return served;
    },
  };
}

/** Whether `bytes` hold a LF not preceded by a CR. */
function bareLf(bytes: Buffer): boolean {
  for (let i = bytes.indexOf(10); i >= 0; i = bytes.indexOf(10, i + 1))
    if (i === 0 || bytes[i - 1] !== 13) return true;
  return false;
}

/**
 * A chunked body that starts at `from`, when it is whole and plain (sizes in hex, no extensions, no
 * trailers) — its bytes in a buffer of their own and where the request ends; "more" when more must
 * arrive (and may, within `limit` bytes from the start of `bytes`); "other" for anything else.
 */
function dechunk(
  bytes: Buffer,
  from: number,
  limit: number,
): { body: Uint8Array; end: number } | "more" | "other" {
  const parts: Buffer[] = [];
  let total = 0;
  let at = from;
  const more = (): "more" | "other" => (bytes.length > limit ? "other" : "more");
  for (;;) {
    const lineEnd = bytes.indexOf("\r\n", at, "latin1");
    if (lineEnd < 0) return bytes.length - at > 9 ? "other" : more();
    const sizeText = bytes.toString("latin1", at, lineEnd);
    if (!CHUNK_SIZE.test(sizeText)) return "other";
    const size = Number.parseInt(sizeText, 16);
    const start = lineEnd + 2;
    if (bytes.length < start + size + 2) return more();
    if (bytes[start + size] !== 13 || bytes[start + size + 1] !== 10) return "other";
    if (size === 0) {
      const body = new Uint8Array(total);
      let offset = 0;
      for (const p of parts) {
        body.set(p, offset);
        offset += p.length;
      }
      return { body, end: start + 2 };
    }
    total += size;
    if (total > limit) return "other";
    parts.push(bytes.subarray(start, start + size));
    at = start + size + 2;
  }
}

/**
 * A request head (the bytes before the blank line, latin1) when it is a plain POST over HTTP/1.1
 * whose header lines node would read the same way; undefined for anything else.
 */
function parseHead(text: string): Head | undefined {
  let at = text.indexOf("\r\n");
  const line = at < 0 ? text : text.slice(0, at);
  if (!line.startsWith("POST /") || !line.endsWith(" HTTP/1.1") || CONTROL.test(line)) return undefined;
  const headers = new Map<string, string>();
  while (at >= 0) {
    const from = at + 2;
    at = text.indexOf("\r\n", from);
    const field = at < 0 ? text.slice(from) : text.slice(from, at);
    const colon = field.indexOf(":");
    if (colon <= 0 || CONTROL.test(field)) return undefined;
    const name = field.slice(0, colon);
    if (!TOKEN.test(name)) return undefined;
    const key = name.toLowerCase();
    if (headers.has(key)) return undefined;
    headers.set(key, trimSpaces(field, colon + 1));
  }
  return { path: line.slice(5, line.length - 9), headers };
}

/** `s` from `from` on without leading and trailing spaces and tabs (what node trims, and only that). */
function trimSpaces(s: string, from: number): string {
  let a = from;
  let b = s.length;
  while (a < b && (s.charCodeAt(a) === 32 || s.charCodeAt(a) === 9)) a++;
  while (b > a && (s.charCodeAt(b - 1) === 32 || s.charCodeAt(b - 1) === 9)) b--;
  return s.slice(a, b);
}

let dateText = "";
let dateUntil = 0;
/** The Date header's value, as node caches it: once a second. */
function httpDate(): string {
  const now = Date.now();
  if (now >= dateUntil) {
    dateText = new Date(now).toUTCString();
    dateUntil = now - (now % 1000) + 1000;
  }
  return dateText;
}

/**
 * An answer's bytes as node's server writes `writeHead(status, headers)` and `end(body)`: the
 * headers in their order, then `Date`, then `keepAlive` (or, without it, `connection: close`
 * first, as the listener sets it while the server closes).
 */
function encode(a: ConnectAnswer, keepAlive: string | undefined): Buffer {
  let head = `HTTP/1.1 ${a.status} ${STATUS_CODES[a.status] ?? "unknown"}\r\n`;
  if (keepAlive === undefined) head += "connection: close\r\n";
  for (const name in a.headers) head += `${name}: ${a.headers[name]}\r\n`;
  head += `Date: ${httpDate()}\r\n${keepAlive ?? "\r\n"}`;
  const out = Buffer.allocUnsafe(head.length + a.body.byteLength);
  out.write(head, 0, "latin1");
  out.set(a.body, head.length);
  return out;
}
