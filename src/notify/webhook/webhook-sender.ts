import { createHttpPoster } from "../http-post.js";
import type { Notification, Sender, SendOutcome } from "../sender.js";
import { networkErrorOf, permanent, retryable } from "../sender.js";

/**
 * The JSON body a webhook contact receives (docs/notifications.md, "Webhook"). `id` is also the
 * `Idempotency-Key` header: a receiver drops a repeat by it.
 */
export interface WebhookBody {
  readonly id: string;
  readonly kind: string;
  readonly object: { readonly key: string; readonly host: string; readonly service?: string };
  readonly state: string;
  readonly output: string;
  readonly level: number;
  readonly policy: string;
  readonly contact: string;
  readonly number: number;
  /** RFC 3339: when the notifier decided. */
  readonly decidedAt: string;
  /** RFC 3339: this attempt. */
  readonly sentAt: string;
  /** A service's are its host's overlaid by its own, as ListStatus and selectors see them. */
  readonly labels: Readonly<Record<string, string>>;
  /** ACKNOWLEDGEMENT, CUSTOM, DOWNTIME_*: who acted; "" otherwise. */
  readonly author: string;
  /** ACKNOWLEDGEMENT, CUSTOM, DOWNTIME_*: what they said; "" otherwise. */
  readonly comment: string;
  /**
   * How many earlier notifications of this problem to this contact, made stale while the contact
   * could not be reached, this one replaces (0: none).
   */
  readonly replaces: number;
}

/** The body for one notification. */
export function webhookBody(n: Notification, contact: string, now: number): WebhookBody {
  return {
    id: n.id,
    kind: n.kind,
    object:
      n.service === undefined
        ? { key: n.key, host: n.host }
        : { key: n.key, host: n.host, service: n.service },
    state: n.state,
    output: n.output,
    level: n.level,
    policy: n.policy,
    contact,
    number: n.number,
    decidedAt: new Date(n.at).toISOString(),
    sentAt: new Date(now).toISOString(),
    labels: n.labels,
    author: n.author ?? "",
    comment: n.comment ?? "",
    replaces: n.replaces ?? 0,
  };
}

/**
 * POSTs the body with `Idempotency-Key: <id>`. 2xx is delivered; 5xx, 429 (with Retry-After),
 * timeouts and connection errors are retryable; any other status is permanent. User info in the URL
 * becomes a Basic Authorization header and never appears in an error.
 */
export function createWebhookSender(o: { now?: () => number } = {}): Sender {
  const now = o.now ?? Date.now;
  const poster = createHttpPoster();
  // A contact's URL parsed once, not per send (a burst sends thousands to the same URL).
  const targets = new Map<string, Target | string>();
  const targetOf = (raw: string): Target | string => {
    let t = targets.get(raw);
    if (t === undefined) {
      t = parseTarget(raw);
      if (targets.size >= 256) targets.clear();
      targets.set(raw, t);
    }
    return t;
  };
  return {
    close: () => poster.close(),
    async send(n, contact, _config, signal): Promise<SendOutcome> {
      if (contact.type !== "webhook") return permanent(`webhook sender given a ${contact.type} contact`);
      const target = targetOf(contact.url);
      if (typeof target === "string") return permanent(target);
      const { url } = target;
      const headers: Record<string, string> = {
        "content-type": "application/json",
        "idempotency-key": n.id,
        "user-agent": "lookout-notifier",
      };
      if (target.authorization !== undefined) headers.authorization = target.authorization;
      const body = Buffer.from(JSON.stringify(webhookBody(n, contact.name, now())));
      let res: { status: number; headers: Readonly<Record<string, string | string[] | undefined>> };
      try {
        res = await poster.post(url, headers, body, signal);
      } catch (e) {
        if (signal.aborted) return retryable("webhook: timeout");
        return retryable(`webhook: ${networkErrorOf(e)}`);
      }
      if (res.status >= 200 && res.status < 300) return { ok: true };
      if (res.status >= 500) return retryable(`webhook: HTTP ${res.status}`);
      if (res.status === 429)
        return retryable("webhook: HTTP 429", retryAfterMs(first(res.headers["retry-after"])));
      return permanent(`webhook: HTTP ${res.status}`);
    },
  };
}

/** Where a webhook POSTs: the URL without its user info, which becomes a Basic authorization. */
interface Target {
  readonly url: URL;
  readonly authorization: string | undefined;
}

/** A contact URL as a Target, or the permanent error (never quoting the URL: it may hold a secret). */
function parseTarget(raw: string): Target | string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return "webhook: the url does not parse";
  }
  if (url.protocol !== "https:" && url.protocol !== "http:")
    return `webhook: unsupported scheme ${url.protocol}`;
  let authorization: string | undefined;
  if (url.username !== "" || url.password !== "") {
    const user = decodeURIComponent(url.username);
    const pass = decodeURIComponent(url.password);
    authorization = `Basic ${Buffer.from(`${user}:${pass}`).toString("base64")}`;
    url.username = "";
    url.password = "";
  }
  return { url, authorization };
}

/** Retry-After in seconds (or an HTTP date), as ms; undefined when absent or unreadable. */
function retryAfterMs(h: string | null): number | undefined {
  if (h === null) return undefined;
  const s = Number(h);
  if (Number.isFinite(s) && s >= 0) return s * 1000;
  const t = Date.parse(h);
  return Number.isNaN(t) ? undefined : Math.max(0, t - Date.now());
}

function first(h: string | string[] | undefined): string | null {
  return (Array.isArray(h) ? h[0] : h) ?? null;
}
