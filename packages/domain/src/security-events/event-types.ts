/** The security events an account can have (docs/security-events.md#types). */
export const SECURITY_EVENT_TYPES = [
  "sign_in.succeeded",
  "sign_in.failed",
  "password.changed",
  "otp.enabled",
  "otp.disabled",
  "recovery_code.used",
  "session.revoked",
  "account.deleted",
  "account.exported",
  "phone.verified",
  "phone.changed",
  "email.changed",
  "email.confirmed",
  "reauthenticated",
  "identity.linked",
  "identity.unlinked",
] as const;

export type SecurityEventType = (typeof SECURITY_EVENT_TYPES)[number];

/** Small facts about an event (never a secret, never a password or code): `{ reason: "invalid_password" }`. */
export type SecurityEventDetails = Record<string, string | number | boolean | null>;
