import { httpOutcome, retryAfterMs, type SendOutcome } from "./sink.js";

/** A URL as logs and errors may show it: without user, password, query or fragment. */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host}${u.pathname}`;
  } catch {
    return "(invalid URL)";
  }
}

/** An endpoint with its credentials moved from the URL into an Authorization header (fetch refuses them in URLs). */
export interface Endpoint {
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  /** For errors and logs. */
  readonly shown: string;
}

export function endpoint(url: string, headers: Readonly<Record<string, string>> = {}): Endpoint {
  const u = new URL(url);
  const h: Record<string, string> = { ...headers };
  if (u.username !== "" || u.password !== "") {
    const user = decodeURIComponent(u.username);
    const pass = decodeURIComponent(u.password);
    if (!Object.keys(h).some((k) => k.toLowerCase() === "authorization"))
      h.Authorization = `Basic ${Buffer.from(`${user}:${pass}`).toString("base64")}`;
    u.username = "";
    u.password = "";
  }
  return { url: u.toString(), headers: h, shown: redactUrl(url) };
}

/** How long one request may take before it counts as a retryable failure. */
export const REQUEST_TIMEOUT_MS = 30_000;

export interface PostOptions {
  readonly method?: "POST" | "PUT";
  readonly timeoutMs?: number;
  /**
   * Maps the answer to an outcome; default: httpOutcome (5xx, 429, 408 retry; other 4xx refuse).
   * `body` is the answer as text (trimmed), `bytes` as it came (a protobuf answer).
   */
  readonly outcome?: (
    status: number,
    body: string,
    retryAfter: number | undefined,
    bytes: Uint8Array,
  ) => SendOutcome;
}

/**
 * Sends `body` to the endpoint and maps the answer. A network error, a timeout or a body that
 * cannot be read is a retryable failure; the error names the URL without its credentials.
 */
export async function postBytes(
  ep: Endpoint,
  body: Uint8Array,
  headers: Readonly<Record<string, string>>,
  signal: AbortSignal,
  o: PostOptions = {},
): Promise<SendOutcome> {
  const timeout = AbortSignal.timeout(o.timeoutMs ?? REQUEST_TIMEOUT_MS);
  try {
    const res = await fetch(ep.url, {
      method: o.method ?? "POST",
      headers: { ...ep.headers, ...headers },
      body,
      signal: AbortSignal.any([signal, timeout]),
      redirect: "manual",
    });
    const bytes = new Uint8Array(await res.arrayBuffer());
    const text = new TextDecoder().decode(bytes).trim();
    const ra = retryAfterMs(res.headers.get("retry-after"), Date.now());
    return (o.outcome ?? httpOutcome)(res.status, text, ra, bytes);
  } catch (e) {
    const cause = (e as { cause?: { code?: string; message?: string } }).cause;
    const why = timeout.aborted
      ? "timed out"
      : (cause?.code ?? cause?.message ?? (e instanceof Error ? e.message : String(e)));
    return { kind: "retry", error: `${ep.shown}: ${why}` };
  }
}
