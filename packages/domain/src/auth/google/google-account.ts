/**
 * The account a Google identity signs in to (docs/sign-in.md#which-account): the one its `sub` is
 * linked to; never one found by email alone. A verified Google email that is another account's
 * verified email answers 409 ACCOUNT_EXISTS (sign in there, then link); an account that holds it
 * unverified loses it (Google has shown who owns the address); otherwise a new account, its email verified.
 */
import { identities, isUniqueViolation, users } from "@mteja/db";
import { DomainError } from "../../shared/errors.js";
import { requestedLocale } from "../../shared/i18n/answer-locale.js";
import { recordSecurityEvent } from "../../security-events/record.js";
import type { TenantCtx } from "../ports.js";
import type { GoogleIdentity } from "./identity-provider.js";

export const GOOGLE = "google";

type User = NonNullable<Awaited<ReturnType<typeof users.findById>>>;

export const invalidGoogleToken = () => new DomainError("INVALID_TOKEN", "google.token_refused");

export async function accountForGoogle(ctx: TenantCtx, identity: GoogleIdentity): Promise<User> {
  const linked = await linkedAccount(ctx, identity);
  if (linked) return linked;
  try {
    return await createForGoogle(ctx, identity);
  } catch (error) {
    // The same Google account signed up in a parallel request first: sign in to that account.
    if (isUniqueViolation(error)) {
      const raced = await linkedAccount(ctx, identity);
      if (raced) return raced;
    }
    throw error;
  }
}

async function linkedAccount(ctx: TenantCtx, identity: GoogleIdentity): Promise<User | undefined> {
  const link = await identities.findBySubject(ctx.db, GOOGLE, identity.subject);
  if (!link) return undefined;
  const user = await users.findById(ctx.db, link.userId);
  // An erased account keeps its row for its payments, not its ways in.
  if (!user || user.deletedAt !== null) throw invalidGoogleToken();
  if (link.email !== identity.email) await identities.noteEmail(ctx.db, link.id, identity.email);
  return user;
}

async function createForGoogle(ctx: TenantCtx, identity: GoogleIdentity): Promise<User> {
  const { deps, tenant, request } = ctx;
  // Only an address Google has verified is the account's; an unverified one stays on the link alone.
  const email = identity.emailVerified && identity.email ? identity.email.trim().toLowerCase() : null;
  const locale = requestedLocale(request.acceptLanguage);
  return deps.db.transaction(ctx.db, async (tx) => {
    if (email !== null) {
      const holder = await users.findByEmail(tx, tenant.id, email);
      if (holder?.emailVerified) throw new DomainError("ACCOUNT_EXISTS");
      if (holder && (await users.removeUnverifiedEmail(tx, holder.id, email))) {
        const details = { removed: true, reason: "verified_by_google_elsewhere" };
        await recordSecurityEvent(ctx, tx, tenant.id, { userId: holder.id, type: "email.changed", details });
      }
    }
    const user = await users.create(tx, {
      tenantId: tenant.id,
      email,
      emailVerified: email !== null,
      name: identity.name,
      phone: null,
      passwordHash: null,
      ...(locale ? { preferences: { locale } } : {}),
    });
    const link = { tenantId: tenant.id, userId: user.id, provider: GOOGLE, subject: identity.subject, email: identity.email };
    await identities.link(tx, { ...link, linkedAt: deps.clock.now() });
    const details = { provider: GOOGLE, account_created: true };
    await recordSecurityEvent(ctx, tx, tenant.id, { userId: user.id, type: "identity.linked", details });
    return user;
  });
}
