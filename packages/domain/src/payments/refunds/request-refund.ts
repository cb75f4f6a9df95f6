/**
 * POST /api/v1/payments/{id}/refunds (docs/mpesa.md#refunds): gives back a successful payment, whole or
 * in part, with an Idempotency-Key (required: a retry never refunds twice).
 *
 * Under the payment's row lock (payments.lockOfTenant), in the transaction that stores the refund: the
 * shillings of its refunds that are not FAILED are summed and the new one planned against what remains
 * (refund-rules.ts), so refunds asked at once are counted one after the other and never together pass
 * the payment's amount. A refund sent by B2C also passes the shop's B2C switch (403) and its daily limit,
 * shared with payouts (422; shared/b2c-limits.ts, which locks the shop's B2C day after the payment).
 * Then Daraja is called once (refund-request.ts). Every answer is 202 with the refund.
 */
import { payments, refunds, type RefundModel, type TenantTx } from "@mteja/db";
import { DomainError } from "../../shared/errors.js";
import { b2cLeftToday, b2cSettingsOf, b2cSwitchedOn } from "../shared/b2c-limits.js";
import type { ShopCallerCtx } from "../shared/ports.js";
import { requestOnce } from "../shared/provider-request.js";
import { idempotencyKeyOf } from "../shared/request-rules.js";
import { refundObject, type RefundMethod, type RefundObject } from "./refund-object.js";
import {
  refundOnce,
  refundSending,
  requesterOf,
  type Destination,
  type StoredRefund,
} from "./refund-request.js";
import { planRefund, type RefundPlan } from "./refund-rules.js";
import type { CreateRefundInput } from "./schemas.js";

export async function requestRefund(ctx: ShopCallerCtx, input: CreateRefundInput): Promise<RefundObject> {
  const { deps } = ctx;
  const idempotencyKey = idempotencyKeyOf(ctx);
  if (!idempotencyKey) {
    throw new DomainError("VALIDATION_ERROR", "refunds.idempotency_key_required", {
      details: [{ path: "Idempotency-Key", message: "detail.idempotency_key_required" }],
    });
  }
  // A payment of another shop is not found, whatever this shop's M-Pesa set-up.
  if (!(await payments.find(ctx.db, input.id))) throw paymentNotFound();
  const notConfigured = { service: "refunds.service_not_configured", initiator: "refunds.initiator_missing" } as const;
  const sending = refundSending(ctx, notConfigured);
  const operation = {
    idempotencyKey,
    store: () => storeRefund(ctx, input, idempotencyKey),
    // A retry without an amount asks for what the first one was: the same refund.
    sameRequest: (row: RefundModel) =>
      row.paymentId === input.id &&
      (input.amount === undefined || row.amount === input.amount) &&
      row.reason === (input.reason ?? null),
  };
  const timing = { clock: deps.clock, inFlightSeconds: deps.daraja.settings.promptInFlightSeconds };
  const refund = await requestOnce(refundOnce(ctx, sending, operation), timing);
  // Every answer is 202: the refund's outcome arrives later (its callbacks, or a status query).
  ctx.request.markAccepted();
  return refundObject(refund);
}

export function paymentNotFound(): DomainError {
  return new DomainError("NOT_FOUND", "not_found.shop_payment");
}

function storeRefund(ctx: ShopCallerCtx, input: CreateRefundInput, idempotencyKey: string): Promise<StoredRefund> {
  const { deps, tenant } = ctx;
  return deps.db.transaction(ctx.db, async (tx) => {
    const payment = await payments.lockOfTenant(tx, { id: input.id, tenantId: tenant.id });
    if (!payment) throw paymentNotFound();
    const now = deps.clock.now();
    // The same key racing the first request (which held the lock): its insert below fails on the key's
    // unique index and requestOnce replays the first, whatever remains of the payment now.
    const retried = await refunds.findByIdempotencyKey(tx, { tenantId: tenant.id, livemode: ctx.livemode, idempotencyKey });
    let plan: RefundPlan;
    if (retried) plan = { amount: retried.amount, method: retried.method as RefundMethod };
    else {
      const refundedBefore = await refunds.sumOfPayment(tx, { paymentId: payment.id, excludingStatus: "FAILED" });
      plan = planRefund(payment, { requested: input.amount, refundedBefore });
      if (plan.method === "b2c") await checkB2c(ctx, tx, plan.amount, now);
    }
    const destination: Destination =
      plan.method === "reversal"
        ? { method: "reversal", receipt: payment.mpesaReceipt ?? "" }
        : {
            method: "b2c",
            phone: payment.phone,
            occasion: `Refund of ${payment.mpesaReceipt ?? payment.reference}`,
            originatorConversationId: deps.random.uuid(),
          };
    const refund = await refunds.create(tx, {
      tenantId: tenant.id,
      paymentId: payment.id,
      amount: plan.amount,
      method: plan.method,
      reason: input.reason ?? null,
      originalReceipt: destination.method === "reversal" ? destination.receipt : null,
      originatorConversationId: destination.method === "b2c" ? destination.originatorConversationId : null,
      requestedBy: requesterOf(ctx),
      idempotencyKey,
      callbackTokenForm: "tenant",
      // If neither a result nor a time-out arrives, a status query settles it.
      nextStatusQueryAt: new Date(now.getTime() + deps.daraja.settings.reconcileAfterSeconds * 1000),
      createdAt: now,
      updatedAt: now,
    });
    return { refund, destination };
  });
}

/**
 * A refund sent by B2C leaves the shop's B2C account: its switch (403) and its daily limit, shared with
 * payouts (422).
 */
async function checkB2c(ctx: ShopCallerCtx, tx: TenantTx, amount: number, now: Date): Promise<void> {
  const { deps, tenant } = ctx;
  const settings = b2cSettingsOf(tenant);
  if (!b2cSwitchedOn(deps, tenant)) {
    const why = settings.enabled === false ? "refunds.b2c_switched_off" : "refunds.b2c_not_switched_on";
    throw new DomainError("FORBIDDEN", why);
  }
  const left = await b2cLeftToday(tx, tenant, now);
  if (left !== undefined && settings.dailyLimit !== undefined && amount > left) {
    const params = { limit: settings.dailyLimit, left: Math.max(0, left) };
    throw new DomainError("VALIDATION_ERROR", undefined, {
      details: [{ path: "amount", message: { key: "detail.refund_over_daily_limit", params } }],
    });
  }
}
