/** GET /api/v1/payments/{id}: one payment of the shop, as the server API shows it (docs/payment-intents.md#objects). */
import { payments } from "@mteja/db";
import { DomainError } from "../shared/errors.js";
import type { TenantCtx } from "./ports.js";
import type { ServerPaymentView } from "../payments/shared/schemas.js";
import { toServerPaymentView } from "../payments/shared/payment-object.js";

export async function getServerPayment(ctx: TenantCtx, id: string): Promise<ServerPaymentView> {
  const row = await payments.findWithRefunds(ctx.db, id);
  if (!row) throw new DomainError("NOT_FOUND", "not_found.shop_payment");
  return toServerPaymentView(row);
}
