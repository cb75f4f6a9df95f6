import type { OutboxLogger } from "@mteja/shared";
import type { LoggedText, SmsTransport } from "./transport.js";

/** Structured fields first, then a message: any pino logger fits. */
export type SmsLogger = OutboxLogger;

export interface LogTransportOptions {
  logger: SmsLogger;
  /** Log the bodies (they carry sign-in codes): false in production. */
  logBodies: boolean;
  keepRecent?: number;
  now?: () => Date;
}

/** Stands in for Africa's Talking when none is configured: logs each text and keeps the last few. */
export function createSmsLogTransport(options: LogTransportOptions): SmsTransport & { recent(): LoggedText[] } {
  const keepRecent = options.keepRecent ?? 50;
  const now = options.now ?? (() => new Date());
  const kept: LoggedText[] = [];
  return {
    async send(text) {
      kept.unshift({ textId: text.id, tenantId: text.tenantId, kind: text.kind, to: text.to, body: text.body, sentAt: now() });
      kept.length = Math.min(kept.length, keepRecent);
      const fields: Record<string, unknown> = { textId: text.id, tenantId: text.tenantId, kind: text.kind, to: text.to };
      if (options.logBodies) fields["body"] = text.body;
      options.logger.info(fields, "Text logged, not sent (no SMS provider configured)");
      return { outcome: "accepted", messageId: null, status: "Logged" };
    },
    recent() {
      return kept.map((text) => ({ ...text }));
    },
  };
}
