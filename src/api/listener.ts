import http from "node:http";
import http2 from "node:http2";
import net from "node:net";
import type { H1Connection, H1FastPath } from "./h1-fast-path.js";

/**
 * How much an HTTP/2 session may hold (responses its client has not read yet, header tables,
 * unacknowledged pings), in MiB, before nghttp2 refuses its new streams with ENHANCE_YOUR_CALM and,
 * after 100 refusals, closes it. Node's default, 10, let a client that reads a few large ListStatus
 * pages slowly lose its other calls on the same connection; 64 is the request body limit, so a
 * session can always hold one message of the largest size served.
 */
export const H2_SESSION_MEMORY_MIB = 64;

/** Every HTTP/2 connection with prior knowledge starts with these 24 bytes (RFC 9113 §3.4). */
const PREFACE = Buffer.from("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n", "latin1");

/** How long an idle HTTP/1.1 keep-alive connection is kept open (node's `keepAliveTimeout`). */
const KEEP_ALIVE_MS = 65_000;

/**
 * What the server hands each request to. `h1`, when present, serves HTTP/1.1 connections first,
 * straight from the socket (src/api/h1-fast-path.ts), until it meets a request it hands over.
 */
export type RequestHandler = ((
  req: http.IncomingMessage | http2.Http2ServerRequest,
  res: http.ServerResponse | http2.Http2ServerResponse,
) => void) & { readonly h1?: H1FastPath };

/**
 * One listening port serving HTTP/1.1 and cleartext HTTP/2 with prior knowledge (h2c), so that
 * curl, browsers (Connect JSON, gRPC-Web) and gRPC clients share one `-listen` address. Node's
 * `http2.createServer({ allowHTTP1 })` only negotiates through TLS ALPN, so instead each new
 * connection's first bytes are compared with the HTTP/2 preface and the socket is handed to the
 * matching server.
 */
export class DualProtocolServer {
  readonly #net: net.Server;
  readonly #h1: http.Server;
  readonly #h2: http2.Http2Server;
  readonly #sockets = new Set<net.Socket>();
  readonly #sessions = new Set<http2.Http2Session>();
  /** HTTP/1.1 connections and how many requests each has in flight; idle ones close at shutdown. */
  readonly #h1Busy = new Map<net.Socket, number>();
  /** Connections whose first bytes have not arrived yet. */
  readonly #undecided = new Set<net.Socket>();
  /** HTTP/1.1 connections the raw path serves (not handed over to node's server yet). */
  readonly #raw = new Map<net.Socket, H1Connection>();
  readonly #h1Fast: H1FastPath | undefined;
  #closing = false;

  constructor(handler: RequestHandler) {
    this.#h1Fast = handler.h1;
    this.#h1 = http.createServer({ keepAliveTimeout: KEEP_ALIVE_MS }, handler);
    this.#h1.on("request", (req: http.IncomingMessage, res: http.ServerResponse) => {
      const socket = req.socket;
      this.#h1Busy.set(socket, (this.#h1Busy.get(socket) ?? 0) + 1);
      if (this.#closing) res.setHeader("connection", "close");
      res.once("close", () => {
        const n = (this.#h1Busy.get(socket) ?? 1) - 1;
        this.#h1Busy.set(socket, n);
        if (this.#closing && n === 0) socket.end();
      });
    });
    this.#h2 = http2.createServer({ maxSessionMemory: H2_SESSION_MEMORY_MIB }, handler);
    this.#h2.on("session", (s) => {
      this.#sessions.add(s);
      s.once("close", () => this.#sessions.delete(s));
    });
    this.#net = net.createServer((socket) => this.#accept(socket));
  }

  #accept(socket: net.Socket): void {
    this.#sockets.add(socket);
    socket.once("close", () => this.#sockets.delete(socket));
    socket.on("error", () => socket.destroy());
    this.#undecided.add(socket);
    socket.once("close", () => this.#undecided.delete(socket));
    let seen: Buffer = Buffer.alloc(0);
    const onData = (chunk: Buffer) => {
      seen = seen.length === 0 ? chunk : Buffer.concat([seen, chunk]);
      const n = Math.min(seen.length, PREFACE.length);
      const isPrefix = seen.subarray(0, n).equals(PREFACE.subarray(0, n));
      if (isPrefix && seen.length < PREFACE.length) return;
      socket.removeListener("data", onData);
      this.#undecided.delete(socket);
      socket.pause();
      socket.unshift(seen);
      if (isPrefix) {
        // The HTTP/2 session reads the unshifted preface from the socket's buffer itself;
        // resuming here would hand those bytes to no listener and lose them.
        this.#h2.emit("connection", socket);
      } else if (this.#h1Fast !== undefined) {
        const raw = this.#h1Fast.accept(socket, KEEP_ALIVE_MS, () => {
          this.#raw.delete(socket);
          this.#toH1(socket);
        });
        this.#raw.set(socket, raw);
        socket.once("close", () => this.#raw.delete(socket));
        socket.resume();
      } else {
        this.#toH1(socket);
      }
    };
    socket.on("data", onData);
  }

  /** Hands a paused HTTP/1.1 connection, its unread bytes unshifted, to node's HTTP server. */
  #toH1(socket: net.Socket): void {
    this.#h1Busy.set(socket, 0);
    socket.once("close", () => this.#h1Busy.delete(socket));
    this.#h1.emit("connection", socket);
    socket.resume();
  }

  /** Listens on host:port (port 0 picks a free one) and resolves with the bound address. */
  listen(port: number, host: string): Promise<net.AddressInfo> {
    return new Promise((resolve, reject) => {
      this.#net.once("error", reject);
      this.#net.listen(port, host === "" ? undefined : host, () => {
        this.#net.removeListener("error", reject);
        resolve(this.#net.address() as net.AddressInfo);
      });
    });
  }

  /**
   * Stops accepting, lets in-flight requests finish for up to graceMs, then closes what is left.
   * HTTP/2 sessions get a GOAWAY; idle HTTP/1.1 keep-alive connections close at once.
   */
  async close(graceMs = 5_000): Promise<void> {
    this.#closing = true;
    const closed = new Promise<void>((resolve) => this.#net.close(() => resolve()));
    for (const s of this.#sessions) s.close();
    for (const [socket, busy] of this.#h1Busy) if (busy === 0) socket.end();
    for (const raw of this.#raw.values()) raw.close();
    for (const socket of this.#undecided) socket.end();
    const deadline = setTimeout(() => {
      for (const s of this.#sockets) s.destroy();
    }, graceMs);
    await closed;
    clearTimeout(deadline);
  }
}
