/**
 * Proof that the signed-in person is the account's owner, before an irreversible change (erasing the
 * account): the password — or, for an account without one (created by phone sign-in), an `sms_code`
 * from me/phone/start (auth/phone/confirm-identity.ts, the one check of both) — and a two-factor code
 * when two-factor is on.
 */
import { DomainError } from "../errors.js";
import { beginSignInAttempt, signInAccountOf } from "../core/abuse-limits.js";
import { confirmIdentity, type ConfirmingUser as IdentityUser } from "../auth/phone/confirm-identity.js";
import type { AuthedCtx } from "../trpc.js";
import { hashRecoveryCode, looksLikeRecoveryCode } from "../otp/recovery-codes.js";
import { matchTotp } from "../otp/totp.js";

export interface OwnerProof {
  password?: string | undefined;
  sms_code?: string | undefined;
  code?: string | undefined;
}

export interface ConfirmingUser extends IdentityUser {
  otpEnabled: boolean;
  otpSecretEnc: string | null;
  otpLastStep: bigint | null;
}

export async function confirmAccountOwner(ctx: AuthedCtx, user: ConfirmingUser, proof: OwnerProof): Promise<void> {
  const code = proof.code?.replace(/\s+/g, "");
  if (user.otpEnabled && !code) {
    throw new DomainError("VALIDATION_ERROR", undefined, { details: [{ path: "code", message: { key: "validation.required", params: { field: "code" } } }] });
  }
  // Wrong passwords and codes are guesses like failed logins, counted per account (the caller is authenticated).
  await confirmIdentity(ctx, user, { password: proof.password, sms_code: proof.sms_code });
  if (!user.otpEnabled || !code) return;

  const codeAttempt = await beginSignInAttempt(ctx, signInAccountOf(user), { ip: false });
  if (!(await secondFactorMatches(ctx, user, code))) throw new DomainError("INVALID_OTP");
  await codeAttempt.stepPassed();
}

/** A TOTP code (claimed, so it cannot be used again) or an unused recovery code (spent). */
async function secondFactorMatches(ctx: AuthedCtx, user: ConfirmingUser, code: string): Promise<boolean> {
  const { deps } = ctx;
  if (/^\d{6}$/.test(code)) {
    if (!user.otpSecretEnc) return false;
    const step = await matchTotp(deps.cipher.decrypt(user.otpSecretEnc), code, deps.clock.now(), user.otpLastStep);
    if (step === undefined) return false;
    const claimed = await ctx.db.user.updateMany({
      where: { id: user.id, otpEnabled: true, OR: [{ otpLastStep: null }, { otpLastStep: { lt: step } }] },
      data: { otpLastStep: BigInt(step) },
    });
    return claimed.count === 1;
  }
  if (!looksLikeRecoveryCode(code)) return false;
  const used = await ctx.db.recoveryCode.updateMany({
    where: { userId: user.id, codeHash: hashRecoveryCode(user.id, code), usedAt: null },
    data: { usedAt: deps.clock.now() },
  });
  return used.count === 1;
}
