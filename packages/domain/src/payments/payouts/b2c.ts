/**
 * POST /api/momo/b2c (admin only): a payout to a phone (docs/mpesa.md).
 *
 * The payout row, with our OriginatorConversationID, is written PENDING before Daraja is called.
 * Daraja refusing it, or the request never leaving (no connection, no OAuth token), means nothing
 * was paid: FAILED (502 / 503). Anything else (a time-out after sending, a 5xx or gateway page, a
 * body that does not parse) means the payout may have been accepted: UNKNOWN, answered 202, settled
 * later by a Transaction Status query on the same OriginatorConversationID. A payout is never
 * re-sent automatically, and a retry with the same Idempotency-Key answers the same row.
 */
import { payouts, type PayoutModel } from "@mteja/db";
import type { DarajaClient } from "@mteja/daraja";
import type { AuthedCtx } from "../shared/ports.js";
import { requestOnce, type ProviderRequest } from "../shared/provider-request.js";
import { recordPayoutSettled } from "./payout-events.js";
import { callbackUrlFor } from "../shared/flow.js";
import { providerUnavailable } from "../shared/provider-errors.js";
import { liveMoney } from "../shared/money-mode.js";
import { authorizePayout, storePayoutWithinDailyLimit } from "./payout-limits.js";
import { checkTenantAmount, idempotencyKeyOf } from "../shared/request-rules.js";
import type { B2cInput, PayoutStatus } from "../shared/schemas.js";

export const DEFAULT_REMARKS = "Payout";

export interface B2cAnswer {
  conversationId: string | null;
  originatorConversationId: string;
  status: PayoutStatus;
}

interface PayoutRequest {
  phone: string;
  amount: number;
  commandId: string;
  remarks: string;
  occasion: string | null;
}

export async function b2cPayout(ctx: AuthedCtx, input: B2cInput): Promise<B2cAnswer> {
  const { deps } = ctx;
  authorizePayout(ctx, input.amount);
  const daraja = deps.daraja.darajaFor(ctx.tenant, liveMoney);
  // The shop's own token in the result addresses (docs/mpesa.md#callback-tokens).
  const b2cResultUrl = callbackUrlFor(deps.daraja, "b2c_result", ctx.tenant.id);
  const b2cTimeoutUrl = callbackUrlFor(deps.daraja, "b2c_timeout", ctx.tenant.id);
  if (!daraja || !deps.daraja.b2cEnabled || !b2cResultUrl || !b2cTimeoutUrl) throw providerUnavailable("payouts.service_not_configured");
  checkTenantAmount(ctx.tenant, input.amount);

  const request: PayoutRequest = {
    phone: input.phone,
    amount: input.amount,
    commandId: input.commandId,
    remarks: input.remarks ?? DEFAULT_REMARKS,
    occasion: input.occasion ?? null,
  };
  const urls = { resultUrl: b2cResultUrl, queueTimeoutUrl: b2cTimeoutUrl };
  return requestOnce(payoutOnce(ctx, daraja, urls, request), { clock: deps.clock, inFlightSeconds: deps.daraja.settings.promptInFlightSeconds });
}

/** The B2C payment request as a request made at most once: the payout row is the request's record. */
function payoutOnce(ctx: AuthedCtx, daraja: DarajaClient, urls: { resultUrl: string; queueTimeoutUrl: string }, request: PayoutRequest): ProviderRequest<PayoutModel, B2cAnswer, B2cAnswer> {
  const { deps } = ctx;
  const { db } = ctx;
  const owner = { tenantId: ctx.tenant.id, requestedBy: ctx.auth.sub };
  const idempotencyKey = idempotencyKeyOf(ctx);
  return {
    idempotencyKey,
    findByKey: (key) => payouts.findByIdempotencyKey(db, { ...owner, idempotencyKey: key }),
    store() {
      const now = deps.clock.now();
      return storePayoutWithinDailyLimit(ctx, {
        data: {
          ...owner,
          ...request,
          originatorConversationId: deps.random.uuid(),
          idempotencyKey: idempotencyKey ?? null,
          callbackTokenForm: "tenant",
          // If neither a result nor a timeout arrives, a status query settles it.
          nextStatusQueryAt: new Date(now.getTime() + deps.daraja.settings.reconcileAfterSeconds * 1000),
          createdAt: now,
          updatedAt: now,
        },
      });
    },
    sameRequest: (row) =>
      row.phone === request.phone &&
      row.amount === request.amount &&
      row.commandId === request.commandId &&
      row.remarks === request.remarks &&
      (row.occasion ?? null) === request.occasion,
    // Still waiting for Daraja's answer to the payment request.
    inFlight: (row) => row.status === "PENDING" && row.conversationId === null && row.lastError === null,
    reload: (row) => payouts.get(db, row.id),
    refusedOrNeverSent: (row) => row.conversationId === null && row.status === "FAILED" && row.resultCode === null,
    storedAnswer: (row) => storedAnswer(ctx, row),
    // The acknowledgement is stored inside the call: if storing it fails, the payout's outcome is unknown.
    async call(payout) {
      const ack = await daraja.b2cPayment({
        originatorConversationId: payout.originatorConversationId,
        commandId: payout.commandId as B2cInput["commandId"],
        amount: payout.amount,
        phone: payout.phone,
        remarks: payout.remarks,
        ...(payout.occasion ? { occasion: payout.occasion } : {}),
        ...urls,
      });
      const stored = { conversationId: ack.conversationId, updatedAt: deps.clock.now() };
      await payouts.storeConversationId(db, payout.id, stored);
      const current = await payouts.get(db, payout.id);
      return { conversationId: current.conversationId ?? ack.conversationId, originatorConversationId: payout.originatorConversationId, status: current.status as PayoutStatus };
    },
    accepted: async (_payout, answer) => answer,
    async markFailed(payout, lastError) {
      // Refused, or never sent: nothing was paid.
      const now = deps.clock.now();
      await deps.db.transaction(db, async (tx) => {
        const failed = await payouts.updateIfStill(
          tx,
          { id: payout.id, status: "PENDING" },
          { status: "FAILED", lastError, nextStatusQueryAt: null, settledAt: now, updatedAt: now },
        );
        if (failed) await recordPayoutSettled(tx, await payouts.get(tx, payout.id), now);
      });
    },
    async markUnknown(payout, lastError) {
      // It may have been accepted. Never re-sent; queried instead.
      const now = deps.clock.now();
      const unknown = { status: "UNKNOWN", lastError, nextStatusQueryAt: now, updatedAt: now };
      await payouts.updateIfStill(db, { id: payout.id, status: "PENDING" }, unknown);
      deps.logger.warn({ payoutId: payout.id, originatorConversationId: payout.originatorConversationId, lastError }, "B2C payment request outcome unknown: payout UNKNOWN until a status query settles it");
    },
  };
}

/** The payout as stored; one Daraja has not acknowledged (outcome unknown) is a 202. */
function storedAnswer(ctx: AuthedCtx, row: PayoutModel): B2cAnswer {
  if (row.conversationId === null && (row.status === "UNKNOWN" || row.status === "PENDING")) ctx.request.markAccepted();
  return { conversationId: row.conversationId, originatorConversationId: row.originatorConversationId, status: row.status as PayoutStatus };
}
