import type { Locale } from "@mteja/i18n";
import { singleLine } from "./templates/format.js";
import { renderMail, type MailDataByKind, type MailKind } from "./templates/index.js";

/** A mail waiting in the outbox, as claimed by the worker. */
export interface OutboxMail {
  id: string;
  tenantId: string;
  to: string;
  /** Display name of the sender (the tenant's display name); the address comes from MAIL_FROM. */
  fromName: string;
  subject: string;
  text: string;
  html: string;
  /** Failed delivery attempts so far (0 for a mail never tried). */
  attempts: number;
  kind: MailKind;
}

/** The fields to insert for a new outbox row; the database adds id, attempts = 0 and next attempt = now. */
export type NewOutboxMail = Omit<OutboxMail, "id" | "attempts">;

/**
 * Storage of the outbox, implemented by the db package. Rows are inserted in the same transaction
 * as the change that caused the mail, so a mail exists exactly when that change committed.
 */
export interface OutboxStore {
  /**
   * Returns up to `limit` unsent mails whose next attempt is due (`next_attempt_at <= now`), oldest
   * due first, and leases them: in the same transaction, moves their next attempt to `now + leaseMs`,
   * so no other worker claims them while this one sends (FOR UPDATE SKIP LOCKED). Does not change
   * `attempts`. A worker that dies mid-send simply lets the lease run out and the mail is claimed again.
   * At most `perTenant` mails of one tenant, taken in turns across tenants (@mteja/shared's fairPick).
   */
  claimDue(opts: { limit: number; now: Date; leaseMs: number; perTenant: number }): Promise<OutboxMail[]>;
  /** Records delivery; the row is never claimed again. Idempotent. */
  markSent(id: string, sentAt: Date): Promise<void>;
  /**
   * Records a failed attempt: stores `attempts` and the error (already safe to store: no body, no
   * token) and sets the next attempt to `nextAttemptAt`. Must not touch a row already marked sent.
   */
  markFailed(id: string, opts: { error: string; nextAttemptAt: Date; attempts: number }): Promise<void>;
  /** Renews the leases of mails being sent (@mteja/shared's LeasedOutboxStore.renewLeases). */
  renewLeases?(held: readonly { id: string; until: Date }[], until: Date): Promise<readonly string[]>;
}

export interface OutboxRecipient {
  tenantId: string;
  /** Used as the sender's display name and as the shop name in the mail. */
  tenantName: string;
  to: string;
  /** The recipient's language (their stored preference, else the shop's); English when absent. */
  locale?: Locale;
}

/** Renders a mail into the row to insert in the outbox, next to the change that causes it. */
export function newOutboxMail<K extends MailKind>(
  kind: K,
  data: Omit<MailDataByKind[K], "tenantName">,
  recipient: OutboxRecipient,
): NewOutboxMail {
  // The spread of a generic Omit is not recognised as the full type again, though it is.
  const templateData = { ...data, tenantName: recipient.tenantName } as MailDataByKind[K];
  const rendered = renderMail(kind, templateData, recipient.locale);
  return {
    tenantId: recipient.tenantId,
    to: recipient.to,
    fromName: singleLine(recipient.tenantName),
    kind,
    subject: rendered.subject,
    text: rendered.text,
    html: rendered.html,
  };
}
