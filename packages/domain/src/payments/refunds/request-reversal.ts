/**
 * POST /api/v1/payments/{id}/reversal (docs/mpesa.md#reversals), deprecated for POST …/refunds: a refund
 * of the whole payment by Daraja's Reversal, answered as the second release answered it — 202 with the
 * payment (its `reversal`), the Idempotency-Key optional, 409 PAYMENT_NOT_REVERSIBLE for a payment that is
 * not SUCCESS with a receipt, and 409 REVERSAL_EXISTS while any refund of the payment (a reversal or a
 * part sent by B2C) is not FAILED. Stored, sent and settled as every refund (refund-request.ts).
 */
import { payments, refunds, type RefundModel } from "@mteja/db";
import { DomainError } from "../../shared/errors.js";
import type { ShopCallerCtx } from "../shared/ports.js";
import { requestOnce } from "../shared/provider-request.js";
import type { ServerPaymentView } from "../shared/schemas.js";
import { toServerPaymentView } from "../shared/payment-object.js";
import { idempotencyKeyOf } from "../shared/request-rules.js";
import { refundOnce, refundSending, requesterOf, type StoredRefund } from "./refund-request.js";
import { paidOf } from "./refund-rules.js";
import { paymentNotFound } from "./request-refund.js";

/** A refund in one of these states stands: no reversal is made beside it. */
const standingStatuses = ["PENDING", "UNKNOWN", "SUCCESS"];

export async function requestReversal(ctx: ShopCallerCtx, paymentId: string): Promise<ServerPaymentView> {
  const { deps } = ctx;
  // A payment of another shop is not found, whatever this shop's M-Pesa set-up.
  await readPayment(ctx, paymentId);
  const notConfigured = {
    service: "reversals.service_not_configured",
    initiator: "reversals.initiator_missing",
  } as const;
  const sending = refundSending(ctx, notConfigured);
  const idempotencyKey = idempotencyKeyOf(ctx);
  const operation = {
    idempotencyKey,
    store: () => storeReversal(ctx, paymentId, idempotencyKey),
    sameRequest: (row: RefundModel) => row.paymentId === paymentId && row.method === "reversal",
  };
  const timing = { clock: deps.clock, inFlightSeconds: deps.daraja.settings.promptInFlightSeconds };
  const reversal = await requestOnce(refundOnce(ctx, sending, operation), timing);
  // Every answer is 202: the reversal's outcome arrives later (its callbacks, or a status query).
  ctx.request.markAccepted();
  return toServerPaymentView(await readPayment(ctx, reversal.paymentId));
}

function storeReversal(
  ctx: ShopCallerCtx,
  paymentId: string,
  idempotencyKey: string | undefined,
): Promise<StoredRefund> {
  const { deps, tenant } = ctx;
  return deps.db.transaction(ctx.db, async (tx) => {
    const payment = await payments.lockOfTenant(tx, { id: paymentId, tenantId: tenant.id });
    if (!payment) throw paymentNotFound();
    if (payment.status !== "SUCCESS" || !payment.mpesaReceipt) {
      throw new DomainError("PAYMENT_NOT_REVERSIBLE", "reversals.not_reversible");
    }
    const standing = await refunds.findOfPayment(tx, paymentId, standingStatuses);
    // The same key as the standing one: the insert below fails on the key's unique index and requestOnce
    // replays that reversal (two retries racing each other).
    if (standing && (idempotencyKey === undefined || standing.idempotencyKey !== idempotencyKey)) {
      throw new DomainError("REVERSAL_EXISTS", { key: "reversals.exists", params: { status: standing.status } });
    }
    const now = deps.clock.now();
    const refund = await refunds.create(tx, {
      tenantId: tenant.id,
      paymentId,
      amount: paidOf(payment),
      method: "reversal",
      reason: null,
      originalReceipt: payment.mpesaReceipt,
      requestedBy: requesterOf(ctx),
      idempotencyKey: idempotencyKey ?? null,
      callbackTokenForm: "tenant",
      // If neither a result nor a time-out arrives, a status query settles it.
      nextStatusQueryAt: new Date(now.getTime() + deps.daraja.settings.reconcileAfterSeconds * 1000),
      createdAt: now,
      updatedAt: now,
    });
    return { refund, destination: { method: "reversal", receipt: payment.mpesaReceipt } };
  });
}

async function readPayment(ctx: ShopCallerCtx, paymentId: string) {
  const payment = await payments.findWithRefunds(ctx.db, paymentId);
  if (!payment) throw paymentNotFound();
  return payment;
}
