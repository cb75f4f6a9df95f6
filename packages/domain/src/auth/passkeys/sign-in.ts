/**
 * Signing in with a passkey (docs/sign-in.md#passkeys): discoverable credentials, so the options
 * name nobody and the authenticator offers the shop's passkeys itself. The assertion answers as
 * login does, through the one session start of every sign-in (`startSession`). With user
 * verification a passkey is two factors (no `requires_otp`); without it, an account with two-factor
 * on still gives its code (otp/validate).
 */
import { users } from "@mteja/db";
import type { AuthenticationResponseJSON } from "@simplewebauthn/server";
import type { z } from "zod";
import { DomainError } from "../../shared/errors.js";
import { noStore } from "../../shared/request.js";
import type { TenantCtx } from "../ports.js";
import { assertEmailVerifiedIfRequired, startSession, type LoginResult } from "../service.js";
import { issueOtpLoginToken } from "../tokens/otp-login-token.js";
import { guestToMerge } from "../guest/guest-token.js";
import { checkAssertion } from "./assertion.js";
import { challengeTtlSeconds, issueChallenge } from "./challenges.js";
import { relyingPartyOf } from "./relying-party.js";
import type { loginVerifyInput, requestOptions } from "./schemas.js";
import { webauthn } from "./webauthn.js";

const invalidCredentials = () => new DomainError("INVALID_CREDENTIALS");

/** Checked against `requestOptions` on the way out, as every answer is against its schema. */
export async function signInOptions(ctx: TenantCtx): Promise<z.infer<typeof requestOptions>> {
  const rp = relyingPartyOf(ctx.tenant, ctx.deps.config.appUrl);
  const challenge = await issueChallenge(ctx, "sign_in", null);
  noStore(ctx);
  const { generateAuthenticationOptions } = await webauthn();
  const options = await generateAuthenticationOptions({
    rpID: rp.rpId,
    challenge,
    timeout: challengeTtlSeconds * 1000,
    userVerification: "preferred",
    allowCredentials: [],
  });
  return options as z.infer<typeof requestOptions>;
}

export async function verifySignIn(ctx: TenantCtx, input: z.infer<typeof loginVerifyInput>): Promise<LoginResult> {
  // A guest_token that is not a live guest's answers 401 before the challenge is spent.
  const guest = await guestToMerge(ctx, input.guest_token);
  const checked = await checkAssertion(ctx, input.response as AuthenticationResponseJSON, "sign_in", null);
  if (!checked) throw invalidCredentials();
  const user = await users.findById(ctx.db, checked.passkey.userId);
  if (!user || user.deletedAt !== null) throw invalidCredentials();
  assertEmailVerifiedIfRequired(ctx.tenant, user);
  noStore(ctx);
  if (user.otpEnabled && !checked.userVerified) {
    // One factor only (the authenticator did not verify its user): the second is the account's code.
    return { requires_otp: true, otp_token: await issueOtpLoginToken(ctx, user, guest) };
  }
  return { requires_otp: false, ...(await startSession(ctx, user, "passkey", guest)) };
}
