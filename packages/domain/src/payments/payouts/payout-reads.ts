/**
 * Reading payouts (an addition to stkpush/stkquery/b2c, admin only): GET /api/momo/payouts and
 * /api/momo/payouts/{originatorConversationId}. An admin sees every payout of their tenant, nothing of another's.
 */
import { payouts, type PayoutModel } from "@mteja/db";
import { DomainError } from "../../shared/errors.js";
import type { AuthedCtx } from "../shared/ports.js";
import { readKeysetPage } from "../../shared/keyset-page.js";
import { payoutStatus } from "../shared/payment-views.js";
import type { ListPayoutsInput, PayoutView } from "../shared/schemas.js";

export function payoutView(row: PayoutModel): PayoutView {
  return {
    id: row.id,
    livemode: row.livemode,
    originatorConversationId: row.originatorConversationId,
    conversationId: row.conversationId,
    transactionId: row.transactionId,
    requestedBy: row.requestedBy,
    phone: row.phone,
    amount: row.amount,
    commandId: row.commandId,
    remarks: row.remarks,
    occasion: row.occasion,
    status: payoutStatus(row),
    resultCode: row.resultCode,
    resultDesc: row.resultDesc,
    receiverName: row.receiverName,
    createdAt: row.createdAt.toISOString(),
    settledAt: row.settledAt ? row.settledAt.toISOString() : null,
  };
}

/** Newest first, keyset-paginated on (created_at, id). */
export async function listPayouts(ctx: AuthedCtx, input: ListPayoutsInput): Promise<{ payouts: PayoutView[]; nextCursor: string | null }> {
  const { rows, nextCursor } = await readKeysetPage(input, (page) => payouts.listPage(ctx.db, ctx.tenant.id, page));
  return { payouts: rows.map(payoutView), nextCursor };
}

export async function getPayout(ctx: AuthedCtx, originatorConversationId: string): Promise<{ payout: PayoutView }> {
  const payout = await payouts.findByOriginatorId(ctx.db, { tenantId: ctx.tenant.id, originatorConversationId });
  if (!payout) throw new DomainError("NOT_FOUND", "not_found.payout");
  return { payout: payoutView(payout) };
}
