/**
 * The one place a verified phone is reported (security event type `phone.verified`), called in the
 * transaction that verified it. It logs the fact today; the security-events store records it here.
 */
import type { TenantTx } from "@mteja/db";
import type { Context } from "../../context.js";

export async function recordPhoneVerified(ctx: Context, _tx: TenantTx, event: { tenantId: string; userId: string; created: boolean }): Promise<void> {
  ctx.deps.logger.info({ tenantId: event.tenantId, userId: event.userId, accountCreated: event.created }, "phone.verified");
}
