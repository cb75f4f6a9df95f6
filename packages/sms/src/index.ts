export { AFRICASTALKING_LIVE_URL, createAfricasTalkingClient, readSendAnswer, type AfricasTalkingClient, type AfricasTalkingMessage, type AfricasTalkingOptions } from "./africastalking.js";
export { createSmsTransport, type SmsTransportOptions } from "./create-transport.js";
export { describeSmsError, SmsDeliveryError } from "./delivery-error.js";
export { deliveryStatusAdvances, isFinalDeliveryStatus, parseDeliveryReport, type DeliveryReport } from "./delivery-report.js";
export { createSmsLogTransport, type SmsLogger } from "./log-transport.js";
export type { OutboxText, SmsSendResult } from "./outbox.js";
export type { LoggedText, SmsTransport } from "./transport.js";
export { createSmsOutboxWorker, type SmsOutboxStore, type SmsOutboxWorkerOptions } from "./worker.js";
