/**
 * TOTP two-factor authentication (docs/two-factor.md): setup, verify (enable),
 * validate (the second step of login) and disable.
 */
import { oneTimeTokens, recoveryCodes, users } from "@mteja/db";
import type { z } from "zod";
import { startSession } from "../service.js";
import { DomainError } from "../../shared/errors.js";
import { enqueueSecurityNotice } from "../recovery/security-notices.js";
import { beginSignInAttempt, consumeAll, rateLimitedError, signInAccountOf } from "../../shared/abuse-limits.js";
import { confirmIdentity } from "../phone/confirm-identity.js";
import { secureSignInFactorChange } from "../factor-changes.js";
import { recordSecurityEvent } from "../../security-events/record.js";
import { tenantDisplayName } from "../../shared/tenant.js";
import type { AuthedCtx, TenantCtx } from "../ports.js";
import {
  findLiveOtpToken,
  invalidOtpToken,
  otpLoginPurpose,
  otpMaxAttempts,
  reserveOtpAttempt,
  spendOtpToken,
} from "../tokens/otp-login-token.js";
import { hashRecoveryCode, newRecoveryCodes } from "./recovery-codes.js";
import type { otpDisableInput, otpValidateInput, otpVerifyInput } from "./schemas.js";
import { matchTotp, newTotpSecret, totpUri } from "./totp.js";

const invalidOtp = () => new DomainError("INVALID_OTP");
const alreadyEnabled = () => new DomainError("OTP_ALREADY_ENABLED");
const notSetUp = () => new DomainError("OTP_NOT_SETUP", "otp.set_up_first");
const invalidAccessToken = () => new DomainError("INVALID_TOKEN");

async function currentUser(ctx: AuthedCtx) {
  const user = await users.findById(ctx.db, ctx.auth.sub);
  if (!user) throw invalidAccessToken();
  return user;
}

/**
 * Turning two-factor on is a factor change: it ends the other sessions and tells the owner by mail and
 * text. `two_factor_enables_per_account` bounds how often an account may do it (docs/limits.md), so a
 * loop of on and off cannot text and mail without end.
 */
const enablesOf = (user: { id: string; tenantId: string }) => ["two_factor_enables_per_account", `${user.tenantId}:${user.id}`] as const;

/** A new secret for the authenticator app; until otp/verify confirms it, setup again replaces it. */
export async function setup(ctx: AuthedCtx) {
  const { deps, tenant } = ctx;
  const user = await currentUser(ctx);
  if (user.otpEnabled) throw alreadyEnabled();
  // Not counted here (a setup may be replaced, or never confirmed), but refused when its verify would be.
  const enables = await deps.limiter.peek(...enablesOf(user));
  if (!enables.allowed) throw rateLimitedError(enables.retryAfter);
  const secret = newTotpSecret(deps.random);
  if (!(await users.storePendingTotpSecret(ctx.db, user.id, deps.cipher.encrypt(secret)))) throw alreadyEnabled();
  const uri = totpUri(tenantDisplayName(tenant), user.email ?? user.phone ?? user.id, secret);
  // Loaded by the first setup, not by every start (scripts/dependency-rules.mjs, rare-libraries-on-first-use).
  const { default: QRCode } = await import("qrcode");
  return {
    secret,
    qr_code_url: uri,
    qr_code_data_url: await QRCode.toDataURL(uri, { errorCorrectionLevel: "M", margin: 2, width: 256 }),
  };
}

/** Confirms the pending secret with a code from the app: two-factor on, recovery codes issued once. */
export async function verify(ctx: AuthedCtx, input: z.infer<typeof otpVerifyInput>) {
  const { deps } = ctx;
  const user = await currentUser(ctx);
  if (user.otpEnabled) throw alreadyEnabled();
  const pending = user.otpPendingSecretEnc;
  if (!pending) throw notSetUp();
  const step = await matchTotp(deps.cipher.decrypt(pending), input.code, deps.clock.now(), user.otpLastStep);
  if (step === undefined) throw invalidOtp();
  // Counted before the change, so parallel requests cannot pass the number together; given back if it
  // does not happen. Over it: 429, and the pending secret stays for later.
  const enable = await consumeAll(deps.limiter, [enablesOf(user)]);

  const codes = newRecoveryCodes(deps.random);
  try {
    await enableTwoFactor(ctx, user, { pending, step, codes });
  } catch (error) {
    await enable.refund();
    throw error;
  }
  deps.nudgeMail();
  deps.nudgeSms();
  return { recovery_codes: codes };
}

async function enableTwoFactor(
  ctx: AuthedCtx,
  user: Awaited<ReturnType<typeof currentUser>>,
  { pending, step, codes }: { pending: string; step: number; codes: string[] },
): Promise<void> {
  const { deps } = ctx;
  await ctx.deps.db.transaction(ctx.db, async (tx) => {
    // One conditional UPDATE: the secret confirmed is the one just checked, and the code's step is
    // claimed so that it can never sign in (nor confirm again).
    if (!(await users.enableTotp(tx, user.id, { pendingSecretEnc: pending, step }))) throw invalidOtp();
    const codeHashes = codes.map((code) => hashRecoveryCode(user.id, code));
    await recoveryCodes.replace(tx, user.id, codeHashes, deps.clock.now());
    await recordSecurityEvent(ctx, tx, user.tenantId, { userId: user.id, type: "otp.enabled" });
    // A second factor now guards sign-in: other sessions end, the email and the verified phone are told.
    await secureSignInFactorChange(ctx, tx, user, "two_factor_enabled");
  });
}

/** Step 2 of a two-factor login: the otp_token from login plus a TOTP code or a recovery code. */
export async function validate(ctx: TenantCtx, input: z.infer<typeof otpValidateInput>) {
  const { deps, tenant } = ctx;
  const token = await findLiveOtpToken(ctx, input.otp_token);
  const user = await users.findById(ctx.db, token.userId);
  if (!user || !user.otpEnabled || !user.otpSecretEnc) {
    // Two-factor was turned off (or the account removed) since login: this sign-in cannot finish.
    await spendOtpToken(ctx, undefined, token.id);
    throw invalidOtpToken();
  }
  // Wrong codes are failed sign-ins of the account (10 per 15 minutes) and of the IP (100 a minute):
  // without this, logging in again for a fresh otp_token would give five more guesses each time.
  const attempt = await beginSignInAttempt(ctx, signInAccountOf(user), { ip: true });
  const attempts = await reserveOtpAttempt(ctx, token.id);

  const code = input.code.replace(/\s+/g, "");
  const isTotp = /^\d{6}$/.test(code);
  const step = isTotp ? await matchTotp(deps.cipher.decrypt(user.otpSecretEnc), code, deps.clock.now(), user.otpLastStep) : undefined;

  const accepted = await ctx.deps.db.transaction(ctx.db, async (tx) => {
    if (isTotp) {
      if (step === undefined) return false;
      // Compare-and-set: a step is accepted once per user, whichever request gets there first.
      if (!(await users.claimTotpStep(tx, user.id, step))) return false;
    } else {
      if (!(await recoveryCodes.spend(tx, user.id, hashRecoveryCode(user.id, code), deps.clock.now()))) return false;
      await recordSecurityEvent(ctx, tx, user.tenantId, { userId: user.id, type: "recovery_code.used" });
    }
    // The code is only spent together with the token (a rollback gives both back).
    if (!(await spendOtpToken(ctx, tx, token.id))) throw invalidOtpToken();
    return true;
  });

  if (!accepted) {
    if (attempts >= otpMaxAttempts) await spendOtpToken(ctx, undefined, token.id);
    await recordSecurityEvent(ctx, ctx.db, tenant.id, { userId: user.id, type: "sign_in.failed", details: { reason: "invalid_otp" } });
    throw invalidOtp();
  }
  await attempt.succeeded();
  return startSession(ctx, user, "otp", token.guestUserId ? { guestId: token.guestUserId } : undefined);
}

/** Turns two-factor off after the current password: secrets and recovery codes are deleted. */
export async function disable(ctx: AuthedCtx, input: z.infer<typeof otpDisableInput>): Promise<void> {
  const { deps, tenant } = ctx;
  const user = await currentUser(ctx);
  // The password, or for an account without one an sms_code (counted as sign-in failures of the account).
  await confirmIdentity(ctx, user, { password: input.password, sms_code: input.sms_code, code: input.code });
  if (!user.otpEnabled) throw new DomainError("OTP_NOT_SETUP");

  await ctx.deps.db.transaction(ctx.db, async (tx) => {
    await users.disableTotp(tx, user.id);
    await recoveryCodes.deleteAllOf(tx, user.id);
    await oneTimeTokens.spendUnused(tx, { userId: user.id }, otpLoginPurpose, deps.clock.now());
    await recordSecurityEvent(ctx, tx, user.tenantId, { userId: user.id, type: "otp.disabled" });
    await enqueueSecurityNotice(ctx, tx, user, "twoFactorDisabled");
  });
  deps.nudgeMail();
}
