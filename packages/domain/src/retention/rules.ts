/**
 * What the pruning job deletes (docs/operations.md#retention): one entry per kind of row. Each kind is
 * kept `RETENTION_<KIND>_DAYS` days (default `defaultDays`; 0 keeps it for ever) after the moment named
 * in `expired`, whose SQL receives that moment's cutoff as $1. Rows are deleted by primary key `id`;
 * rows that hang off them (refresh tokens, webhook deliveries and attempts) go with them (ON DELETE CASCADE).
 * Payments, payouts, intents, users and addresses are not here: they are never pruned (the data
 * rights deletion removes a user's own rows).
 */
export const retentionRules = [
  {
    // Sent mails are an audit trail of what was sent to whom (bodies are blanked on sending in production).
    kind: "sent_mail",
    table: "mail_outbox",
    defaultDays: 30,
    expired: `sent_at < $1`,
  },
  {
    // Verification, reset and two-factor sign-in tokens are useless once spent or expired; a week helps support.
    kind: "one_time_tokens",
    table: "one_time_tokens",
    defaultDays: 7,
    expired: `(used_at < $1 OR expires_at < $1)`,
  },
  {
    // Sessions that ended (signed out, revoked, idle or too old), with their refresh tokens.
    kind: "ended_sessions",
    table: "sessions",
    defaultDays: 30,
    expired: `(revoked_at < $1 OR idle_expires_at < $1 OR absolute_expires_at < $1)`,
  },
  {
    // Daraja's callbacks as received: evidence in a payment dispute, which can come months later. Only
    // those whose money a payment or payout row records (a reversal's link its payment), those refused
    // before they were read (no token, a wrong one) and C2B validations (no money moves) ever go: a
    // flagged, unmatched, held or unreadable one, or one with a real token refused for the row it names,
    // may be the only record of money received, and is kept whatever its age.
    kind: "callbacks",
    table: "momo_callbacks",
    defaultDays: 730,
    expired: `received_at < $1 AND (
      (outcome = 'rejected' AND flag_reason IN ('no token', 'wrong token'))
      OR kind = 'c2b_validation'
      OR (outcome IN ('applied', 'duplicate', 'accepted')
          AND (payment_id IS NOT NULL OR payout_id IS NOT NULL)
          AND NOT EXISTS (SELECT 1 FROM payments p WHERE p.id = momo_callbacks.payment_id AND p.c2b_match = 'unmatched')))`,
  },
  {
    // Events every endpoint has finished with (delivered, failed or dropped), with their attempts.
    kind: "webhook_events",
    table: "webhook_events",
    defaultDays: 30,
    expired: `created_at < $1 AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.event_id = webhook_events.id AND (d.status = 'pending' OR d.finished_at >= $1))`,
  },
  {
    // Texts (docs/sms.md): sent ones, and codes' texts that expired before they could be sent.
    kind: "sent_texts",
    table: "sms_outbox",
    defaultDays: 30,
    expired: `(sent_at < $1 OR expires_at < $1)`,
  },
  {
    // Phone sign-in codes (docs/phone-sign-in.md): only their hashes, worthless once spent or expired.
    kind: "phone_codes",
    table: "phone_codes",
    defaultDays: 7,
    expired: `(used_at < $1 OR expires_at < $1)`,
  },
  {
    // The account's security events (docs/security-events.md#retention): sign-ins, changes, revocations.
    kind: "security_events",
    table: "security_events",
    defaultDays: 365,
    expired: `created_at < $1`,
  },
] as const satisfies readonly RetentionRule[];

export interface RetentionRule {
  /** Names the kind in settings (RETENTION_<KIND>_DAYS) and in the prune report. */
  kind: string;
  table: string;
  defaultDays: number;
  /** SQL condition over `table`: true for a row kept long enough once $1 is the cutoff. */
  expired: string;
}

export type RetentionKind = (typeof retentionRules)[number]["kind"];
