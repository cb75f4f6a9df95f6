// What the outbox worker sends through; create-transport.ts picks SMTP or the log stand-in.
import type { OutboxMail } from "./outbox.js";

/** A mail as handed to the log transport, kept for the dev outbox page. */
export interface SentMail {
  mailId: string;
  tenantId: string;
  kind: OutboxMail["kind"];
  from: string;
  to: string;
  subject: string;
  text: string;
  html: string;
  sentAt: Date;
}

export interface SendOptions {
  /** Aborts a send still running when the worker's lease on the mail is about to run out. */
  signal?: AbortSignal;
}

export interface MailTransport {
  /** Resolves once the mail server accepted the mail; rejects with a `MailDeliveryError` otherwise. */
  send(mail: OutboxMail, opts?: SendOptions): Promise<void>;
  close(): Promise<void>;
  /** Newest first; only the log transport keeps mails. */
  recent?(): SentMail[];
}
