/**
 * POST /api/v1/payments/{id}/reversal (docs/mpesa.md#reversals): Daraja's Reversal of a successful
 * payment, for the whole amount paid, made at most once (shared/provider-request.ts).
 *
 * The reversal row is stored PENDING, under the Idempotency-Key, before Daraja is called, in a
 * transaction holding the payment's row lock: a payment that is not SUCCESS with a receipt is 409
 * PAYMENT_NOT_REVERSIBLE, one whose latest reversal is PENDING, UNKNOWN or SUCCESS is 409
 * REVERSAL_EXISTS (the partial unique index payment_reversals_one_open_per_payment holds it too).
 * Daraja refusing it, or the request never leaving, makes it FAILED (502 / 503; a new one may then be
 * made); any other failure leaves its outcome unknown: UNKNOWN, never re-sent, settled by a
 * Transaction Status query. Every answer is 202 with the payment.
 */
import { payments, reversals, type PaymentReversalModel } from "@mteja/db";
import type { DarajaAcknowledgement, DarajaClient } from "@mteja/daraja";
import { DomainError } from "../../shared/errors.js";
import type { ShopCallerCtx } from "../shared/ports.js";
import { requestOnce, type ProviderRequest } from "../shared/provider-request.js";
import type { ServerPaymentView } from "../shared/schemas.js";
import { toServerPaymentView } from "../shared/payment-object.js";
import { callbackUrlFor } from "../shared/flow.js";
import { providerUnavailable } from "../shared/provider-errors.js";
import { idempotencyKeyOf } from "../shared/request-rules.js";

/** Daraja requires 2-100 characters. */
export const REVERSAL_REMARKS = "Payment reversal";

/** A reversal in one of these states stands: no second one is made for the payment. */
const standingStatuses = ["PENDING", "UNKNOWN", "SUCCESS"];

export async function requestReversal(ctx: ShopCallerCtx, paymentId: string): Promise<ServerPaymentView> {
  const { deps } = ctx;
  // A payment of another shop is not found, whatever this shop's M-Pesa set-up.
  await readPayment(ctx, paymentId);
  const daraja = deps.daraja.darajaFor(ctx.tenant);
  // The shop's own token in the result addresses (docs/mpesa.md#callback-tokens).
  const reversalResultUrl = callbackUrlFor(deps.daraja, "reversal_result", ctx.tenant.id);
  const reversalTimeoutUrl = callbackUrlFor(deps.daraja, "reversal_timeout", ctx.tenant.id);
  if (!daraja || !reversalResultUrl || !reversalTimeoutUrl) throw providerUnavailable("reversals.service_not_configured");
  // The Reversal request is made by the initiator of the shop's B2C group; without one it cannot be sent.
  if (!deps.daraja.hasPayoutAccount(ctx.tenant)) throw providerUnavailable("reversals.initiator_missing");
  const urls = { resultUrl: reversalResultUrl, queueTimeoutUrl: reversalTimeoutUrl };
  const reversal = await requestOnce(reversalOnce(ctx, daraja, urls, paymentId), { clock: deps.clock, inFlightSeconds: deps.daraja.settings.promptInFlightSeconds });
  // Every answer is 202: the reversal's outcome arrives later (its callbacks, or a status query).
  ctx.request.markAccepted();
  return toServerPaymentView(await readPayment(ctx, reversal.paymentId));
}

function notFound(): DomainError {
  return new DomainError("NOT_FOUND", "not_found.shop_payment");
}

function requesterOf(ctx: ShopCallerCtx): string {
  return ctx.caller.kind === "apiKey" ? `api_key:${ctx.caller.id}` : `user:${ctx.caller.id}`;
}

type Urls = { resultUrl: string; queueTimeoutUrl: string };

/** The Reversal request as a request made at most once: the reversal row is its record (and its answer). */
function reversalOnce(ctx: ShopCallerCtx, daraja: DarajaClient, urls: Urls, paymentId: string): ProviderRequest<PaymentReversalModel, DarajaAcknowledgement, PaymentReversalModel> {
  const { deps, db } = ctx;
  const tenantId = ctx.tenant.id;
  const idempotencyKey = idempotencyKeyOf(ctx);
  return {
    idempotencyKey,
    findByKey: (key) => reversals.findByIdempotencyKey(db, { tenantId, idempotencyKey: key }),
    store: () =>
      deps.db.transaction(db, async (tx) => {
        const payment = await payments.lockOfTenant(tx, { id: paymentId, tenantId });
        if (!payment) throw notFound();
        if (payment.status !== "SUCCESS" || !payment.mpesaReceipt) {
          throw new DomainError("PAYMENT_NOT_REVERSIBLE", "reversals.not_reversible");
        }
        const standing = await reversals.findOfPayment(tx, paymentId, standingStatuses);
        // The same key as the standing one: the insert below fails on the key's unique index and
        // requestOnce replays that reversal (two retries racing each other).
        if (standing && (idempotencyKey === undefined || standing.idempotencyKey !== idempotencyKey)) {
          throw new DomainError("REVERSAL_EXISTS", { key: "reversals.exists", params: { status: standing.status } });
        }
        const now = deps.clock.now();
        return reversals.create(tx, {
          tenantId,
          paymentId,
          amount: payment.paidAmount ?? payment.amount,
          originalReceipt: payment.mpesaReceipt,
          requestedBy: requesterOf(ctx),
          idempotencyKey: idempotencyKey ?? null,
          callbackTokenForm: "tenant",
          // If neither a result nor a time-out arrives, a status query settles it.
          nextStatusQueryAt: new Date(now.getTime() + deps.daraja.settings.reconcileAfterSeconds * 1000),
          createdAt: now,
          updatedAt: now,
        });
      }),
    sameRequest: (row) => row.paymentId === paymentId,
    inFlight: (row) => row.status === "PENDING" && row.conversationId === null && row.lastError === null,
    reload: (row) => reversals.get(db, row.id),
    refusedOrNeverSent: (row) => row.status === "FAILED" && row.conversationId === null && row.resultCode === null,
    storedAnswer: (row) => row,
    // The acknowledgement is stored inside the call: if storing it fails, the reversal's outcome is unknown.
    async call(reversal) {
      const ack = await daraja.reversal({ transactionId: reversal.originalReceipt, amount: reversal.amount, remarks: REVERSAL_REMARKS, ...urls });
      const { originatorConversationId, conversationId } = ack;
      const updatedAt = deps.clock.now();
      await reversals.storeDarajaIds(db, reversal.id, { originatorConversationId, conversationId, updatedAt });
      return ack;
    },
    accepted: (reversal) => reversals.get(db, reversal.id),
    async markFailed(reversal, lastError) {
      // Refused, or never sent: nothing was reversed; a new reversal may be requested.
      const now = deps.clock.now();
      const failed = { status: "FAILED", lastError, nextStatusQueryAt: null, settledAt: now, updatedAt: now };
      await reversals.updateIfStill(db, { id: reversal.id, status: "PENDING" }, failed);
    },
    async markUnknown(reversal, lastError) {
      // It may have been accepted. Never re-sent; queried instead.
      const now = deps.clock.now();
      const unknown = { status: "UNKNOWN", lastError, nextStatusQueryAt: now, updatedAt: now };
      await reversals.updateIfStill(db, { id: reversal.id, status: "PENDING" }, unknown);
      deps.logger.warn({ reversalId: reversal.id, paymentId: reversal.paymentId, lastError }, "Reversal request outcome unknown: the reversal is UNKNOWN until a status query settles it");
    },
  };
}

async function readPayment(ctx: ShopCallerCtx, paymentId: string) {
  const payment = await payments.findWithLatestReversal(ctx.db, paymentId);
  if (!payment) throw notFound();
  return payment;
}
