/**
 * A passkey as the proof of reauthenticate (docs/step-up.md#reauthenticate): the options name the
 * account's passkeys and a challenge only this session may answer; the assertion is checked as a
 * sign-in's is (assertion.ts). With user verification it is two factors: no two-factor `code` needed.
 */
import { passkeys } from "@mteja/db";
import type { AuthenticationResponseJSON } from "@simplewebauthn/server";
import type { z } from "zod";
import { DomainError } from "../../shared/errors.js";
import { noStore } from "../../shared/request.js";
import type { AuthedCtx } from "../ports.js";
import { checkAssertion } from "./assertion.js";
import { challengeTtlSeconds, issueChallenge } from "./challenges.js";
import { relyingPartyOf } from "./relying-party.js";
import type { authenticationResponseField, requestOptions } from "./schemas.js";
import { webauthn } from "./webauthn.js";

export async function reauthenticationOptions(ctx: AuthedCtx): Promise<z.infer<typeof requestOptions>> {
  const own = await passkeys.listOf(ctx.db, ctx.auth.sub);
  const rp = relyingPartyOf(ctx.tenant, ctx.deps.config.appUrl);
  const challenge = await issueChallenge(ctx, "reauthenticate", { userId: ctx.auth.sub, sessionId: ctx.auth.sid });
  noStore(ctx);
  const { generateAuthenticationOptions } = await webauthn();
  const options = await generateAuthenticationOptions({
    rpID: rp.rpId,
    challenge,
    timeout: challengeTtlSeconds * 1000,
    userVerification: "preferred",
    allowCredentials: own.map((passkey) => ({ id: passkey.credentialId, transports: passkeys.transportsOf(passkey) })),
  });
  return options as z.infer<typeof requestOptions>;
}

/** Throws 401 INVALID_CREDENTIALS unless the assertion is one of the account's passkeys, to this session's challenge. */
export async function confirmPasskey(ctx: AuthedCtx, response: z.infer<typeof authenticationResponseField>): Promise<{ userVerified: boolean }> {
  const checked = await checkAssertion(ctx, response as AuthenticationResponseJSON, "reauthenticate", { userId: ctx.auth.sub, sessionId: ctx.auth.sid });
  if (!checked) throw new DomainError("INVALID_CREDENTIALS");
  return { userVerified: checked.userVerified };
}
