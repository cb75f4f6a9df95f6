/** GET /api/v1/c2b-payments: the shop's C2B payments, newest first, for its server (docs/mpesa.md#c2b). */
import { payments } from "@mteja/db";
import type { TenantCtx } from "../shared/ports.js";
import { readKeysetPage } from "../../shared/keyset-page.js";
import { c2bPaymentObject, type C2bPaymentObject } from "../shared/c2b-payment-object.js";
import type { ListC2bPaymentsInput } from "./schemas.js";

export async function listC2bPayments(ctx: TenantCtx, input: ListC2bPaymentsInput): Promise<{ c2b_payments: C2bPaymentObject[]; next_cursor: string | null }> {
  const scope = { channel: "c2b", ...(input.status ? { c2bMatch: input.status } : {}) };
  const { rows, nextCursor } = await readKeysetPage({ limit: input.limit, cursor: input.cursor }, (page) =>
    payments.listPage(ctx.db, scope, page),
  );
  return { c2b_payments: rows.map(c2bPaymentObject), next_cursor: nextCursor };
}
