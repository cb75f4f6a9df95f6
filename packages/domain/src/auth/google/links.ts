/**
 * Linking and unlinking a Google account on a signed-in account (docs/sign-in.md#linking), both
 * sensitive (a fresh session, docs/step-up.md). A link is a new way in: the other sessions end and
 * the old email and phone are told. Unlinking the last way in answers 409 LAST_SIGN_IN_METHOD.
 */
import { identities, isUniqueViolation, users } from "@mteja/db";
import type { z } from "zod";
import { DomainError } from "../../shared/errors.js";
import { recordSecurityEvent } from "../../security-events/record.js";
import { secureSignInFactorChange } from "../factor-changes.js";
import type { AuthedCtx } from "../ports.js";
import { GOOGLE } from "./google-account.js";
import { googleClientIdOf } from "./google-client.js";
import type { linkGoogleInput } from "./schemas.js";
import { verifiedIdToken } from "./sign-in.js";
import { signInMethodsOf } from "../sign-in-methods.js";

const identityInUse = () => new DomainError("IDENTITY_IN_USE");
const invalidToken = () => new DomainError("INVALID_TOKEN");

export interface IdentityView {
  provider: "google";
  email: string | null;
  linked_at: string;
}

export async function linkGoogle(ctx: AuthedCtx, input: z.infer<typeof linkGoogleInput>): Promise<IdentityView> {
  const { deps, tenant, auth } = ctx;
  const identity = await verifiedIdToken(ctx, googleClientIdOf(tenant), input.id_token);
  try {
    const linked = await deps.db.transaction(ctx.db, async (tx) => {
      const holder = await identities.findBySubject(tx, GOOGLE, identity.subject);
      if (holder && holder.userId !== auth.sub) throw identityInUse();
      if (holder) return { view: viewOf(holder), notified: false };
      if (await identities.findOf(tx, auth.sub, GOOGLE)) throw new DomainError("IDENTITY_IN_USE", "google.other_account_linked");
      const before = await users.findById(tx, auth.sub);
      if (!before) throw invalidToken();
      const linkedAt = deps.clock.now();
      const link = { tenantId: tenant.id, userId: auth.sub, provider: GOOGLE, subject: identity.subject, email: identity.email };
      await identities.link(tx, { ...link, linkedAt });
      const { sessionsEnded } = await secureSignInFactorChange(ctx, tx, before, "google_linked");
      const details = { provider: GOOGLE, sessions_ended: sessionsEnded };
      await recordSecurityEvent(ctx, tx, tenant.id, { userId: auth.sub, type: "identity.linked", details });
      return { view: viewOf({ provider: GOOGLE, email: identity.email, linkedAt }), notified: true };
    });
    if (linked.notified) {
      deps.nudgeMail();
      deps.nudgeSms();
    }
    return linked.view;
  } catch (error) {
    // Another account linked the same Google account between the check and the insert.
    if (isUniqueViolation(error)) throw identityInUse();
    throw error;
  }
}

export async function unlinkGoogle(ctx: AuthedCtx): Promise<void> {
  const { deps, tenant, auth } = ctx;
  await deps.db.transaction(ctx.db, async (tx) => {
    // Locked, so two removals at once cannot each leave the other's way in as the last one.
    const user = await users.lockForSignInMethods(tx, tenant.id, auth.sub);
    if (!user) throw invalidToken();
    if (!(await identities.findOf(tx, auth.sub, GOOGLE))) throw new DomainError("NOT_FOUND", "google.not_linked");
    if ((await signInMethodsOf(tx, { id: auth.sub, ...user })).total <= 1) throw new DomainError("LAST_SIGN_IN_METHOD");
    await identities.unlink(tx, auth.sub, GOOGLE);
    await recordSecurityEvent(ctx, tx, tenant.id, { userId: auth.sub, type: "identity.unlinked", details: { provider: GOOGLE } });
  });
}

/** GET me's `identities` (and the export's, which adds the `subject`). */
export function viewOf(identity: { provider: string; email: string | null; linkedAt: Date | string }): IdentityView {
  return { provider: identity.provider as IdentityView["provider"], email: identity.email, linked_at: new Date(identity.linkedAt).toISOString() };
}
