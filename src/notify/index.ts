/**
 * Notifications (docs/notifications.md): the notifier, a consumer of the committed event log that
 * decides who is told of what (pure policy logic: decide, period windows, the escalation tracker),
 * records every decision in the log, and delivers through one Sender per contact type
 * (`email/`, `webhook/`, `command/`, `telegram/`) with durable, per-contact retries.
 */
export { createCommandSender } from "./command/index.js";
export { type Decision, decide, type NotifyStatus, SUPPRESS_REASONS, type SuppressReason } from "./decide.js";
export { createEmailSender, type SmtpOptions, type SmtpTls } from "./email/index.js";
export { createNotifierMetrics, type NotifierMetrics } from "./metrics.js";
export { NOTIFIER_NAME, Notifier, type NotifierOptions } from "./notifier.js";
export { createNotifyZone, inPeriod, type NotifyZone, nextPeriodOpen, TimeZoneError } from "./period.js";
export type { Preview, PreviewQuery } from "./preview.js";
export type { Notification, Sender, SendOutcome } from "./sender.js";
export { createTelegramSender, TELEGRAM_API } from "./telegram/index.js";
export { createTracker, type Intent, type Tracker } from "./tracker.js";
export { createWebhookSender, type WebhookBody } from "./webhook/index.js";
