/** GET /api/v1/payments/{id}: one payment of the shop, as the server API shows it (docs/payment-intents.md#objects). */
import { DomainError } from "../shared/errors.js";
import type { TenantCtx } from "./ports.js";
import type { ServerPaymentView } from "../payments/kernel/schemas.js";
import { latestReversal, toServerPaymentView } from "../payments/kernel/payment-object.js";

export async function getServerPayment(ctx: TenantCtx, id: string): Promise<ServerPaymentView> {
  const row = await ctx.db.payment.findFirst({ where: { id }, include: latestReversal });
  if (!row) throw new DomainError("NOT_FOUND", "not_found.shop_payment");
  return toServerPaymentView(row);
}
