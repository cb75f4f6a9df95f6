/**
 * Checking a passkey assertion (docs/sign-in.md#passkeys), for sign-in and reauthenticate alike:
 * its challenge is spent first (single use, whoever verifies), then @simplewebauthn/server checks
 * the signature against the stored key, the origin, the RP ID and the signature counter, and the
 * counter moves on in one conditional update (two uses at once: one wins). Every failure is the same
 * `undefined`: the caller answers 401 INVALID_CREDENTIALS, telling nothing of why.
 */
import { passkeys } from "@mteja/db";
import type { AuthenticationResponseJSON } from "@simplewebauthn/server";
import type { TenantCtx } from "../ports.js";
import { spendChallengeOf, type ChallengeHolder, type ChallengePurpose } from "./challenges.js";
import { userHandleOf } from "./registration.js";
import { relyingPartyOf } from "./relying-party.js";
import { webauthn } from "./webauthn.js";

export interface CheckedAssertion {
  passkey: passkeys.Passkey;
  /** The authenticator verified its user (PIN, biometrics): with it a passkey is two factors. */
  userVerified: boolean;
}

export async function checkAssertion(
  ctx: TenantCtx,
  response: AuthenticationResponseJSON,
  purpose: ChallengePurpose,
  holder: ChallengeHolder,
): Promise<CheckedAssertion | undefined> {
  const { deps } = ctx;
  // Spent before anything else is looked at: an assertion that fails has used its challenge up too.
  const challenge = await spendChallengeOf(ctx, response.response.clientDataJSON, purpose, holder);
  if (challenge === undefined) return undefined;
  const passkey = await passkeys.findByCredentialId(ctx.db, response.id);
  if (!passkey || (holder !== null && passkey.userId !== holder.userId)) return undefined;
  const handle = response.response.userHandle;
  if (handle !== undefined && handle !== Buffer.from(userHandleOf(passkey.userId)).toString("base64url")) return undefined;
  const rp = relyingPartyOf(ctx.tenant, deps.config.appUrl);
  const { verifyAuthenticationResponse } = await webauthn();
  const verified = await verifyAuthenticationResponse({
    response,
    expectedChallenge: challenge,
    expectedOrigin: rp.origins,
    expectedRPID: rp.rpId,
    credential: {
      id: passkey.credentialId,
      publicKey: passkeys.publicKeyOf(passkey),
      counter: Number(passkey.counter),
      transports: passkeys.transportsOf(passkey),
    },
    requireUserVerification: false,
  }).catch(() => undefined);
  if (!verified?.verified) return undefined;
  const { newCounter, userVerified, credentialBackedUp } = verified.authenticationInfo;
  const used = await passkeys.recordUse(ctx.db, passkey.id, { expected: passkey.counter, counter: newCounter, at: deps.clock.now(), backedUp: credentialBackedUp });
  return used ? { passkey, userVerified } : undefined;
}
