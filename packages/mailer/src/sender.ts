const BARE_ADDRESS = /^[^\s@<>"(),;:]+@[^\s@<>"(),;:]+\.[^\s@<>"(),;:]+$/;

/** Checks that MAIL_FROM is a bare address; the display name comes per mail from the tenant. */
export function assertBareAddress(from: string): string {
  if (!BARE_ADDRESS.test(from)) {
    throw new TypeError(`Mail sender must be a bare address like no-reply@example.com, got "${from}"`);
  }
  return from;
}

/** `"Name" <address>` for logs and the dev outbox page; real mails use nodemailer's address object. */
export function formatSender(name: string, address: string): string {
  return `"${name.replace(/["\\]/g, "\\$&")}" <${address}>`;
}

/**
 * A Message-ID derived from the outbox row, so every retry of one mail carries the same id and
 * receiving servers that de-duplicate by Message-ID drop a second copy.
 */
export function outboxMessageId(mailId: string, from: string): string {
  const domain = from.slice(from.lastIndexOf("@") + 1);
  return `<outbox.${mailId.replace(/[^A-Za-z0-9.-]/g, "_")}@${domain}>`;
}
