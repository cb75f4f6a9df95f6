/**
 * Proof that the signed-in person is the account's owner, before an irreversible change (erasing the
 * account): the password, and a two-factor code when two-factor is on. One function, so another kind
 * of proof (a texted code for an account without a password) is added in one place.
 */
import { DomainError } from "../errors.js";
import { beginSignInAttempt } from "../core/abuse-limits.js";
import type { AuthedCtx } from "../trpc.js";
import { hashRecoveryCode, looksLikeRecoveryCode } from "../otp/recovery-codes.js";
import { matchTotp } from "../otp/totp.js";

export interface OwnerProof {
  password: string;
  code?: string | undefined;
}

export interface ConfirmingUser {
  id: string;
  tenantId: string;
  email: string;
  passwordHash: string;
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
  const account = { tenantId: user.tenantId, email: user.email };
  const passwordAttempt = await beginSignInAttempt(ctx, account, { ip: false });
  const valid = await passwordAttempt.check(() => ctx.deps.passwords.verify(user.passwordHash, proof.password));
  if (!valid) throw new DomainError("INVALID_CREDENTIALS", "auth.password_wrong");
  await passwordAttempt.stepPassed();
  if (!user.otpEnabled || !code) return;

  const codeAttempt = await beginSignInAttempt(ctx, account, { ip: false });
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
