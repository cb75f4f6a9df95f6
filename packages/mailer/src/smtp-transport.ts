import nodemailer from "nodemailer";
import { codeOf, MailDeliveryError } from "./delivery-error.js";
import { outboxMessageId, requireSender, senderOf } from "./sender.js";
import type { MailTransport } from "./transport.js";

// Nodemailer error codes that mean the server, not the mail, is the problem.
const SERVER_UNAVAILABLE_CODES = new Set(["ECONNECTION", "ETIMEDOUT", "ESOCKET", "EDNS", "ETLS", "EAUTH", "EPROXY"]);

export function createSmtpTransport(options: { smtpUrl: string; from: string }): MailTransport {
  const from = requireSender(options.from);
  // Not pooled: mail volume is low and a fresh connection per mail never sits on a dead socket.
  // Options written in the URL's query (e.g. ?socketTimeout=60000) take precedence over these.
  const transporter = nodemailer.createTransport({
    url: options.smtpUrl,
    pool: false,
    connectionTimeout: 10_000,
    greetingTimeout: 10_000,
    socketTimeout: 20_000,
  });

  return {
    async send(mail, sendOptions) {
      try {
        await transporter.sendMail({
          from: senderOf(mail.fromName, from),
          to: mail.to,
          subject: mail.subject,
          text: mail.text,
          html: mail.html,
          messageId: outboxMessageId(mail.id, from.address),
          headers: { "Auto-Submitted": "auto-generated" },
          signal: sendOptions?.signal,
        });
      } catch (error) {
        throw toDeliveryError(error);
      }
    },
    async close() {
      transporter.close();
    },
  };
}

function toDeliveryError(error: unknown): MailDeliveryError {
  const code = codeOf(error);
  const responseCode = responseCodeOf(error);
  const message = error instanceof Error ? error.message : String(error);
  const label = [code ?? "ERROR", responseCode].filter((part) => part !== undefined).join(" ");
  return new MailDeliveryError(`${label}: ${message}`, {
    serverUnavailable: code !== undefined && SERVER_UNAVAILABLE_CODES.has(code),
    cause: error,
  });
}

function responseCodeOf(error: unknown): number | undefined {
  if (typeof error !== "object" || error === null || !("responseCode" in error)) return undefined;
  const responseCode = (error as { responseCode: unknown }).responseCode;
  return typeof responseCode === "number" ? responseCode : undefined;
}
