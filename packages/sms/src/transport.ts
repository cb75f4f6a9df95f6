// What the SMS outbox worker sends through; create-transport.ts picks Africa's Talking or the log stand-in.
import type { OutboxText, SmsSendResult } from "./outbox.js";

/** A text as handed to the log transport, kept for the dev outbox. */
export interface LoggedText {
  textId: string;
  tenantId: string;
  kind: string;
  to: string;
  body: string;
  sentAt: Date;
}

export interface SmsTransport {
  /** Resolves with the provider's answer; rejects with an `SmsDeliveryError` when the text should be tried again. */
  send(text: OutboxText, opts?: { signal?: AbortSignal }): Promise<SmsSendResult>;
  /** Newest first; only the log transport keeps texts. */
  recent?(): LoggedText[];
}
