/**
 * The challenges of passkey ceremonies (docs/sign-in.md#passkeys): 32 random bytes, handed out in
 * the options and stored only as a SHA-256 of their base64url form, for 5 minutes. The first verify
 * that names one spends it, in one conditional update, so whichever instance answers, a challenge
 * (and with it an assertion or attestation made for it) is accepted once.
 */
import { passkeys } from "@mteja/db";
import { sha256 } from "../../shared/secrets.js";
import type { TenantCtx } from "../ports.js";
import { webauthnHelpers } from "./webauthn.js";

export type ChallengePurpose = "register" | "sign_in" | "reauthenticate";

export const challengeTtlSeconds = 5 * 60;

/** Whose challenge: an account's session (register, reauthenticate), or nobody's yet (a discoverable sign-in). */
export type ChallengeHolder = { userId: string; sessionId: string } | null;

/** A new challenge of this purpose, stored hashed; its bytes go into the options. */
export async function issueChallenge(ctx: TenantCtx, purpose: ChallengePurpose, holder: ChallengeHolder): Promise<Uint8Array<ArrayBuffer>> {
  const { deps, tenant } = ctx;
  const bytes = new Uint8Array(deps.random.bytes(32));
  const now = deps.clock.now();
  await passkeys.createChallenge(ctx.db, {
    tenantId: tenant.id,
    purpose,
    userId: holder?.userId ?? null,
    sessionId: holder?.sessionId ?? null,
    challengeHash: sha256(Buffer.from(bytes).toString("base64url")),
    createdAt: now,
    expiresAt: new Date(now.getTime() + challengeTtlSeconds * 1000),
  });
  return bytes;
}

/**
 * Spends the challenge the client data names, if it is a live one of this purpose and holder; answers
 * it (for the library to check the response against), or undefined when it is not (unreadable, unknown,
 * expired, used, another purpose's or another session's).
 */
export async function spendChallengeOf(
  ctx: TenantCtx,
  clientDataJSON: string,
  purpose: ChallengePurpose,
  holder: ChallengeHolder,
): Promise<string | undefined> {
  const challenge = await challengeNamedBy(clientDataJSON);
  if (challenge === undefined) return undefined;
  const spent = await passkeys.spendChallenge(ctx.db, {
    challengeHash: sha256(challenge),
    purpose,
    userId: holder?.userId ?? null,
    sessionId: holder?.sessionId ?? null,
    at: ctx.deps.clock.now(),
  });
  return spent ? challenge : undefined;
}

async function challengeNamedBy(clientDataJSON: string): Promise<string | undefined> {
  const { decodeClientDataJSON } = await webauthnHelpers();
  try {
    const { challenge } = decodeClientDataJSON(clientDataJSON);
    return typeof challenge === "string" && challenge.length > 0 && challenge.length <= 128 ? challenge : undefined;
  } catch {
    return undefined;
  }
}
