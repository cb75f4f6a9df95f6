import { createLogTransport } from "./log-transport.js";
import type { MailLogger } from "./logger.js";
import { createSmtpTransport } from "./smtp-transport.js";
import type { MailTransport } from "./transport.js";

export interface MailTransportOptions {
  /** SMTP_URL, e.g. smtp://user:pass@smtp.example.com:587. Absent: mails are logged, not sent. */
  smtpUrl?: string | undefined;
  /** MAIL_FROM: `addr@x`, `Name <addr@x>` or `"Name, Inc." <addr@x>`; each mail's shop name goes before the name given here. */
  from: string;
  logger: MailLogger;
  /** Log mail bodies (log transport only). Bodies carry reset and verification tokens: false in production. */
  logMailBodies: boolean;
  /** How many mails the log transport keeps for `recent()` (default 50). */
  keepRecent?: number;
  now?: () => Date;
}

export function createMailTransport(options: MailTransportOptions): MailTransport {
  if (options.smtpUrl) return createSmtpTransport({ smtpUrl: options.smtpUrl, from: options.from });
  return createLogTransport({
    from: options.from,
    logger: options.logger,
    logMailBodies: options.logMailBodies,
    keepRecent: options.keepRecent,
    now: options.now,
  });
}
