/**
 * The `email` contact: nodemailer over SMTP, the relay by flags or environment, the password only
 * from the environment or a file.
 */
export { createEmailSender, type SmtpOptions, type SmtpTls } from "./email-sender.js";
