/**
 * The `telegram` contact: Bot API sendMessage to a chat, the bot token by flag or environment only,
 * the API base URL settable, 429 `retry_after` honoured.
 */
export { createTelegramSender, TELEGRAM_API, type TelegramOptions } from "./telegram-sender.js";
