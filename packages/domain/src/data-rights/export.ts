/**
 * GET /api/v1/auth/me/export (docs/data-rights.md#export): everything held on the customer, as JSON.
 * An export is itself a security event, and the customer is told of it by mail.
 */
import { dataRights, users } from "@mteja/db";
import { fullView } from "../addresses/service.js";
import { noStore } from "../shared/request.js";
import { DomainError } from "../shared/errors.js";
import { toServerPaymentView } from "../payments/shared/payment-object.js";
import { recordSecurityEvent } from "../security-events/record.js";
import { toSecurityEventView } from "../security-events/reads.js";
import type { AuthedCtx } from "./ports.js";
import { enqueueDataRightsNotice } from "./notices.js";
import { isGuestRole } from "../auth/guest/roles.js";
import { toPasskeyView } from "../auth/passkeys/passkey-view.js";
import { viewOf as identityViewOf } from "../auth/google/links.js";

export async function exportMyData(ctx: AuthedCtx) {
  const { deps, auth } = ctx;
  const data = await ctx.deps.db.transaction(ctx.db, async (tx) => {
    const user = await dataRights.liveAccount(tx, auth.sub);
    if (!user) throw new DomainError("INVALID_TOKEN");
    await recordSecurityEvent(ctx, tx, user.tenantId, { userId: user.id, type: "account.exported" });
    await enqueueDataRightsNotice(ctx, tx, user, "accountExported");
    const held = await dataRights.exportOf(tx, user.id);
    const { addresses, sessions, payments, securityEvents, passkeys, identities } = held;
    return {
      profile: {
        ...users.profileOf(user),
        is_guest: isGuestRole(user.role),
        created_at: user.createdAt.toISOString(),
        updated_at: user.updatedAt.toISOString(),
      },
      addresses: addresses.map(fullView),
      sessions: sessions.map((session) => ({
        id: session.id,
        created_at: session.createdAt.toISOString(),
        last_used_at: session.lastUsedAt?.toISOString() ?? null,
        ip: session.ip,
        user_agent: session.userAgent,
        current: session.id === auth.sid,
        revoked_at: session.revokedAt?.toISOString() ?? null,
      })),
      payments: payments.map((payment) => ({ ...toServerPaymentView(payment), reference: payment.reference, description: payment.description })),
      security_events: securityEvents.map(toSecurityEventView),
      // As the account's passkey list shows them: never the key, counter or credential id.
      passkeys: passkeys.map(toPasskeyView),
      identities: identities.map((identity) => ({ ...identityViewOf(identity), subject: identity.subject })),
    };
  });
  deps.nudgeMail();
  noStore(ctx);
  return data;
}
