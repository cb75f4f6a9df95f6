/**
 * The people who sign in at the simulator: anyone, by typing an email. The same email is always the
 * same `sub` (a 21-digit number, as Google's are), so a second sign-in finds the linked account.
 */
import { createHash } from "node:crypto";

export interface SimAccount {
  sub: string;
  email: string;
  email_verified: boolean;
  name: string;
}

export function subjectOf(email: string): string {
  const digest = createHash("sha256").update(email.trim().toLowerCase()).digest();
  return (digest.readBigUInt64BE(0) % 10n ** 20n + 10n ** 20n).toString();
}

export function accountOf(email: string, verified: boolean): SimAccount {
  const address = email.trim().toLowerCase();
  return { sub: subjectOf(address), email: address, email_verified: verified, name: address.split("@")[0] ?? address };
}
