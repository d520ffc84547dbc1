/**
 * The `webhook` contact: an HTTP POST of a documented JSON body with an `Idempotency-Key` header
 * equal to the notification id (docs/notifications.md, "Webhook").
 */
export { createWebhookSender, type WebhookBody, webhookBody } from "./webhook-sender.js";
