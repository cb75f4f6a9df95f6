/**
 * Reading payments (an addition to stkpush/stkquery/b2c): GET /api/momo/payments and /api/momo/payments/{checkoutRequestId}.
 * A customer sees their own payments; an admin sees every payment of the tenant.
 */
import { payments } from "@mteja/db";
import { readKeysetPage } from "../../shared/keyset-page.js";
import type { AuthedCtx } from "../shared/ports.js";
import { isAdmin } from "../shared/visibility.js";
import { paymentView } from "../shared/payment-views.js";
import type { ListPaymentsInput, PaymentView } from "../shared/schemas.js";
import { findVisiblePayment } from "./stk-query.js";

/** Newest first, keyset-paginated on (created_at, id). */
export async function listPayments(ctx: AuthedCtx, input: ListPaymentsInput): Promise<{ payments: PaymentView[]; nextCursor: string | null }> {
  const scope = { tenantId: ctx.tenant.id, ...(isAdmin(ctx) ? {} : { userId: ctx.auth.sub }) };
  const { rows, nextCursor } = await readKeysetPage(input, (page) => payments.listPage(ctx.db, scope, page));
  return { payments: rows.map(paymentView), nextCursor };
}

export async function getPayment(ctx: AuthedCtx, checkoutRequestId: string): Promise<{ payment: PaymentView }> {
  return { payment: paymentView(await findVisiblePayment(ctx, checkoutRequestId)) };
}
