import type { OutgoingHttpHeaders } from "node:http";
import {
  type ClientRequest,
  request as httpRequest,
  type IncomingMessage,
  type RequestOptions,
} from "node:http";
import { request as httpsRequest } from "node:https";

/** The most of a body that expectations look into; the rest is counted, not kept. */
export const BODY_LIMIT = 1 << 20;

/** One request, as the checker asks for it. */
export interface ExchangeRequest {
  readonly url: URL;
  readonly method: string;
  readonly headers: OutgoingHttpHeaders;
  readonly body?: string;
  /** For https: verify the chain and name, trust these roots (undefined: Node's), send this SNI. */
  readonly verify: boolean;
  readonly ca?: readonly string[];
  readonly sni?: string;
  /** Keep up to BODY_LIMIT bytes of the body. */
  readonly keepBody: boolean;
  /** Only the head is wanted (a redirect that will be followed): the body is not read. */
  readonly headOnly?: (status: number, location: string | undefined) => boolean;
}

/** What came back: the status line, a Location if any, the body's size and the kept head of it. */
export interface ExchangeResponse {
  readonly ok: true;
  readonly status: number;
  readonly statusLine: string;
  readonly location?: string;
  readonly size: number;
  readonly body: string;
}

/** Why there was no response: a failed connection, TLS verification, protocol error or abort. */
export interface ExchangeFailure {
  readonly ok: false;
  readonly error: unknown;
  readonly aborted: boolean;
}

/**
 * One HTTP exchange on a fresh connection (no agent, no keep-alive). Settles once: with the
 * response after its last byte (or after its head, when `headOnly` says so), or with the error;
 * `signal` aborting destroys the request and response at once. Never rejects.
 */
export function exchange(
  req: ExchangeRequest,
  signal: AbortSignal,
): Promise<ExchangeResponse | ExchangeFailure> {
  if (signal.aborted) return Promise.resolve({ ok: false, error: signal.reason, aborted: true });
  const https = req.url.protocol === "https:";
  return new Promise((resolve) => {
    let settled = false;
    let cr: ClientRequest | undefined;
    let res: IncomingMessage | undefined;
    const finish = (r: ExchangeResponse | ExchangeFailure): void => {
      if (settled) return;
      settled = true;
      signal.removeEventListener("abort", onAbort);
      res?.destroy();
      cr?.destroy();
      resolve(r);
    };
    const onAbort = (): void => finish({ ok: false, error: signal.reason, aborted: true });
    const onError = (error: unknown): void => finish({ ok: false, error, aborted: false });
    const onResponse = (response: IncomingMessage): void => {
      res = response;
      const status = response.statusCode ?? 0;
      const statusLine = `HTTP/${response.httpVersion} ${status} ${response.statusMessage ?? ""}`.trimEnd();
      const location = typeof response.headers.location === "string" ? response.headers.location : undefined;
      const head = { ok: true as const, status, statusLine, ...(location === undefined ? {} : { location }) };
      if (req.headOnly?.(status, location) === true) {
        finish({ ...head, size: 0, body: "" });
        return;
      }
      let size = 0;
      const kept: Buffer[] = [];
      let keptBytes = 0;
      response.on("data", (chunk: Buffer) => {
        size += chunk.length;
        if (req.keepBody && keptBytes < BODY_LIMIT) {
          const part =
            chunk.length <= BODY_LIMIT - keptBytes ? chunk : chunk.subarray(0, BODY_LIMIT - keptBytes);
          kept.push(part);
          keptBytes += part.length;
        }
      });
      response.on("error", onError);
      response.on("end", () => finish({ ...head, size, body: Buffer.concat(kept).toString("utf8") }));
    };
    signal.addEventListener("abort", onAbort, { once: true });
    // https.RequestOptions is http.RequestOptions plus the TLS fields, so it serves both schemes.
    const opts: RequestOptions = {
      method: req.method,
      agent: false,
      headers: req.headers,
      ...(https
        ? {
            rejectUnauthorized: req.verify,
            ...(req.ca === undefined ? {} : { ca: [...req.ca] }),
            ...(req.sni === undefined ? {} : { servername: req.sni }),
          }
        : {}),
    };
    try {
      cr = (https ? httpsRequest : httpRequest)(req.url, opts, onResponse);
    } catch (error) {
      finish({ ok: false, error, aborted: false });
      return;
    }
    cr.on("error", onError);
    cr.end(req.body);
  });
}
