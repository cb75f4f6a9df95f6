export * from "./templates/index.js";
export { newOutboxMail, type NewOutboxMail, type OutboxMail, type OutboxRecipient, type OutboxStore } from "./outbox.js";
export { createMailTransport, type MailTransportOptions } from "./create-transport.js";
export type { MailTransport, SendOptions, SentMail } from "./transport.js";
export {
  createOutboxWorker,
  type OutboxRunResult,
  type OutboxWorker,
  type OutboxWorkerOptions,
} from "./worker.js";
export { describeError, MailDeliveryError } from "./delivery-error.js";
export type { MailLogger } from "./logger.js";
export { parseSender, type Sender } from "./sender.js";
export { checkSmtpServer } from "./smtp-check.js";
