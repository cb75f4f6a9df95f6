/**
 * The second factor given to confirm a change or to reauthenticate (docs/two-factor.md): a TOTP code
 * of the enabled secret — its step claimed, so it is never accepted again — or an unused recovery code,
 * spent. A wrong one counts as a failed sign-in of the account (not of the IP: the caller is signed in).
 */
import { recoveryCodes, users } from "@mteja/db";
import { DomainError } from "../../shared/errors.js";
import { beginProofAttempt } from "../../shared/abuse-limits.js";
import { recordSecurityEvent } from "../../security-events/record.js";
import type { AuthedCtx } from "../ports.js";
import { hashRecoveryCode, looksLikeRecoveryCode } from "./recovery-codes.js";
import { matchTotp } from "./totp.js";

export interface SecondFactorUser {
  id: string;
  tenantId: string;
  email: string | null;
  otpEnabled: boolean;
  otpSecretEnc: string | null;
  otpLastStep: bigint | null;
}

/** Throws 401 INVALID_OTP unless `code` is the account's current TOTP code or one of its unused recovery codes. */
export async function confirmSecondFactor(ctx: AuthedCtx, user: SecondFactorUser, code: string): Promise<void> {
  const attempt = await beginProofAttempt(ctx, user);
  const matched = await attempt.check(() => spendSecondFactor(ctx, user, code.replace(/\s+/g, "")));
  if (!matched) throw new DomainError("INVALID_OTP");
  await attempt.stepPassed();
  if (matched === "recovery_code") await recordSecurityEvent(ctx, ctx.db, user.tenantId, { userId: user.id, type: "recovery_code.used" });
}

async function spendSecondFactor(ctx: AuthedCtx, user: SecondFactorUser, code: string): Promise<"totp" | "recovery_code" | undefined> {
  const { deps } = ctx;
  if (!user.otpEnabled) return undefined;
  if (/^\d{6}$/.test(code)) {
    if (!user.otpSecretEnc) return undefined;
    const step = await matchTotp(deps.cipher.decrypt(user.otpSecretEnc), code, deps.clock.now(), user.otpLastStep);
    if (step === undefined) return undefined;
    return (await users.claimTotpStep(ctx.db, user.id, step)) ? "totp" : undefined;
  }
  if (!looksLikeRecoveryCode(code)) return undefined;
  const used = await recoveryCodes.spend(ctx.db, user.id, hashRecoveryCode(user.id, code), deps.clock.now());
  return used ? "recovery_code" : undefined;
}
