/**
 * The Pwned Passwords range API (PASSWORD_BREACH_API_URL), as the breached-password check needs it:
 * the list of hash suffixes under one 5-character prefix. apps/api/src/runtime/password-ranges.ts
 * asks `<url>/range/<prefix>` with `Add-Padding: true`, within 2 s.
 */
import type { DomainEvents } from "../../shared/events.js";
import type { Logger } from "../../shared/ports.js";

export interface PasswordRanges {
  /** False with PASSWORD_BREACH_CHECK=off: no password is checked. */
  readonly enabled: boolean;
  /** The range's body (`SUFFIX:COUNT` lines), or undefined when the API did not answer in time or at all. */
  range(prefix: string): Promise<string | undefined>;
}

export interface BreachedPasswordPorts {
  passwordRanges: PasswordRanges;
  events: DomainEvents;
  logger: Logger;
}

/** PASSWORD_BREACH_CHECK=off. */
export const passwordRangesOff: PasswordRanges = { enabled: false, range: async () => undefined };
