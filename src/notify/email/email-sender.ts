import type { Transporter } from "nodemailer";
import type { Sender, SendOutcome } from "../sender.js";
import { permanent, retryable, subjectOf, textOf } from "../sender.js";

/** How the SMTP connection is secured. */
export type SmtpTls = "none" | "starttls" | "tls";

/** The SMTP relay: flags or environment (docs/notifications.md, "Email"). */
export interface SmtpOptions {
  readonly server: string;
  readonly port: number;
  readonly tls: SmtpTls;
  readonly user: string;
  /** From LOOKOUT_SMTP_PASSWORD or -smtp-password-file, never a flag or the config. */
  readonly password: string;
  readonly from: string;
  /** Accept any certificate (a lab relay); off by default. */
  readonly insecureSkipVerify?: boolean;
  readonly timeoutMs?: number;
}

/**
 * Mails the contact's `address` through one pooled SMTP connection set (nodemailer). The message
 * carries the notification id as `Message-ID` and `X-Lookout-Notification-Id`, so a mail filter can
 * drop a repeat. A 4xx reply, a timeout and a connection error are retryable; a 5xx reply (bad
 * address, refused) and failed authentication are permanent.
 */
export function createEmailSender(o: SmtpOptions): Sender {
  const timeout = o.timeoutMs ?? 10_000;
  // nodemailer is loaded on the first mail: it costs startup time that most servers never need.
  let transport: Promise<Transporter> | undefined;
  const transportOf = (): Promise<Transporter> => {
    transport ??= import("nodemailer").then(({ createTransport }) =>
      createTransport({
        host: o.server,
        port: o.port,
        secure: o.tls === "tls",
        requireTLS: o.tls === "starttls",
        ignoreTLS: o.tls === "none",
        ...(o.user === "" ? {} : { auth: { user: o.user, pass: o.password } }),
        pool: true,
        maxConnections: 4,
        connectionTimeout: timeout,
        greetingTimeout: timeout,
        socketTimeout: timeout,
        logger: false,
        tls: { rejectUnauthorized: o.insecureSkipVerify !== true },
      }),
    );
    return transport;
  };
  return {
    close: () => {
      void transport?.then((t) => t.close());
    },
    async send(n, contact, _config, signal): Promise<SendOutcome> {
      if (contact.type !== "email") return permanent(`email sender given a ${contact.type} contact`);
      if (o.server === "") return permanent("email: no SMTP server (-smtp-server or LOOKOUT_SMTP_SERVER)");
      let t: Transporter;
      try {
        t = await transportOf();
      } catch {
        return permanent("email: cannot load nodemailer");
      }
      const mail = t.sendMail({
        from: o.from,
        to: contact.address,
        subject: subjectOf(n),
        text: textOf(n),
        messageId: `<${n.id}@lookout>`,
        headers: { "X-Lookout-Notification-Id": n.id },
      });
      let onAbort: (() => void) | undefined;
      const aborted = new Promise<"aborted">((resolve) => {
        onAbort = () => resolve("aborted");
        if (signal.aborted) resolve("aborted");
        else signal.addEventListener("abort", onAbort, { once: true });
      });
      try {
        const r = await Promise.race([mail, aborted]);
        if (r === "aborted") {
          mail.catch(() => {});
          return retryable("email: timeout");
        }
        return { ok: true };
      } catch (e) {
        return outcomeOf(e);
      } finally {
        if (onAbort !== undefined) signal.removeEventListener("abort", onAbort);
      }
    },
  };
}

/** Maps nodemailer's error to an outcome without its message (which may echo the server's greeting). */
function outcomeOf(e: unknown): SendOutcome {
  const err = e as { code?: string; responseCode?: number };
  const code = typeof err.code === "string" ? err.code : "error";
  const rc = typeof err.responseCode === "number" ? err.responseCode : undefined;
  if (rc !== undefined) {
    const what = `email: SMTP ${rc} (${code})`;
    return rc >= 400 && rc < 500 ? retryable(what) : permanent(what);
  }
  switch (code) {
    case "EAUTH":
    case "ENOAUTH":
    case "EENVELOPE":
    case "EMESSAGE":
      return permanent(`email: ${code}`);
    default:
      return retryable(`email: ${code}`);
  }
}
