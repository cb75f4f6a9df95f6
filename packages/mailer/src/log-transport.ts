import type { MailLogger } from "./logger.js";
import { formatSender, requireSender, senderOf } from "./sender.js";
import type { MailTransport, SentMail } from "./transport.js";

export interface LogTransportOptions {
  from: string;
  logger: MailLogger;
  logMailBodies: boolean;
  keepRecent?: number | undefined;
  now?: (() => Date) | undefined;
}

/** Stands in for SMTP when none is configured: logs each mail and keeps the last few in memory. */
export function createLogTransport(options: LogTransportOptions): MailTransport & { recent(): SentMail[] } {
  const from = requireSender(options.from);
  const keepRecent = options.keepRecent ?? 50;
  const now = options.now ?? (() => new Date());
  const kept: SentMail[] = [];

  return {
    async send(mail) {
      kept.unshift({
        mailId: mail.id,
        tenantId: mail.tenantId,
        kind: mail.kind,
        from: formatSender(senderOf(mail.fromName, from)),
        to: mail.to,
        subject: mail.subject,
        text: mail.text,
        html: mail.html,
        sentAt: now(),
      });
      kept.length = Math.min(kept.length, keepRecent);
      const fields: Record<string, unknown> = {
        mailId: mail.id,
        tenantId: mail.tenantId,
        kind: mail.kind,
        to: mail.to,
        subject: mail.subject,
      };
      if (options.logMailBodies) fields["text"] = mail.text;
      options.logger.info(fields, "Mail logged, not sent (no SMTP server configured)");
    },
    async close() {},
    recent() {
      return kept.map((mail) => ({ ...mail }));
    },
  };
}
