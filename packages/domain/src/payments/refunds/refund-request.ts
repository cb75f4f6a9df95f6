/**
 * A refund's Daraja request, made at most once (shared/provider-request.ts), whichever operation asked
 * for it (POST …/refunds, or the deprecated POST …/reversal): the refund row is stored PENDING, under the
 * Idempotency-Key, in a transaction holding the payment's row lock, before Daraja is called; then the
 * Reversal or the B2C payment request is sent. Daraja refusing it, or the request never leaving, makes it
 * FAILED (502 / 503, refund.failed); any other failure leaves its outcome unknown: UNKNOWN, never re-sent,
 * settled by a Transaction Status query (refund-reconciliation.ts).
 */
import { refunds, type RefundModel } from "@mteja/db";
import type { DarajaClient } from "@mteja/daraja";
import type { Text } from "@mteja/i18n";
import type { ShopCallerCtx } from "../shared/ports.js";
import type { ProviderRequest } from "../shared/provider-request.js";
import { callbackUrlFor } from "../shared/flow.js";
import { providerUnavailable } from "../shared/provider-errors.js";
import { recordRefundSettled } from "./refund-events.js";
import type { RefundCallbackKind } from "./refund-callbacks.js";

/** Daraja requires 2-100 characters; the same for both methods. */
export const REFUND_REMARKS = "Refund";

interface Urls {
  resultUrl: string;
  queueTimeoutUrl: string;
}

/** The shop's Daraja client and where Daraja posts each method's results (the shop's own token in them). */
export interface RefundSending {
  daraja: DarajaClient;
  urls: { reversal: Urls; b2c: Urls };
}

/** What a request's messages say when the shop cannot refund through Daraja at all (503). */
export interface NotConfigured {
  service: Text;
  initiator: Text;
}

/**
 * The shop's refunds through Daraja; 503 when M-Pesa, the refund callback addresses or the shop's
 * initiator are missing.
 */
export function refundSending(ctx: ShopCallerCtx, messages: NotConfigured): RefundSending {
  const { deps, tenant } = ctx;
  // The refund's mode is its payment's, which the caller's mode-scoped client found (docs/test-mode.md).
  const daraja = deps.daraja.darajaFor(tenant, ctx);
  const url = (kind: RefundCallbackKind) => callbackUrlFor(deps.daraja, kind, tenant.id);
  const reversalResult = url("reversal_result");
  const reversalTimeout = url("reversal_timeout");
  const b2cResult = url("refund_b2c_result");
  const b2cTimeout = url("refund_b2c_timeout");
  if (!daraja || !reversalResult || !reversalTimeout || !b2cResult || !b2cTimeout) {
    throw providerUnavailable(messages.service);
  }
  // Both methods are requests of the initiator of the shop's B2C group; without one neither can be sent.
  if (!deps.daraja.hasPayoutAccount(tenant)) throw providerUnavailable(messages.initiator);
  return {
    daraja,
    urls: {
      reversal: { resultUrl: reversalResult, queueTimeoutUrl: reversalTimeout },
      b2c: { resultUrl: b2cResult, queueTimeoutUrl: b2cTimeout },
    },
  };
}

/**
 * Where the money goes, read from the locked payment when the row is stored (the payer's phone is not
 * kept on the refund); a B2C request's OriginatorConversationID is ours, stored with the row.
 */
export type Destination =
  | { method: "reversal"; receipt: string }
  | { method: "b2c"; phone: string; occasion: string; originatorConversationId: string };

/** What an operation decides under the payment's lock: the row it stores, and where the money goes. */
export interface StoredRefund {
  refund: RefundModel;
  destination: Destination;
}

/** Who asked: the API key, or the admin. */
export function requesterOf(ctx: ShopCallerCtx): string {
  return ctx.caller.kind === "apiKey" ? `api_key:${ctx.caller.id}` : `user:${ctx.caller.id}`;
}

/**
 * A refund's request made once: the operation stores the row (under the payment's lock) and says what a
 * retry must match.
 */
export function refundOnce(
  ctx: ShopCallerCtx,
  sending: RefundSending,
  operation: {
    idempotencyKey: string | undefined;
    store(): Promise<StoredRefund>;
    sameRequest(row: RefundModel): boolean;
  },
): ProviderRequest<RefundModel, void, RefundModel> {
  const { deps, db } = ctx;
  const { daraja, urls } = sending;
  const tenantId = ctx.tenant.id;
  let destination: Destination | undefined;
  return {
    idempotencyKey: operation.idempotencyKey,
    findByKey: (key) => refunds.findByIdempotencyKey(db, { tenantId, livemode: ctx.livemode, idempotencyKey: key }),
    async store() {
      const stored = await operation.store();
      destination = stored.destination;
      return stored.refund;
    },
    sameRequest: operation.sameRequest,
    inFlight: (row) => row.status === "PENDING" && row.conversationId === null && row.lastError === null,
    reload: (row) => refunds.get(db, row.id),
    refusedOrNeverSent: (row) => row.status === "FAILED" && row.conversationId === null && row.resultCode === null,
    storedAnswer: (row) => row,
    // The acknowledgement is stored inside the call: if storing it fails, the refund's outcome is unknown.
    async call(refund) {
      const to = destination;
      if (to === undefined) throw new Error("a refund's request is sent only after its row is stored");
      if (to.method === "reversal") {
        const request = { transactionId: to.receipt, amount: refund.amount, remarks: REFUND_REMARKS, ...urls.reversal };
        const { originatorConversationId, conversationId } = await daraja.reversal(request);
        const stored = { originatorConversationId, conversationId, updatedAt: deps.clock.now() };
        await refunds.storeDarajaIds(db, refund.id, stored);
        return;
      }
      const ack = await daraja.b2cPayment({
        originatorConversationId: to.originatorConversationId,
        commandId: "BusinessPayment",
        amount: refund.amount,
        phone: to.phone,
        remarks: REFUND_REMARKS,
        occasion: to.occasion,
        ...urls.b2c,
      });
      const stored = { conversationId: ack.conversationId, updatedAt: deps.clock.now() };
      await refunds.storeConversationId(db, refund.id, stored);
    },
    accepted: (refund) => refunds.get(db, refund.id),
    async markFailed(refund, lastError) {
      // Refused, or never sent: nothing was given back; a new refund may be requested.
      const now = deps.clock.now();
      await deps.db.transaction(db, async (tx) => {
        const failed = { status: "FAILED", lastError, nextStatusQueryAt: null, settledAt: now, updatedAt: now };
        if (await refunds.updateIfStill(tx, { id: refund.id, status: "PENDING" }, failed)) {
          await recordRefundSettled(tx, await refunds.get(tx, refund.id), now);
        }
      });
      deps.webhooks.nudge();
    },
    async markUnknown(refund, lastError) {
      // It may have been accepted. Never re-sent; queried instead.
      const now = deps.clock.now();
      const unknown = { status: "UNKNOWN", lastError, nextStatusQueryAt: now, updatedAt: now };
      await refunds.updateIfStill(db, { id: refund.id, status: "PENDING" }, unknown);
      const logged = { refundId: refund.id, paymentId: refund.paymentId, method: refund.method, lastError };
      deps.logger.warn(logged, "Refund request outcome unknown: the refund is UNKNOWN until a status query settles it");
    },
  };
}
