/**
 * Proof that the signed-in person is the account's owner, before an irreversible change (erasing the
 * account): the password — or, for an account without one (created by phone sign-in), an `sms_code`
 * from me/phone/start — and a two-factor code when two-factor is on (auth/phone/confirm-identity.ts,
 * the one check of all three).
 */
import { DomainError } from "../shared/errors.js";
import { confirmIdentity, type ConfirmingUser } from "../auth/phone/confirm-identity.js";
import type { AuthedCtx } from "./ports.js";

export type { ConfirmingUser };

export interface OwnerProof {
  password?: string | undefined;
  sms_code?: string | undefined;
  code?: string | undefined;
}

export async function confirmAccountOwner(ctx: AuthedCtx, user: ConfirmingUser, proof: OwnerProof): Promise<void> {
  const code = proof.code?.replace(/\s+/g, "");
  if (user.otpEnabled && !code) {
    throw new DomainError("VALIDATION_ERROR", undefined, { details: [{ path: "code", message: { key: "validation.required", params: { field: "code" } } }] });
  }
  // Wrong passwords and codes are guesses like failed logins, counted per account (the caller is authenticated).
  await confirmIdentity(ctx, user, { password: proof.password, sms_code: proof.sms_code, code });
}
