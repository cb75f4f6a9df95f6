/**
 * The one check of "it is really you" before a sensitive change (change-password, 2FA disable,
 * deletion) and of reauthenticate (docs/step-up.md): the current password, or for an account that has
 * none (created by phone sign-in) an `sms_code` texted to its verified phone; and the two-factor `code`
 * whenever one is given while two-factor is on. Wrong answers count as failed sign-ins of the account
 * (not of the IP: the caller is authenticated), so a stolen access token cannot be used to guess.
 */
import type { Text } from "@mteja/i18n";
import { DomainError } from "../../shared/errors.js";
import { beginProofAttempt } from "../../shared/abuse-limits.js";
import { confirmSecondFactor, type SecondFactorUser } from "../otp/second-factor.js";
import type { AuthedCtx } from "../ports.js";
import { spendPhoneCode } from "./phone-codes.js";

export interface ConfirmingUser extends SecondFactorUser {
  phone: string | null;
  phoneVerified: boolean;
  passwordHash: string | null;
}

export interface IdentityProof {
  /** The current password (accounts that have one). */
  password?: string | undefined;
  /** A code from me/phone/start sent to the verified phone (accounts without a password). */
  sms_code?: string | undefined;
  /** A two-factor code (TOTP or recovery code), checked when given while two-factor is on. */
  code?: string | undefined;
}

function missing(field: string, message: Text): DomainError {
  return new DomainError("VALIDATION_ERROR", undefined, { details: [{ path: field, message }] });
}

/**
 * Throws unless the proof fits the account: 422 when the expected field is absent, 401
 * INVALID_CREDENTIALS for a wrong password, 401 INVALID_OTP for a wrong code. `passwordField` names
 * the password in the caller's input (`password`, `current_password`).
 */
export async function confirmIdentity(ctx: AuthedCtx, user: ConfirmingUser, proof: IdentityProof, passwordField = "password"): Promise<void> {
  if (user.passwordHash === null) {
    if (proof.sms_code === undefined) throw missing("sms_code", "detail.sms_code_required");
    await confirmVerifiedPhoneCode(ctx, user, proof.sms_code);
  } else {
    if (proof.password === undefined) throw missing(passwordField, { key: "detail.field_required", params: { field: passwordField } });
    await confirmPassword(ctx, user, proof.password, passwordField);
  }
  // A step-up by body proof needs the code too (docs/step-up.md): given, it is always checked.
  if (user.otpEnabled && proof.code !== undefined && proof.code.trim() !== "") await confirmSecondFactor(ctx, user, proof.code);
}

/** 401 INVALID_CREDENTIALS unless `password` is the account's (an account without one has no right password). */
export async function confirmPassword(ctx: AuthedCtx, user: ConfirmingUser, password: string, passwordField = "password"): Promise<void> {
  const attempt = await beginProofAttempt(ctx, user);
  // An account without a password is checked against the decoy: same work, same answer.
  const valid = await attempt.check(() => ctx.deps.passwords.verify(user.passwordHash ?? undefined, password));
  if (!valid) throw new DomainError("INVALID_CREDENTIALS", passwordField === "current_password" ? "auth.current_password_wrong" : "auth.password_wrong");
  await attempt.stepPassed();
}

/** 401 INVALID_OTP unless `smsCode` is the live code texted to the account's verified phone (spent). */
export async function confirmVerifiedPhoneCode(ctx: AuthedCtx, user: ConfirmingUser, smsCode: string): Promise<void> {
  const attempt = await beginProofAttempt(ctx, user);
  // Only a code sent to the account's own verified phone: a code sent to a new number proves nothing about the account.
  const spent = user.phoneVerified && user.phone !== null
    ? await attempt.check(() => spendPhoneCode(ctx, ctx.db, { tenantId: user.tenantId, purpose: "verify", userId: user.id, phone: user.phone! }, smsCode))
    : undefined;
  if (!spent) throw new DomainError("INVALID_OTP", "phone.code_wrong_or_expired");
  await attempt.stepPassed();
}
