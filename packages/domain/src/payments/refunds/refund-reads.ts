/**
 * GET /api/v1/refunds/{id} and GET /api/v1/payments/{id}/refunds (docs/mpesa.md#refunds): the shop's
 * refunds, as stored.
 */
import { payments, refunds } from "@mteja/db";
import { DomainError } from "../../shared/errors.js";
import { readKeysetPage } from "../../shared/keyset-page.js";
import type { ShopCallerCtx } from "../shared/ports.js";
import { refundObject, refundUuidOf, type RefundObject } from "./refund-object.js";
import { paymentNotFound } from "./request-refund.js";
import type { ListRefundsInput } from "./schemas.js";

export async function getRefund(ctx: ShopCallerCtx, id: string): Promise<RefundObject> {
  const refund = await refunds.find(ctx.db, { id: refundUuidOf(id), tenantId: ctx.tenant.id });
  if (!refund) throw new DomainError("NOT_FOUND", "not_found.refund");
  return refundObject(refund);
}

/** The payment's refunds, newest first. */
export async function listRefunds(
  ctx: ShopCallerCtx,
  input: ListRefundsInput,
): Promise<{ refunds: RefundObject[]; next_cursor: string | null }> {
  if (!(await payments.find(ctx.db, input.id))) throw paymentNotFound();
  const scope = { tenantId: ctx.tenant.id, paymentId: input.id };
  const { rows, nextCursor } = await readKeysetPage({ limit: input.limit, cursor: input.cursor }, (page) =>
    refunds.listOfPayment(ctx.db, scope, page),
  );
  return { refunds: rows.map(refundObject), next_cursor: nextCursor };
}
