/**
 * The one place a verified phone is reported: the security event `phone.verified`
 * (docs/security-events.md), written in the transaction that verified it.
 */
import type { TenantTx } from "@mteja/db";
import type { Context } from "../ports.js";
import { recordSecurityEvent } from "../../security-events/record.js";

export async function recordPhoneVerified(ctx: Context, tx: TenantTx, event: { tenantId: string; userId: string; created: boolean }): Promise<void> {
  await recordSecurityEvent(ctx, tx, event.tenantId, { userId: event.userId, type: "phone.verified", details: { account_created: event.created } });
}
