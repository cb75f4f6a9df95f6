import type { retention } from "@mteja/db";

/**
 * What the pruning job deletes (docs/operations.md#retention): one entry per kind of row. Each kind is
 * kept `RETENTION_<KIND>_DAYS` days (default `defaultDays`; 0 keeps it for ever) after the moments named
 * in `expired` (@mteja/db's `retention.ExpiredRows`; the cutoff is now minus those days). Rows that hang
 * off them (refresh tokens, webhook deliveries and attempts) go with them (ON DELETE CASCADE).
 * Payments, payouts, intents and addresses are not here: they are never pruned (the data rights
 * deletion removes a user's own rows). Of the users only guests left unused are (docs/sign-in.md).
 *
 * `callbackKindsWithoutMoney`: the callback kinds whose flow declares `movesNoMoney` (the flow registry's,
 * payments/flows.ts, which sits above this area: the composition root hands them over).
 */
export const retentionRulesFor = (callbackKindsWithoutMoney: readonly string[]) => [
  {
    // Sent mails are an audit trail of what was sent to whom (bodies are blanked on sending in production).
    kind: "sent_mail",
    defaultDays: 30,
    expired: { table: "mail_outbox", anyBefore: ["sentAt"] },
  },
  {
    // Verification, reset and two-factor sign-in tokens are useless once spent or expired; a week helps support.
    kind: "one_time_tokens",
    defaultDays: 7,
    expired: { table: "one_time_tokens", anyBefore: ["usedAt", "expiresAt"] },
  },
  {
    // Sessions that ended (signed out, revoked, idle or too old), with their refresh tokens.
    kind: "ended_sessions",
    defaultDays: 30,
    expired: { table: "sessions", anyBefore: ["revokedAt", "idleExpiresAt", "absoluteExpiresAt"] },
  },
  {
    // Daraja's callbacks as received: evidence in a payment dispute, which can come months later. Only
    // those whose money a payment or payout row records (a refund's link its payment), those refused
    // before they were read (no token, a wrong one) and those with which no money moves (a C2B
    // validation: the kinds its flow declares `movesNoMoney`) ever go: a flagged, unmatched, held or
    // unreadable one, or one with a real token refused for the row it names, may be the only record of
    // money received, and is kept whatever its age.
    kind: "callbacks",
    defaultDays: 730,
    expired: {
      table: "momo_callbacks",
      refusedUnread: { outcome: "rejected", flagReasons: ["no token", "wrong token"] },
      kinds: callbackKindsWithoutMoney,
      recorded: { outcomes: ["applied", "duplicate", "accepted"], keptForC2bMatch: ["unmatched"] },
    },
  },
  {
    // Events every endpoint has finished with (delivered, failed or dropped), with their attempts.
    kind: "webhook_events",
    defaultDays: 30,
    expired: { table: "webhook_events", finishedWith: true },
  },
  {
    // Texts (docs/sms.md): sent ones, and codes' texts that expired before they could be sent.
    kind: "sent_texts",
    defaultDays: 30,
    expired: { table: "sms_outbox", anyBefore: ["sentAt", "expiresAt"] },
  },
  {
    // Phone sign-in codes (docs/phone-sign-in.md): only their hashes, worthless once spent or expired.
    kind: "phone_codes",
    defaultDays: 7,
    expired: { table: "phone_codes", anyBefore: ["usedAt", "expiresAt"] },
  },
  {
    // Passkey ceremonies' challenges (docs/sign-in.md#passkeys): only their hashes, worthless once spent
    // or past their 5 minutes; a sign-in's are asked for without an account, so they must not pile up.
    kind: "passkey_challenges",
    defaultDays: 1,
    expired: { table: "passkey_challenges", anyBefore: ["usedAt", "expiresAt"] },
  },
  {
    // Nonces handed out for Google ID tokens (docs/sign-in.md#the-id-token-flow): only their hashes. A
    // spent one is deleted as it is spent; one never used is worthless past its 5 minutes, and anyone
    // may ask for one without an account, so they must not pile up in a shop that stopped asking.
    kind: "oidc_nonces",
    defaultDays: 1,
    expired: { table: "oidc_nonces", anyBefore: ["expiresAt"] },
  },
  {
    // The account's security events (docs/security-events.md#retention): sign-ins, changes, revocations.
    kind: "security_events",
    defaultDays: 365,
    expired: { table: "security_events", anyBefore: ["createdAt"] },
  },
  {
    // Guest checkouts (docs/sign-in.md#guest-checkout) nobody came back to: no session opened, used or
    // refreshed for this long. Their addresses go with them; their payments stay, naming no customer.
    kind: "guests",
    defaultDays: 30,
    expired: { table: "users", unusedWithRole: "guest" },
  },
] as const satisfies readonly RetentionRule[];

export interface RetentionRule {
  /** Names the kind in settings (RETENTION_<KIND>_DAYS) and in the prune report. */
  kind: string;
  defaultDays: number;
  /** The rows of the kind kept long enough, given the cutoff. */
  expired: retention.ExpiredRows;
}

export type RetentionKind = ReturnType<typeof retentionRulesFor>[number]["kind"];
