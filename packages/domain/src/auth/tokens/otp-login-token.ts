/**
 * The otp_token of a two-factor login (docs/sessions.md#otp-token): 256 random bits, single
 * use, 5 minutes, bound to the user and tenant, stored only as its SHA-256 in one_time_tokens
 * (purpose otp_login). `attempts` counts the codes tried with it; the fifth wrong one spends it.
 */
import { oneTimeTokens, type TenantTx } from "@mteja/db";
import type { TenantCtx } from "../ports.js";
import { DomainError } from "../../shared/errors.js";
import { randomToken, sha256 } from "../../shared/secrets.js";

export const otpLoginPurpose = "otp_login";
export const otpTokenTtlSeconds = 5 * 60;
export const otpMaxAttempts = 5;

export const invalidOtpToken = () =>
  new DomainError("INVALID_TOKEN", "auth.sign_in_step_expired");

/**
 * Called by login once the password is right and the account has two-factor on. `guest`: the guest the
 * sign-in takes over once otp/validate completes it (docs/sign-in.md#guest-checkout).
 */
export async function issueOtpLoginToken(ctx: TenantCtx, user: { id: string; tenantId: string }, guest?: { guestId: string }): Promise<string> {
  const { deps } = ctx;
  const token = randomToken(deps.random);
  const now = deps.clock.now();
  await oneTimeTokens.create(ctx.db, {
    tenantId: user.tenantId,
    userId: user.id,
    purpose: otpLoginPurpose,
    tokenHash: sha256(token),
    guestUserId: guest?.guestId ?? null,
    createdAt: now,
    expiresAt: new Date(now.getTime() + otpTokenTtlSeconds * 1000),
  });
  return token;
}

export interface LiveOtpToken {
  id: string;
  userId: string;
  guestUserId: string | null;
}

/** The live otp_token of this tenant with this value, or INVALID_TOKEN. Reads only. */
export async function findLiveOtpToken(ctx: TenantCtx, token: string): Promise<LiveOtpToken> {
  const { deps } = ctx;
  const row = await oneTimeTokens.findUsable(ctx.db, {
    tokenHash: sha256(token),
    purpose: otpLoginPurpose,
    unexpiredAt: deps.clock.now(),
    attemptsBelow: otpMaxAttempts,
  });
  if (!row) throw invalidOtpToken();
  return row;
}

/**
 * Reserves one of the token's attempts before a code is checked, in one conditional UPDATE: however
 * many requests race with one token, at most five codes are ever checked against it.
 * Returns how many attempts the token has used, this one included.
 */
export async function reserveOtpAttempt(ctx: TenantCtx, tokenId: string): Promise<number> {
  const { deps } = ctx;
  const attempts = await oneTimeTokens.takeAttempt(ctx.db, {
    id: tokenId,
    tenantId: ctx.tenant.id,
    unexpiredAt: deps.clock.now(),
    attemptsBelow: otpMaxAttempts,
  });
  if (attempts === undefined) throw invalidOtpToken();
  return attempts;
}

/** Marks the token used; false when another request spent it first. */
export async function spendOtpToken(ctx: TenantCtx, tx: TenantTx | undefined, tokenId: string): Promise<boolean> {
  return oneTimeTokens.spend(tx ?? ctx.db, tokenId, ctx.deps.clock.now());
}
