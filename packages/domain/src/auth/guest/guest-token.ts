/**
 * `guest_token` in a sign-in's body (docs/sign-in.md#guest-checkout): a live access token with role
 * "guest" of this tenant, whose account is still a guest. Anything else — a customer's token, another
 * shop's, an expired one, one whose session ended or whose guest was merged already — answers 401
 * INVALID_TOKEN before the sign-in opens anything.
 */
import { users } from "@mteja/db";
import { DomainError } from "../../shared/errors.js";
import type { TenantCtx } from "../ports.js";
import { assertLiveSession } from "../sessions/sessions.js";
import { isGuestRole } from "./roles.js";

/** The guest a sign-in takes over once it completes (auth/service.ts `startSession`). */
export interface GuestToMerge {
  guestId: string;
}

export const invalidGuestToken = () => new DomainError("INVALID_TOKEN", "guest.token_invalid");

/** The guest `token` names, checked; undefined when the body has none. */
export async function guestToMerge(ctx: TenantCtx, token: string | undefined): Promise<GuestToMerge | undefined> {
  if (token === undefined) return undefined;
  const claims = await ctx.deps.tokens.verify(token).catch(asInvalidGuestToken);
  if (claims.tid !== ctx.tenant.id || !isGuestRole(claims.role)) throw invalidGuestToken();
  await assertLiveSession(ctx.deps, ctx.db, claims).catch(asInvalidGuestToken);
  const guest = await users.findById(ctx.db, claims.sub);
  if (!guest || !isGuestRole(guest.role)) throw invalidGuestToken();
  return { guestId: guest.id };
}

/** A token refused as a token says so as a guest token; anything else (a key store away) goes on as it is. */
function asInvalidGuestToken(error: unknown): never {
  if (error instanceof DomainError && error.code === "INVALID_TOKEN") throw invalidGuestToken();
  throw error;
}
