/**
 * A guest taken over by the account it signed in to (docs/sign-in.md#guest-checkout): its addresses,
 * its payments and the intents bound to it become the account's, and the guest is deleted with its
 * sessions — all in one transaction, under the guest's row lock, so a guest is merged once: a second
 * sign-in with the same guest_token finds no guest and answers 401 INVALID_TOKEN.
 *
 * Called by `startSession` (auth/service.ts) when a sign-in completes, whatever its method: a sign-in
 * that accepts `guest_token` checks it first (`guestToMerge`) and hands the result to `startSession`.
 */
import { addresses, intents, payments, users } from "@mteja/db";
import { recordSecurityEvent } from "../../security-events/record.js";
import type { TenantCtx } from "../ports.js";
import { invalidGuestToken, type GuestToMerge } from "./guest-token.js";
import { guestRole } from "./roles.js";

export async function mergeGuestInto(ctx: TenantCtx, guest: GuestToMerge, account: { id: string; tenantId: string }): Promise<void> {
  const tenantId = ctx.tenant.id;
  if (guest.guestId === account.id || account.tenantId !== tenantId) throw invalidGuestToken();
  await ctx.deps.db.transaction(ctx.db, async (tx) => {
    if (!(await users.lockIfRole(tx, tenantId, guest.guestId, guestRole))) throw invalidGuestToken();
    // The account's address changes serialise on its row (addresses area): none interleaves with the move.
    await addresses.lockOwner(tx, { tenantId, userId: account.id });
    const move = { from: guest.guestId, to: account.id };
    const moved = {
      addresses: await addresses.moveAll(tx, { tenantId, ...move }),
      payments: await payments.moveAllOfUser(tx, move),
      intents: await intents.rebindAll(tx, move),
    };
    await users.deleteRow(tx, guest.guestId);
    await recordSecurityEvent(ctx, tx, tenantId, { userId: account.id, type: "guest.merged", details: { guest_id: guest.guestId, ...moved } });
  });
}
