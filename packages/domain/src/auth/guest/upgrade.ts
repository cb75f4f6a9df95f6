/**
 * A guest upgraded in place (docs/sign-in.md#guest-checkout): the same user, so its addresses and
 * payments stay where they are, and the same session — an upgrade is no role change that ends
 * sessions: the answer carries a new access token with role "customer" for it.
 *
 * By email and password (`POST /api/v1/auth/guest/upgrade`): the password passes the breach check and
 * is set at once; the email is mailed a link as any first address is (auth/email/), and becomes the
 * account's when the link is followed — an address another account has answers 409 EMAIL_IN_USE there,
 * never here, so the upgrade says nothing about other accounts. By phone: me/phone/verify on a guest's
 * session (`upgradeByPhone`, called in its transaction).
 */
import { users, type TenantTx } from "@mteja/db";
import type { z } from "zod";
import { DomainError } from "../../shared/errors.js";
import { noStore } from "../../shared/request.js";
import { recordSecurityEvent } from "../../security-events/record.js";
import { assertPasswordNotBreached } from "../breached-passwords/check-password.js";
import { startEmailChange } from "../email/email-change.js";
import type { AuthedCtx } from "../ports.js";
import type { SessionCtx } from "../sessions/sessions.js";
import { guestRole, isGuestRole, upgradedGuestRole } from "./roles.js";
import type { guestUpgradeInput } from "./schemas.js";

const notAGuest = () => new DomainError("FORBIDDEN", "guest.not_a_guest");

export async function upgradeGuest(ctx: SessionCtx, input: z.infer<typeof guestUpgradeInput>) {
  const { deps, tenant, auth } = ctx;
  const user = await users.findById(ctx.db, auth.sub);
  if (!user || !isGuestRole(user.role)) throw notAGuest();
  await assertPasswordNotBreached(ctx, input.password, "password");
  const passwordHash = await deps.passwords.hash(input.password);
  // The link first: a limit it meets (429) leaves the guest a guest, to try again.
  await startEmailChange(ctx, { email: input.email }, true);
  await deps.db.transaction(ctx.db, async (tx) => {
    const change = { from: guestRole, to: upgradedGuestRole, name: input.name, passwordHash, passwordChangedAt: deps.clock.now() };
    if (!(await users.changeRoleFrom(tx, user.id, change))) throw notAGuest();
    await recordSecurityEvent(ctx, tx, tenant.id, { userId: user.id, type: "guest.upgraded", details: { method: "email" } });
  });
  noStore(ctx);
  return {
    access_token: await upgradedToken(ctx),
    user: { id: user.id, name: input.name ?? user.name, email: null, role: upgradedGuestRole, is_guest: false },
  };
}

/**
 * me/phone/verify on a guest's session, in its transaction once the phone is the account's: the guest
 * becomes a customer. Answers the new access token, or undefined when the account was no guest.
 */
export async function upgradeByPhone(ctx: AuthedCtx, tx: TenantTx, before: { id: string; role: string | null }): Promise<(() => Promise<string>) | undefined> {
  if (!isGuestRole(before.role)) return undefined;
  if (!(await users.changeRoleFrom(tx, before.id, { from: guestRole, to: upgradedGuestRole }))) return undefined;
  await recordSecurityEvent(ctx, tx, ctx.tenant.id, { userId: before.id, type: "guest.upgraded", details: { method: "phone" } });
  return () => upgradedToken(ctx);
}

/** The caller's session, now a customer's. */
function upgradedToken(ctx: AuthedCtx): Promise<string> {
  const { auth } = ctx;
  return ctx.deps.tokens.sign({ sub: auth.sub, tid: auth.tid, sid: auth.sid, role: upgradedGuestRole });
}
