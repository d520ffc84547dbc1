import { createHttpPoster } from "../http-post.js";
import type { Sender, SendOutcome } from "../sender.js";
import { networkErrorOf, permanent, retryable, textOf } from "../sender.js";

/** The public Bot API. */
export const TELEGRAM_API = "https://api.telegram.org";

export interface TelegramOptions {
  /** The bot token, from -telegram-token or LOOKOUT_TELEGRAM_TOKEN only (never the config). */
  readonly token: string;
  /** The Bot API base URL (tests point it at a loopback fake). */
  readonly apiBase?: string;
}

/**
 * Bot API sendMessage to the contact's `chat_id`. 429 is retried after its `retry_after`; 5xx,
 * timeouts and connection errors are retried; other answers are permanent. The token is part of
 * the request path, so no error ever carries the URL, and the API's description is scrubbed of it.
 */
export function createTelegramSender(o: TelegramOptions): Sender {
  const poster = createHttpPoster(8);
  const base = (o.apiBase ?? TELEGRAM_API).replace(/\/+$/, "");
  const scrub = (s: string) => (o.token === "" ? s : s.split(o.token).join("<token>"));
  return {
    close: () => poster.close(),
    async send(n, contact, _config, signal): Promise<SendOutcome> {
      if (contact.type !== "telegram") return permanent(`telegram sender given a ${contact.type} contact`);
      if (o.token === "")
        return permanent("telegram: no bot token (-telegram-token or LOOKOUT_TELEGRAM_TOKEN)");
      let url: URL;
      try {
        url = new URL(`${base}/bot${o.token}/sendMessage`);
      } catch {
        return permanent("telegram: the API base URL does not parse");
      }
      const body = Buffer.from(
        JSON.stringify({ chat_id: contact.chatId, text: textOf(n), disable_web_page_preview: true }),
      );
      let res: { status: number; body: string };
      try {
        res = await poster.post(url, { "content-type": "application/json" }, body, signal);
      } catch (e) {
        if (signal.aborted) return retryable("telegram: timeout");
        return retryable(`telegram: ${networkErrorOf(e)}`);
      }
      let answer: { ok?: boolean; description?: string; parameters?: { retry_after?: number } } = {};
      try {
        answer = JSON.parse(res.body) as typeof answer;
      } catch {
        // A non-JSON answer (a proxy's error page): judged by the status alone.
      }
      const what = scrub(
        `telegram: HTTP ${res.status}${answer.description ? `: ${answer.description.slice(0, 200)}` : ""}`,
      );
      if (res.status === 200 && answer.ok === true) return { ok: true };
      if (res.status === 429) {
        const s = answer.parameters?.retry_after;
        return retryable(what, typeof s === "number" && s >= 0 ? s * 1000 : undefined);
      }
      if (res.status >= 500 || res.status === 200) return retryable(what);
      return permanent(what);
    },
  };
}
