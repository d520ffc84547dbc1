import {
  type ClientRequest,
  request as httpRequest,
  type IncomingMessage,
  type RequestOptions,
} from "node:http";
import { request as httpsRequest } from "node:https";
import type { CheckOutcome } from "../../model/check-result.js";
import type { Checker, CheckTarget } from "../../model/checker.js";
import type { HttpProbe } from "../../model/config.js";
import type { ExitStatus } from "../../model/state.js";
import {
  abortOutcome,
  describeNetError,
  describeTlsVerifyError,
  formatSeconds,
  oneLine,
  outcome,
  perfDatum,
  timeDatum,
} from "../format.js";

const PREFIX = "HTTP";
const USER_AGENT = "lookout-check-http";

/** Options of the `http` checker that are not per check. */
export interface HttpCheckerOptions {
  /**
   * Trusted root certificates (PEM) for https; default Node's bundled Mozilla roots plus any in
   * NODE_EXTRA_CA_CERTS. Giving this replaces the defaults.
   */
  readonly ca?: readonly string[];
}

/**
 * The state a final HTTP status maps to, as Icinga's check_http does by default: 2xx and 3xx OK
 * (redirects are not followed), 4xx WARNING, 5xx CRITICAL, and anything outside 200..599 CRITICAL.
 */
export function stateForStatus(code: number): ExitStatus {
  if (code >= 200 && code < 400) return 0;
  if (code >= 400 && code < 500) return 1;
  return 2;
}

/**
 * Creates the `http` checker: one GET of `url` on a fresh connection (no keep-alive, no redirects
 * followed), the whole body read and counted but not kept. The state follows `stateForStatus`;
 * connection, TLS and protocol errors are CRITICAL, a URL that is not http(s) UNKNOWN. For https
 * the certificate chain and host name are verified: an untrusted, expired or mismatched
 * certificate is CRITICAL.
 */
export function createHttpChecker(options: HttpCheckerOptions = {}): Checker<HttpProbe> {
  const ca = options.ca === undefined ? undefined : [...options.ca];
  return {
    type: "http",
    run: (target, signal) => runHttp(target, signal, ca),
  };
}

function runHttp(
  target: CheckTarget<HttpProbe>,
  signal: AbortSignal,
  ca: string[] | undefined,
): Promise<CheckOutcome> {
  const raw: unknown = target?.probe?.url;
  let url: URL;
  try {
    if (typeof raw !== "string") throw new TypeError("not a string");
    url = new URL(raw);
  } catch {
    return Promise.resolve(outcome(PREFIX, 3, `invalid url ${JSON.stringify(raw)}`));
  }
  const https = url.protocol === "https:";
  if (!https && url.protocol !== "http:") {
    return Promise.resolve(outcome(PREFIX, 3, `unsupported url scheme ${JSON.stringify(url.protocol)}`));
  }
  // The URL itself is never echoed: it may carry credentials or tokens.
  const host = url.hostname.startsWith("[") ? url.hostname.slice(1, -1) : url.hostname;
  const where = `${host} port ${url.port === "" ? (https ? 443 : 80) : url.port}`;
  const start = performance.now();
  if (signal.aborted) return Promise.resolve(abortOutcome(PREFIX, signal, `GET on ${where}`, start));
  const timeoutMs = target.probe.timeoutMs;

  return new Promise<CheckOutcome>((resolve) => {
    let settled = false;
    let req: ClientRequest | undefined;
    let res: IncomingMessage | undefined;
    const finish = (result: CheckOutcome): void => {
      if (settled) return;
      settled = true;
      signal.removeEventListener("abort", onAbort);
      res?.destroy();
      req?.destroy();
      resolve(result);
    };
    const onAbort = (): void => finish(abortOutcome(PREFIX, signal, `GET on ${where}`, start));
    const onError = (err: unknown): void => {
      const tls = describeTlsVerifyError(err);
      if (tls !== undefined) finish(outcome(PREFIX, 2, `TLS certificate of ${where} rejected: ${tls}`));
      else finish(outcome(PREFIX, 2, `GET on ${where}: ${describeNetError(err)}`));
    };
    const onResponse = (response: IncomingMessage): void => {
      res = response;
      let size = 0;
      response.on("data", (chunk: Buffer) => {
        size += chunk.length;
      });
      response.on("error", onError);
      response.on("end", () => {
        const seconds = (performance.now() - start) / 1000;
        const code = response.statusCode ?? 0;
        const status = stateForStatus(code);
        const line =
          `HTTP/${response.httpVersion} ${code} ${oneLine(response.statusMessage ?? "")}`.trimEnd();
        finish(
          outcome(
            PREFIX,
            status,
            `${line} - ${size} bytes in ${formatSeconds(seconds)} second response time`,
            [timeDatum(seconds, timeoutMs), perfDatum("size", size, "B", 0)],
          ),
        );
      });
    };
    signal.addEventListener("abort", onAbort, { once: true });
    // https.RequestOptions is http.RequestOptions plus the TLS fields, so it serves both schemes.
    const opts: RequestOptions = {
      method: "GET",
      agent: false,
      headers: { "user-agent": USER_AGENT, accept: "*/*", connection: "close" },
      ...(https ? { rejectUnauthorized: true, ...(ca === undefined ? {} : { ca }) } : {}),
    };
    try {
      req = (https ? httpsRequest : httpRequest)(url, opts, onResponse);
    } catch (err) {
      finish(outcome(PREFIX, 3, `GET on ${where}: ${describeNetError(err)}`));
      return;
    }
    req.on("error", onError);
    req.end();
  });
}
