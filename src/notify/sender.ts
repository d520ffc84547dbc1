import type { Config, ContactConfig, Labels, NotificationKind } from "../model/config.js";
import type { ObjectState } from "../model/state.js";

/** One notification to one contact, as every sender receives it. Plain data, no secrets. */
export interface Notification {
  /** Stable across restarts and retries: the Idempotency-Key, the mail's Message-ID stem. */
  readonly id: string;
  readonly kind: NotificationKind;
  /** `host` or `host!service`. */
  readonly key: string;
  readonly host: string;
  readonly service?: string;
  readonly state: ObjectState;
  readonly output: string;
  /** 1-based escalation level. */
  readonly level: number;
  readonly policy: string;
  /** The problem's notification number (0 for RECOVERY and FLAPPING_*). */
  readonly number: number;
  /** Ms since the epoch: when the notifier decided it. */
  readonly at: number;
  /** The object's labels: a service's are its host's overlaid by its own, as selectors see them. */
  readonly labels: Labels;
  /** ACKNOWLEDGEMENT, CUSTOM, DOWNTIME_*: who acted ($NOTIFICATIONAUTHOR$). */
  readonly author?: string;
  /** ACKNOWLEDGEMENT, CUSTOM, DOWNTIME_*: what they said ($NOTIFICATIONCOMMENT$). */
  readonly comment?: string;
  /**
   * How many earlier notifications of this problem to this contact, undeliverable while this one
   * became due, it replaces (docs/notifications.md, "A contact that comes back"); absent for none.
   */
  readonly replaces?: number;
}

/**
 * What a send came to. `retryable` says whether the same notification may succeed later (a 5xx,
 * a timeout, a dropped connection); a permanent failure (a 4xx, a bad address) is not retried.
 * `error` is for the log and the NotificationFailed event: it never holds a secret (no token, no
 * password, no URL).
 */
export type SendOutcome =
  | { readonly ok: true }
  | {
      readonly ok: false;
      readonly retryable: boolean;
      readonly error: string;
      readonly retryAfterMs?: number;
    };

/**
 * A contact type's transport (alertmanager's Notifier). Never rejects: a failure is an outcome.
 * Honours `signal` (the notifier aborts a send at its timeout) and answers retryable "timeout" then.
 * May be called concurrently for different notifications.
 */
export interface Sender {
  send(n: Notification, contact: ContactConfig, config: Config, signal: AbortSignal): Promise<SendOutcome>;
  /** Closes pooled connections (optional). */
  close?(): void;
}

/** A retryable outcome. */
export function retryable(error: string, retryAfterMs?: number): SendOutcome {
  return retryAfterMs === undefined
    ? { ok: false, retryable: true, error }
    : { ok: false, retryable: true, error, retryAfterMs };
}

/** A permanent outcome. */
export function permanent(error: string): SendOutcome {
  return { ok: false, retryable: false, error };
}

/** The one-line subject every text-based contact uses: `PROBLEM web/http is CRITICAL`. */
export function subjectOf(n: Notification): string {
  const what = n.service === undefined ? n.host : `${n.host}/${n.service}`;
  return `${n.kind} ${what} is ${n.state}`;
}

/** The message body of text-based contacts (email, telegram). */
export function textOf(n: Notification): string {
  const by = n.author === undefined || n.author === "" ? "" : `By: ${n.author}`;
  const said = n.comment === undefined || n.comment === "" ? "" : `Comment: ${n.comment}`;
  const replaces = n.replaces ?? 0;
  return [
    subjectOf(n),
    "",
    n.output,
    "",
    ...(by === "" && said === "" ? [] : [by, said].filter((l) => l !== "")),
    `Policy: ${n.policy}, level ${n.level}${n.number > 0 ? `, notification ${n.number}` : ""}`,
    ...(replaces > 0
      ? [`Replaces: ${replaces} earlier ${replaces === 1 ? "notification" : "notifications"} not delivered`]
      : []),
    `When: ${new Date(n.at).toISOString()}`,
    `Id: ${n.id}`,
  ].join("\n");
}

/** A network error's code (ECONNREFUSED …) without its message, which may carry an address. */
export function networkErrorOf(e: unknown): string {
  let cur: unknown = e;
  for (let i = 0; i < 4 && cur instanceof Error; i++) {
    const code = (cur as { code?: unknown }).code;
    if (typeof code === "string") return code;
    cur = cur.cause;
  }
  if (e instanceof Error && (e.name === "AbortError" || e.name === "TimeoutError")) return "timeout";
  return "network error";
}
