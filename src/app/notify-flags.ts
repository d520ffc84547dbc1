import { readFileSync } from "node:fs";
import { parseDurationMs } from "../config/duration.js";
import type { SmtpTls } from "../notify/index.js";
import type { FlagSpec, FlagValues } from "./flags.js";

/** The notifier's flags (docs/notifications.md): time zone, SMTP relay, Telegram bot. */
export const NOTIFY_FLAGS: readonly FlagSpec[] = [
  {
    name: "notify-timezone",
    kind: "string",
    default: "",
    usage: "IANA time zone of notification period windows (default: TZ, else the system's zone)",
  },
  {
    name: "notify-send-timeout",
    kind: "string",
    default: "10s",
    usage: "abort (and retry) one notification send after this long",
  },
  {
    name: "smtp-server",
    kind: "string",
    default: "",
    env: "LOOKOUT_SMTP_SERVER",
    usage: "SMTP relay host for email contacts",
  },
  { name: "smtp-port", kind: "string", default: "587", env: "LOOKOUT_SMTP_PORT", usage: "SMTP relay port" },
  {
    name: "smtp-tls",
    kind: "string",
    default: "starttls",
    env: "LOOKOUT_SMTP_TLS",
    usage: "none, starttls or tls",
  },
  {
    name: "smtp-user",
    kind: "string",
    default: "",
    env: "LOOKOUT_SMTP_USER",
    usage: "SMTP user; the password comes from LOOKOUT_SMTP_PASSWORD or -smtp-password-file",
  },
  { name: "smtp-password-file", kind: "string", default: "", usage: "file holding the SMTP password" },
  {
    name: "smtp-from",
    kind: "string",
    default: "lookout@localhost",
    env: "LOOKOUT_SMTP_FROM",
    usage: "From address of notification mail",
  },
  {
    name: "telegram-token",
    kind: "string",
    default: "",
    env: "LOOKOUT_TELEGRAM_TOKEN",
    usage: "Telegram bot token for telegram contacts",
  },
  {
    name: "telegram-api-url",
    kind: "string",
    default: "https://api.telegram.org",
    usage: "Telegram Bot API base URL",
  },
];

/** The notifier's settings, decoded from its flags. Secrets stay here and in the senders. */
export interface NotifyOptions {
  readonly timezone: string;
  readonly sendTimeoutMs: number;
  readonly smtp: {
    readonly server: string;
    readonly port: number;
    readonly tls: SmtpTls;
    readonly user: string;
    readonly password: string;
    readonly from: string;
  };
  readonly telegramToken: string;
  readonly telegramApiUrl: string;
}

/** Decodes the notifier's flags; the SMTP password from LOOKOUT_SMTP_PASSWORD or the file. */
export function decodeNotifyOptions(
  v: FlagValues,
): { ok: true; options: NotifyOptions } | { ok: false; error: string } {
  const s = (k: string) => String(v[k] ?? "");
  const timeout = parseDurationMs(s("notify-send-timeout"));
  if (timeout === undefined || timeout <= 0)
    return { ok: false, error: `invalid value "${s("notify-send-timeout")}" for -notify-send-timeout` };
  const port = Number(s("smtp-port"));
  if (!Number.isInteger(port) || port < 1 || port > 65535)
    return { ok: false, error: `invalid value "${s("smtp-port")}" for -smtp-port` };
  const tls = s("smtp-tls");
  if (tls !== "none" && tls !== "starttls" && tls !== "tls")
    return { ok: false, error: `invalid value "${tls}" for -smtp-tls: want none, starttls or tls` };
  let password = process.env.LOOKOUT_SMTP_PASSWORD ?? "";
  const file = s("smtp-password-file");
  if (file !== "") {
    try {
      password = readFileSync(file, "utf8").replace(/\r?\n$/, "");
    } catch (e) {
      return {
        ok: false,
        error: `-smtp-password-file: ${(e as NodeJS.ErrnoException).code ?? "cannot read"}`,
      };
    }
  }
  return {
    ok: true,
    options: {
      timezone: s("notify-timezone"),
      sendTimeoutMs: timeout,
      smtp: { server: s("smtp-server"), port, tls, user: s("smtp-user"), password, from: s("smtp-from") },
      telegramToken: s("telegram-token"),
      telegramApiUrl: s("telegram-api-url"),
    },
  };
}
