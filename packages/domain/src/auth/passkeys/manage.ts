/**
 * The customer's passkeys (docs/sign-in.md#passkeys): the list, newest first, and removing one
 * (step-up, declared on the procedure). The last way into the account is never removed: 409
 * LAST_SIGN_IN_METHOD.
 */
import { passkeys, users } from "@mteja/db";
import { DomainError } from "../../shared/errors.js";
import { readKeysetPage } from "../../shared/keyset-page.js";
import { recordSecurityEvent } from "../../security-events/record.js";
import type { PageRequest } from "../../security-events/reads.js";
import type { AuthedCtx } from "../ports.js";
import { signInMethodsOf } from "../sign-in-methods.js";
import { toPasskeyView } from "./passkey-view.js";

export async function listPasskeys(ctx: AuthedCtx, page: PageRequest) {
  const { rows, nextCursor } = await readKeysetPage(page, ({ conditions, orderBy, take }) =>
    passkeys.pageOfUser(ctx.db, ctx.auth.sub, { where: conditions, orderBy, take }),
  );
  return { passkeys: rows.map(toPasskeyView), next_cursor: nextCursor };
}

export async function removePasskey(ctx: AuthedCtx, id: string): Promise<void> {
  const { auth } = ctx;
  await ctx.deps.db.transaction(ctx.db, async (tx) => {
    // Two removals at once count the ways in one after the other: the last one stays.
    await passkeys.lockOwner(tx, auth.sub);
    const user = await users.findById(tx, auth.sub);
    if (!user) throw new DomainError("INVALID_TOKEN");
    const owned = (await passkeys.listOf(tx, user.id)).some((passkey) => passkey.id === id);
    if (!owned) throw new DomainError("NOT_FOUND", "not_found.passkey");
    const methods = await signInMethodsOf(tx, user);
    if (methods.total <= 1) throw new DomainError("LAST_SIGN_IN_METHOD");
    if (!(await passkeys.remove(tx, user.id, id))) throw new DomainError("NOT_FOUND", "not_found.passkey");
    await recordSecurityEvent(ctx, tx, user.tenantId, { userId: user.id, type: "passkey.removed", details: { passkey_id: id } });
  });
}
