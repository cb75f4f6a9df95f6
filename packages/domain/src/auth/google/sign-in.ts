/**
 * Signing in with a verified Google identity, by either flow: answered as login is (docs/sign-in.md),
 * through the same session start as every other sign-in; with two-factor on, an otp_token for
 * otp/validate instead (Google's own second factor is not the shop's).
 */
import { DomainError, serviceUnavailable } from "../../shared/errors.js";
import { noStore } from "../../shared/request.js";
import type { TenantCtx } from "../ports.js";
import { assertEmailVerifiedIfRequired, startSession, type LoginResult } from "../service.js";
import { issueOtpLoginToken } from "../tokens/otp-login-token.js";
import type { GuestToMerge } from "../guest/guest-token.js";
import { accountForGoogle, invalidGoogleToken } from "./google-account.js";
import type { GoogleIdentity } from "./identity-provider.js";
import { spendNonce } from "./nonces.js";

/**
 * `guest`: the guest a `guest_token` named (the ID-token flow's body, or the redirect flow's start),
 * taken over once the sign-in completes.
 */
export async function signInWithGoogle(ctx: TenantCtx, identity: GoogleIdentity, guest?: GuestToMerge): Promise<LoginResult> {
  const user = await accountForGoogle(ctx, identity);
  assertEmailVerifiedIfRequired(ctx.tenant, user);
  noStore(ctx);
  if (user.otpEnabled) return { requires_otp: true, otp_token: await issueOtpLoginToken(ctx, user, guest) };
  return { requires_otp: false, ...(await startSession(ctx, user, "google", guest)) };
}

/**
 * An ID token the app got from Google (One Tap, mobile, or for linking): its nonce spent first —
 * whether the token passes or not — then every check; any failure is 401 INVALID_TOKEN.
 */
export async function verifiedIdToken(ctx: TenantCtx, clientId: string, idToken: string): Promise<GoogleIdentity> {
  const check = await ctx.deps.google.checkIdToken(clientId, idToken).catch((cause: unknown) => {
    throw cause instanceof DomainError ? cause : serviceUnavailable(cause);
  });
  const nonceIssuedHere = await spendNonce(ctx, check.nonce);
  if (!check.verified) {
    ctx.deps.logger.info({ tenantId: ctx.tenant.id, reason: check.reason }, "Google ID token refused");
    throw invalidGoogleToken();
  }
  if (!nonceIssuedHere) throw invalidGoogleToken();
  return check.identity;
}
