import type { Registry } from "prom-client";
import type { ConsumerHost } from "../consumers/index.js";
import type { Core } from "../core/core.js";
import type { Clock } from "../model/clock.js";
import type { Config } from "../model/config.js";
import type { Logger } from "../model/logger.js";
import {
  createCommandSender,
  createEmailSender,
  createNotifierMetrics,
  createNotifyZone,
  createTelegramSender,
  createWebhookSender,
  Notifier,
  TimeZoneError,
} from "../notify/index.js";
import type { NotifyOptions } from "./notify-flags.js";
import type { Reloader } from "./reload.js";

/** Defaults for options built by hand (tests): no SMTP relay, no Telegram token, the TZ zone. */
export const DEFAULT_NOTIFY_OPTIONS: NotifyOptions = {
  timezone: "",
  sendTimeoutMs: 10_000,
  smtp: { server: "", port: 587, tls: "starttls", user: "", password: "", from: "lookout@localhost" },
  telegramToken: "",
  telegramApiUrl: "https://api.telegram.org",
};

/**
 * Builds the notifier with the four senders, registers it with the consumer host (from the end of
 * the log on a fresh data dir, from its stored position otherwise) and with the reload fan-out.
 * Throws TimeZoneError for an unknown -notify-timezone.
 */
export function startNotifier(p: {
  readonly options: NotifyOptions;
  readonly config: Config;
  readonly core: Core;
  readonly consumers: ConsumerHost;
  readonly reloader: Reloader;
  readonly metrics: Registry;
  readonly clock: Clock;
  readonly logger: Logger;
}): Notifier {
  const o = p.options;
  const zone = createNotifyZone(o.timezone);
  const notifier = new Notifier({
    submit: (commands) => p.core.submit(commands, { source: "notifier" }),
    state: p.consumers.state,
    config: p.config,
    senders: {
      webhook: createWebhookSender(),
      command: createCommandSender(),
      email: createEmailSender({ ...o.smtp, timeoutMs: o.sendTimeoutMs }),
      telegram: createTelegramSender({ token: o.telegramToken, apiBase: o.telegramApiUrl }),
    },
    clock: p.clock,
    logger: p.logger,
    zone,
    sendTimeoutMs: o.sendTimeoutMs,
    metrics: createNotifierMetrics(p.metrics),
    // A replica that does not lead: nothing is sent until the host resumes the consumers.
    ...(p.consumers.active ? {} : { paused: true }),
  });
  p.consumers.add(notifier, { start: { kind: "end" }, idleMs: 1000 });
  p.reloader.register({ name: "notifier", applyConfig: (c) => notifier.applyConfig(c) });
  p.logger.info("notifier started", {
    timezone: zone.name,
    contacts: p.config.contacts.size,
    policies: p.config.notifications.size,
    smtp: o.smtp.server !== "",
    telegram: o.telegramToken !== "",
  });
  return notifier;
}

export { TimeZoneError };
