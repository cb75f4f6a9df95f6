/**
 * Registering a passkey (docs/sign-in.md#passkeys), on a fresh session (step-up, declared on both
 * procedures): the creation options ask for a discoverable credential with user verification
 * preferred, ES256 or RS256; the answer is verified by @simplewebauthn/server against the challenge
 * this session was given, the shop's RP ID and origins. A new way in: the other sessions end and the
 * owner is told at the email and verified phone the account had (auth/factor-changes.ts).
 */
import { isUniqueViolation, passkeys, users } from "@mteja/db";
import type { RegistrationResponseJSON } from "@simplewebauthn/server";
import type { z } from "zod";
import { DomainError } from "../../shared/errors.js";
import { noStore } from "../../shared/request.js";
import { recordSecurityEvent } from "../../security-events/record.js";
import { secureSignInFactorChange } from "../factor-changes.js";
import type { AuthedCtx } from "../ports.js";
import { challengeTtlSeconds, issueChallenge, spendChallengeOf } from "./challenges.js";
import { toPasskeyView, type PasskeyView } from "./passkey-view.js";
import { relyingPartyOf } from "./relying-party.js";
import type { creationOptions, registerVerifyInput } from "./schemas.js";
import { webauthn } from "./webauthn.js";

/** ES256 and RS256 (COSE algorithm ids): what every platform authenticator and security key makes. */
export const passkeyAlgorithms = [-7, -257];

const defaultName = "Passkey";

/** The WebAuthn user handle of an account: its id, which names nobody (no email or phone in it). */
export function userHandleOf(userId: string): Uint8Array<ArrayBuffer> {
  return new TextEncoder().encode(userId);
}

/** Checked against `creationOptions` on the way out, as every answer is against its schema. */
export async function registrationOptions(ctx: AuthedCtx): Promise<z.infer<typeof creationOptions>> {
  const user = await users.findById(ctx.db, ctx.auth.sub);
  if (!user) throw new DomainError("INVALID_TOKEN");
  const rp = relyingPartyOf(ctx.tenant, ctx.deps.config.appUrl);
  const existing = await passkeys.listOf(ctx.db, user.id);
  const challenge = await issueChallenge(ctx, "register", { userId: user.id, sessionId: ctx.auth.sid });
  const userName = user.email ?? user.phone ?? user.id;
  const { generateRegistrationOptions } = await webauthn();
  const options = await generateRegistrationOptions({
    rpName: rp.rpName,
    rpID: rp.rpId,
    userName,
    userID: userHandleOf(user.id),
    userDisplayName: user.name ?? userName,
    challenge,
    timeout: challengeTtlSeconds * 1000,
    attestationType: "none",
    excludeCredentials: existing.map((passkey) => ({ id: passkey.credentialId, transports: passkeys.transportsOf(passkey) })),
    authenticatorSelection: { residentKey: "required", requireResidentKey: true, userVerification: "preferred" },
    supportedAlgorithmIDs: passkeyAlgorithms,
  });
  noStore(ctx);
  return options as z.infer<typeof creationOptions>;
}

const refused = (message: "detail.passkey_registration_refused" | "detail.passkey_already_registered") =>
  new DomainError("VALIDATION_ERROR", undefined, { details: [{ path: "response", message }] });

export async function verifyRegistration(ctx: AuthedCtx, input: z.infer<typeof registerVerifyInput>): Promise<PasskeyView> {
  const { deps, auth } = ctx;
  const response = input.response as RegistrationResponseJSON;
  const rp = relyingPartyOf(ctx.tenant, deps.config.appUrl);
  const challenge = await spendChallengeOf(ctx, response.response.clientDataJSON, "register", { userId: auth.sub, sessionId: auth.sid });
  if (challenge === undefined) throw refused("detail.passkey_registration_refused");
  const { verifyRegistrationResponse } = await webauthn();
  const verified = await verifyRegistrationResponse({
    response,
    expectedChallenge: challenge,
    expectedOrigin: rp.origins,
    expectedRPID: rp.rpId,
    requireUserVerification: false,
    supportedAlgorithmIDs: passkeyAlgorithms,
  }).catch(() => ({ verified: false as const }));
  if (!verified.verified) throw refused("detail.passkey_registration_refused");
  const { credential, credentialBackedUp } = verified.registrationInfo;
  try {
    const created = await deps.db.transaction(ctx.db, async (tx) => {
      const before = await users.findById(tx, auth.sub);
      if (!before) throw new DomainError("INVALID_TOKEN");
      const passkey = await passkeys.create(tx, {
        tenantId: ctx.tenant.id,
        userId: before.id,
        credentialId: credential.id,
        publicKey: credential.publicKey,
        counter: credential.counter,
        transports: credential.transports ?? response.response.transports ?? [],
        name: input.name ?? defaultName,
        backedUp: credentialBackedUp,
        createdAt: deps.clock.now(),
      });
      const { sessionsEnded } = await secureSignInFactorChange(ctx, tx, before, "passkey_added");
      const details = { passkey_id: passkey.id, sessions_ended: sessionsEnded };
      await recordSecurityEvent(ctx, tx, before.tenantId, { userId: before.id, type: "passkey.added", details });
      return passkey;
    });
    deps.nudgeMail();
    deps.nudgeSms();
    return toPasskeyView(created);
  } catch (error) {
    if (isUniqueViolation(error)) throw refused("detail.passkey_already_registered");
    throw error;
  }
}
