import type { OutgoingHttpHeaders } from "node:http";
import type { CheckOutcome, PerfDatum } from "../../model/check-result.js";
import type { Checker, CheckTarget } from "../../model/checker.js";
import type { HttpProbe, StatusRange } from "../../model/config.js";
import type { ExitStatus } from "../../model/state.js";
import { type CaFileReader, createCaFileReader } from "../ca-file.js";
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
import { bodyFindings } from "./body-match.js";
import { type ExchangeResponse, exchange } from "./exchange.js";

const PREFIX = "HTTP";
const USER_AGENT = "lookout-check-http";
const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/** Options of the `http` checker that are not per check. */
export interface HttpCheckerOptions {
  /**
   * Trusted root certificates (PEM) for https; default Node's bundled Mozilla roots plus any in
   * NODE_EXTRA_CA_CERTS. Giving this replaces the defaults. A check's `ca_file` replaces both.
   */
  readonly ca?: readonly string[];
  /** Where `ca_file` bundles are read; default one reader per checker. */
  readonly caFiles?: CaFileReader;
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
 * Creates the `http` checker: one request of `url` (`method`, default GET, with `headers` and
 * `body`) on a fresh connection (no keep-alive), following up to `follow_redirects` redirects, the
 * body read and counted, its first MiB kept only when an expectation looks into it. The state is
 * the worst of: the status (`expect_status`, or `stateForStatus`), `expect_body` and
 * `expect_body_regex` (CRITICAL when missing), and the response time against `warn` and `crit`.
 * Connection, TLS and protocol errors are CRITICAL, a URL that is not http(s) UNKNOWN. For https
 * the certificate chain and host name (`sni` when set) are verified unless `tls_verify` is false.
 * Header values are never echoed, nor is any URL.
 */
export function createHttpChecker(options: HttpCheckerOptions = {}): Checker<HttpProbe> {
  const ca = options.ca === undefined ? undefined : [...options.ca];
  const caFiles = options.caFiles ?? createCaFileReader();
  return {
    type: "http",
    // A probe the decoder never made (a hand-built one, a zone job from a newer leader) must still
    // give an outcome, never a rejection.
    run: (target, signal) =>
      runHttp(target, signal, ca, caFiles).catch((e: unknown) =>
        outcome(PREFIX, 3, `malformed check: ${describeNetError(e)}`),
      ),
  };
}

function hostPort(url: URL): string {
  const host = url.hostname.startsWith("[") ? url.hostname.slice(1, -1) : url.hostname;
  return `${host} port ${url.port === "" ? (url.protocol === "https:" ? 443 : 80) : url.port}`;
}

async function runHttp(
  target: CheckTarget<HttpProbe>,
  signal: AbortSignal,
  defaultCa: readonly string[] | undefined,
  caFiles: CaFileReader,
): Promise<CheckOutcome> {
  const probe = target?.probe;
  const raw: unknown = probe?.url;
  let url: URL;
  try {
    if (typeof raw !== "string") throw new TypeError("not a string");
    url = new URL(raw);
  } catch {
    return outcome(PREFIX, 3, `invalid url ${JSON.stringify(raw)}`);
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") {
    return outcome(PREFIX, 3, `unsupported url scheme ${JSON.stringify(url.protocol)}`);
  }
  let method: string = probe.method ?? "GET";
  // The URL itself is never echoed: it may carry credentials or tokens.
  let where = hostPort(url);
  const start = performance.now();
  if (signal.aborted) return abortOutcome(PREFIX, signal, `${method} on ${where}`, start);
  const timeoutMs = probe.timeoutMs;
  let ca = defaultCa;
  if (probe.caFile !== undefined) {
    const read = await caFiles.read(probe.caFile);
    if (!read.ok) return outcome(PREFIX, 3, read.error);
    ca = [read.pem];
  }
  const maxRedirects = probe.followRedirects ?? 0;
  const wantBody = probe.expectBody !== undefined || probe.expectBodyRegex !== undefined;
  const origin = url.origin;
  let body = probe.body;
  let headers = requestHeaders(probe.headers, method, body);
  let response: ExchangeResponse | undefined;
  for (let hop = 0; ; hop++) {
    const follow = hop < maxRedirects;
    const r = await exchange(
      {
        url,
        method,
        headers,
        ...(body === undefined ? {} : { body }),
        verify: probe.tlsVerify !== false,
        ...(ca === undefined ? {} : { ca }),
        // The configured name belongs to the configured origin, as the headers do.
        ...(probe.sni !== undefined && url.origin === origin ? { sni: probe.sni } : {}),
        keepBody: wantBody,
        headOnly: (status, location) => follow && REDIRECTS.has(status) && location !== undefined,
      },
      signal,
    );
    if (!r.ok) {
      if (r.aborted) return abortOutcome(PREFIX, signal, `${method} on ${where}`, start);
      const tls = describeTlsVerifyError(r.error);
      if (tls !== undefined) return outcome(PREFIX, 2, `TLS certificate of ${where} rejected: ${tls}`);
      return outcome(PREFIX, 2, `${method} on ${where}: ${describeNetError(r.error)}`);
    }
    if (!(maxRedirects > 0 && REDIRECTS.has(r.status) && r.location !== undefined)) {
      response = r;
      break;
    }
    if (!follow) return outcome(PREFIX, 2, `${oneLine(r.statusLine)} - more than ${maxRedirects} redirects`);
    let next: URL;
    try {
      next = new URL(r.location, url);
    } catch {
      return outcome(PREFIX, 2, `${oneLine(r.statusLine)} - redirect to an invalid location`);
    }
    if (next.protocol !== "http:" && next.protocol !== "https:")
      return outcome(
        PREFIX,
        2,
        `${oneLine(r.statusLine)} - redirect to unsupported scheme ${JSON.stringify(next.protocol)}`,
      );
    // 303, and 301/302 after a POST, turn into a GET without a body, as browsers and curl do.
    if (r.status === 303 ? method !== "HEAD" : (r.status === 301 || r.status === 302) && method === "POST") {
      method = "GET";
      body = undefined;
    }
    // The configured headers may hold credentials: they go to the configured origin only.
    headers = requestHeaders(next.origin === origin ? probe.headers : undefined, method, body);
    url = next;
    where = hostPort(url);
  }
  const seconds = (performance.now() - start) / 1000;
  const verdict = await bodyFindings(probe, response.body, signal);
  if (verdict.aborted) return abortOutcome(PREFIX, signal, `${method} on ${where}`, start);
  return judge(probe, response, verdict.missing, seconds, timeoutMs);
}

/** The request's headers: the check's defaults, then the configured ones (which win). */
function requestHeaders(
  configured: Readonly<Record<string, string>> | undefined,
  method: string,
  body: string | undefined,
): OutgoingHttpHeaders {
  const h: OutgoingHttpHeaders = { "user-agent": USER_AGENT, accept: "*/*", connection: "close" };
  if (body !== undefined) h["content-length"] = Buffer.byteLength(body);
  else if (method === "POST" || method === "PUT" || method === "PATCH") h["content-length"] = 0;
  for (const [k, v] of Object.entries(configured ?? {})) {
    const lower = k.toLowerCase();
    // The defaults are set by their lower-case names; a configured one replaces them whatever its case.
    if (lower === "user-agent" || lower === "accept") delete h[lower];
    h[k] = v;
  }
  return h;
}

interface Finding {
  readonly status: ExitStatus;
  readonly text: string;
}

function judge(
  probe: HttpProbe,
  r: ExchangeResponse,
  bodyMissing: readonly string[],
  seconds: number,
  timeoutMs: number,
): CheckOutcome {
  const findings: Finding[] = [];
  const expected = probe.expectStatus;
  let status: ExitStatus;
  if (expected === undefined || expected.length === 0) status = stateForStatus(r.status);
  else if (expected.some(([lo, hi]) => r.status >= lo && r.status <= hi)) status = 0;
  else {
    status = 2;
    findings.push({ status, text: `status ${r.status} is not one of ${expected.map(rangeText).join(", ")}` });
  }
  for (const text of bodyMissing) findings.push({ status: 2, text });
  const ms = seconds * 1000;
  if (probe.critMs !== undefined && ms > probe.critMs)
    findings.push({ status: 2, text: `response time above crit ${formatSeconds(probe.critMs / 1000)} s` });
  else if (probe.warnMs !== undefined && ms > probe.warnMs)
    findings.push({ status: 1, text: `response time above warn ${formatSeconds(probe.warnMs / 1000)} s` });
  const worst = findings.reduce<ExitStatus>((w, f) => Math.max(w, f.status) as ExitStatus, status);
  const time: PerfDatum = {
    ...timeDatum(seconds, timeoutMs),
    warn: probe.warnMs === undefined ? "" : String(probe.warnMs / 1000),
    crit: probe.critMs === undefined ? "" : String(probe.critMs / 1000),
  };
  const notes = findings.map((f) => ` - ${f.text}`).join("");
  return outcome(
    PREFIX,
    worst,
    `${oneLine(r.statusLine)}${notes} - ${r.size} bytes in ${formatSeconds(seconds)} second response time`,
    [time, perfDatum("size", r.size, "B", 0)],
  );
}

function rangeText([lo, hi]: StatusRange): string {
  return lo === hi ? String(lo) : `${lo}-${hi}`;
}
