/**
 * Phone sign-in by SMS (docs/phone-sign-in.md): phone/start texts a code, phone/verify answers as
 * login does; me/phone/start and me/phone/verify verify a phone on a signed-in account.
 *
 * phone/start reveals nothing about the phone: the same answer for a known, an unknown and a
 * limited phone, and the work that differs (the lookup, the per-phone count, the charge, the writes)
 * runs after the answer has left, as forgot-password does. Only what the shop may still text (its
 * budget, its share of the platform's texts) is said up front: that is the shop's state, not the phone's.
 */
import { isUniqueViolation, users } from "@mteja/db";
import type { z } from "zod";
import { DomainError } from "../../shared/errors.js";
import { beginSignInAttempt } from "../../shared/abuse-limits.js";
import { assertShopCanText } from "../../sms/text-budget.js";
import { tenantDisplayName } from "../../shared/tenant.js";
import type { AuthedCtx, TenantCtx } from "../ports.js";
import { noStore } from "../../shared/request.js";
import { issueOtpLoginToken } from "../tokens/otp-login-token.js";
import { assertEmailVerifiedIfRequired, startSession, type LoginResult } from "../service.js";
import { issuePhoneCode, linkCodesToNewAccount, spendPhoneCode } from "./phone-codes.js";
import { recordPhoneVerified } from "./phone-verified.js";
import { localeOfRecipient } from "../../shared/i18n/recipient-locale.js";
import { recordSecurityEvent } from "../../security-events/record.js";
import { secureSignInFactorChange } from "../factor-changes.js";
import { guestToMerge } from "../guest/guest-token.js";
import { upgradeByPhone } from "../guest/upgrade.js";
import type { mePhoneStartInput, mePhoneVerifyInput, phoneStartInput, phoneVerifyInput } from "./schemas.js";

/** Long enough for the answer to leave the process first (as forgot-password). */
const afterAnswerMs = 10;

const invalidCode = () => new DomainError("INVALID_OTP", "phone.code_wrong_or_expired");
const phoneInUse = () => new DomainError("PHONE_IN_USE", "phone.in_use");

export async function startPhoneSignIn(ctx: TenantCtx, input: z.infer<typeof phoneStartInput>): Promise<void> {
  const { deps, tenant } = ctx;
  await assertShopCanText(ctx);
  void deps.clock
    .sleep(afterAnswerMs)
    .then(async () => {
      const user = await users.findByVerifiedPhone(ctx.db, input.phone);
      // An unknown phone gets a code only where it may sign up; either way the answer was the same.
      if (!user && tenant.settings.phoneSignup === false) return;
      const sent = await issuePhoneCode(ctx, ctx.db, {
        tenantId: tenant.id,
        shop: tenantDisplayName(tenant),
        phone: input.phone,
        purpose: "sign_in",
        // A known account's code names it, so its erasure finds this phone even after a change.
        userId: user?.id ?? null,
        locale: localeOfRecipient(user?.preferences, tenant),
        payer: { kind: "address" },
      });
      if (sent) deps.nudgeSms();
      else deps.logger.info({ tenantId: tenant.id }, "phone code limit reached; no text written");
    })
    .catch((error: unknown) => {
      // A budget that ran out since the answer (or the address's): the caller already has the same 200.
      if (error instanceof DomainError) {
        deps.logger.info({ tenantId: tenant.id, code: error.code }, "a text budget is spent; no text written");
        return;
      }
      deps.logger.error({ tenantId: tenant.id, error: error instanceof Error ? error.name : "unknown" }, "phone code not written");
    });
}

export async function verifyPhoneSignIn(ctx: TenantCtx, input: z.infer<typeof phoneVerifyInput>): Promise<LoginResult> {
  const { tenant } = ctx;
  // A guest_token that is not a live guest's answers 401 before the code is spent.
  const guest = await guestToMerge(ctx, input.guest_token);
  // Wrong codes are failed sign-ins of the phone and of the IP, like wrong passwords.
  const attempt = await beginSignInAttempt(ctx, { tenantId: tenant.id, email: `phone:${input.phone}` }, { ip: true });
  const spent = await attempt.check(() => spendPhoneCode(ctx, ctx.db, { tenantId: tenant.id, purpose: "sign_in", phone: input.phone }, input.code));
  const existing = await users.findByVerifiedPhone(ctx.db, input.phone);
  if (!spent) {
    // As a wrong password: recorded for existing accounts only (an unknown phone leaves no row), and
    // at most as often as the phone's sign-in limit lets a guess through (docs/security-events.md#retention).
    if (existing) await recordSecurityEvent(ctx, ctx.db, tenant.id, { userId: existing.id, type: "sign_in.failed", details: { reason: "invalid_code" } });
    throw invalidCode();
  }

  const user = existing ?? (await signUpByPhone(ctx, input));
  if (user.otpEnabled) await attempt.stepPassed();
  else await attempt.succeeded();
  assertEmailVerifiedIfRequired(tenant, user);
  noStore(ctx);
  if (user.otpEnabled) return { requires_otp: true, otp_token: await issueOtpLoginToken(ctx, user, guest) };
  return { requires_otp: false, ...(await startSession(ctx, user, "sms", guest)) };
}

async function signUpByPhone(ctx: TenantCtx, input: z.infer<typeof phoneVerifyInput>) {
  const { tenant } = ctx;
  // The code was texted while sign-up was allowed; the shop has turned it off since.
  if (tenant.settings.phoneSignup === false) throw invalidCode();
  try {
    return await ctx.deps.db.transaction(ctx.db, async (tx) => {
      const user = await users.create(tx, {
        tenantId: tenant.id,
        phone: input.phone,
        phoneVerified: true,
        name: input.name ?? null,
        email: null,
        passwordHash: null,
      });
      await linkCodesToNewAccount(tx, { phone: input.phone, userId: user.id });
      await recordPhoneVerified(ctx, tx, { tenantId: tenant.id, userId: user.id, created: true });
      return user;
    });
  } catch (error) {
    // A parallel verify of the same phone created the account first: sign in to it.
    if (isUniqueViolation(error)) {
      const existing = await users.findByVerifiedPhone(ctx.db, input.phone);
      if (existing) return existing;
    }
    throw error;
  }
}

async function currentUser(ctx: AuthedCtx) {
  const user = await users.findById(ctx.db, ctx.auth.sub);
  if (!user) throw new DomainError("INVALID_TOKEN");
  return user;
}

export async function startMePhone(ctx: AuthedCtx, input: z.infer<typeof mePhoneStartInput>): Promise<void> {
  const { deps, tenant } = ctx;
  const user = await currentUser(ctx);
  const phone = input.phone ?? user.phone;
  if (!phone) {
    throw new DomainError("VALIDATION_ERROR", undefined, { details: [{ path: "phone", message: "detail.account_has_no_phone" }] });
  }
  const sent = await issuePhoneCode(ctx, ctx.db, {
    tenantId: tenant.id,
    shop: tenantDisplayName(tenant),
    phone,
    purpose: "verify",
    userId: user.id,
    locale: localeOfRecipient(user.preferences, tenant),
    payer: { kind: "account", userId: user.id },
  });
  // The caller is signed in and names their own number: saying so reveals nothing about anyone else.
  if (!sent) throw new DomainError("RATE_LIMITED", "phone.too_many_codes", { retryAfter: 15 * 60 });
  deps.nudgeSms();
}

export async function verifyMePhone(ctx: AuthedCtx, input: z.infer<typeof mePhoneVerifyInput>) {
  const { deps, tenant } = ctx;
  const user = await currentUser(ctx);
  const attempt = await beginSignInAttempt(ctx, { tenantId: tenant.id, email: `phone-verify:${user.id}` }, { ip: false });
  // Spent outside the transaction below: a try must stay counted whatever happens next.
  const spent = await attempt.check(() => spendPhoneCode(ctx, ctx.db, { tenantId: tenant.id, purpose: "verify", userId: user.id }, input.code));
  if (!spent) throw invalidCode();
  await attempt.stepPassed();
  try {
    const verified = await ctx.deps.db.transaction(ctx.db, async (tx) => {
      const holder = await users.findOtherWithVerifiedPhone(tx, spent.phone, user.id);
      if (holder) throw phoneInUse();
      // The account as it is now, in this transaction: its verified phone is the old one to tell.
      const before = await users.findById(tx, user.id);
      if (!before) throw new DomainError("INVALID_TOKEN");
      await users.setVerifiedPhone(tx, user.id, spent.phone);
      // A guest's first phone upgrades it in place (docs/sign-in.md#guest-checkout).
      const upgradedToken = await upgradeByPhone(ctx, tx, before);
      const change = phoneChangeOf(before, spent.phone);
      if (change === "phone_changed") {
        const { sessionsEnded } = await secureSignInFactorChange(ctx, tx, before, change);
        await recordSecurityEvent(ctx, tx, tenant.id, { userId: user.id, type: "phone.changed", details: { sessions_ended: sessionsEnded } });
      } else {
        if (change === "phone_added") await secureSignInFactorChange(ctx, tx, before, change);
        await recordPhoneVerified(ctx, tx, { tenantId: tenant.id, userId: user.id, created: false });
      }
      return { phone: spent.phone, phone_verified: true as const, notified: change !== undefined, upgradedToken };
    });
    if (verified.notified) {
      deps.nudgeMail();
      deps.nudgeSms();
    }
    if (verified.upgradedToken) noStore(ctx);
    return {
      phone: verified.phone,
      phone_verified: verified.phone_verified,
      ...(verified.upgradedToken ? { access_token: await verified.upgradedToken() } : {}),
    };
  } catch (error) {
    // Another account verified the same phone between the check and the update.
    if (isUniqueViolation(error)) throw phoneInUse();
    throw error;
  }
}

/**
 * A verified phone replaced by another is a change; a first verified phone is a new way to sign in,
 * which ends other sessions as adding one does; the same verified phone again is nothing.
 */
function phoneChangeOf(before: { phone: string | null; phoneVerified: boolean }, phone: string): "phone_changed" | "phone_added" | undefined {
  if (!before.phoneVerified || before.phone === null) return "phone_added";
  return before.phone === phone ? undefined : "phone_changed";
}
