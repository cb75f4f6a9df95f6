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
import { Prisma, type PayoutModel } from "@mteja/db";
import { DarajaError, type DarajaClient } from "@mteja/daraja";
import type { MomoCtx } from "../momo-context.js";
import { certainlyNotActedOn, lastErrorOf, providerUnavailable, replayedError, toProviderError, unknownOutcomeNote } from "../provider-errors.js";
import { authorizePayout, storePayoutWithinDailyLimit } from "./payout-limits.js";
import { checkTenantAmount, idempotencyKeyOf, keyReusedError, waitWhileInFlight } from "../request-rules.js";
import type { B2cInput, PayoutStatus } from "../schemas.js";

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

export async function b2cPayout(ctx: MomoCtx, input: B2cInput): Promise<B2cAnswer> {
  const { deps } = ctx;
  authorizePayout(ctx, input.amount);
  const daraja = deps.momo.darajaFor(ctx.tenant);
  const { b2cResultUrl, b2cTimeoutUrl } = deps.momo.settings;
  if (!daraja || !deps.momo.b2cEnabled || !b2cResultUrl || !b2cTimeoutUrl) throw providerUnavailable("M-Pesa payouts (B2C) are not configured on this service.");
  checkTenantAmount(ctx.tenant, input.amount);

  const request: PayoutRequest = {
    phone: input.phone,
    amount: input.amount,
    commandId: input.commandId,
    remarks: input.remarks ?? DEFAULT_REMARKS,
    occasion: input.occasion ?? null,
  };
  const owner = { tenantId: ctx.tenant.id, requestedBy: ctx.auth.sub };
  const idempotencyKey = idempotencyKeyOf(ctx);
  const byKey = (key: string) => deps.db.prisma.payout.findUnique({ where: { tenantId_requestedBy_idempotencyKey: { ...owner, idempotencyKey: key } } });
  if (idempotencyKey) {
    const existing = await byKey(idempotencyKey);
    if (existing) return replay(ctx, existing, request);
  }

  const now = deps.clock.now();
  let payout: PayoutModel;
  try {
    payout = await storePayoutWithinDailyLimit(ctx, {
      data: {
        ...owner,
        ...request,
        originatorConversationId: deps.random.uuid(),
        idempotencyKey: idempotencyKey ?? null,
        // If neither a result nor a timeout arrives, a status query settles it.
        nextStatusQueryAt: new Date(now.getTime() + deps.momo.settings.reconcileAfterSeconds * 1000),
        createdAt: now,
        updatedAt: now,
      },
    });
  } catch (error) {
    if (idempotencyKey && error instanceof Prisma.PrismaClientKnownRequestError && error.code === "P2002") {
      const existing = await byKey(idempotencyKey);
      if (existing) return replay(ctx, existing, request);
    }
    throw error;
  }
  return sendPayout(ctx, daraja, payout, { resultUrl: b2cResultUrl, queueTimeoutUrl: b2cTimeoutUrl });
}

async function sendPayout(ctx: MomoCtx, daraja: DarajaClient, payout: PayoutModel, urls: { resultUrl: string; queueTimeoutUrl: string }): Promise<B2cAnswer> {
  const { deps } = ctx;
  try {
    const ack = await daraja.b2cPayment({
      originatorConversationId: payout.originatorConversationId,
      commandId: payout.commandId as B2cInput["commandId"],
      amount: payout.amount,
      phone: payout.phone,
      remarks: payout.remarks,
      ...(payout.occasion ? { occasion: payout.occasion } : {}),
      ...urls,
    });
    await deps.db.prisma.payout.updateMany({
      where: { id: payout.id, conversationId: null },
      data: { conversationId: ack.conversationId, updatedAt: deps.clock.now() },
    });
    const current = await deps.db.prisma.payout.findUniqueOrThrow({ where: { id: payout.id } });
    return { conversationId: current.conversationId ?? ack.conversationId, originatorConversationId: payout.originatorConversationId, status: current.status as PayoutStatus };
  } catch (error) {
    const now = deps.clock.now();
    if (error instanceof DarajaError && certainlyNotActedOn(error)) {
      // Refused, or never sent: nothing was paid.
      await deps.db.prisma.payout.updateMany({
        where: { id: payout.id, status: "PENDING" },
        data: { status: "FAILED", lastError: lastErrorOf(error), nextStatusQueryAt: null, settledAt: now, updatedAt: now },
      });
      throw toProviderError(error);
    }
    // It may have been accepted. Never re-sent; queried instead.
    const lastError = unknownOutcomeNote(error);
    await deps.db.prisma.payout.updateMany({
      where: { id: payout.id, status: "PENDING" },
      data: { status: "UNKNOWN", lastError, nextStatusQueryAt: now, updatedAt: now },
    });
    deps.logger.warn({ payoutId: payout.id, originatorConversationId: payout.originatorConversationId, lastError }, "B2C payment request outcome unknown: payout UNKNOWN until a status query settles it");
    return storedAnswer(ctx, await deps.db.prisma.payout.findUniqueOrThrow({ where: { id: payout.id } }));
  }
}

function sameRequest(row: PayoutModel, request: PayoutRequest): boolean {
  return (
    row.phone === request.phone &&
    row.amount === request.amount &&
    row.commandId === request.commandId &&
    row.remarks === request.remarks &&
    (row.occasion ?? null) === request.occasion
  );
}

/** Still waiting for Daraja's answer to the payment request. */
function requestInFlight(row: PayoutModel): boolean {
  return row.status === "PENDING" && row.conversationId === null && row.lastError === null;
}

async function replay(ctx: MomoCtx, existing: PayoutModel, request: PayoutRequest): Promise<B2cAnswer> {
  if (!sameRequest(existing, request)) throw keyReusedError();
  const { deps } = ctx;
  const row = await waitWhileInFlight(existing, {
    inFlight: requestInFlight,
    reload: () => deps.db.prisma.payout.findUniqueOrThrow({ where: { id: existing.id } }),
    clock: deps.clock,
    inFlightSeconds: deps.momo.settings.promptInFlightSeconds,
  });
  // Refused, or never sent: the same error again.
  if (row.conversationId === null && row.status === "FAILED" && row.resultCode === null) throw replayedError(row.lastError);
  return storedAnswer(ctx, row);
}

/** The payout as stored; one Daraja has not acknowledged (outcome unknown) is a 202. */
function storedAnswer(ctx: MomoCtx, row: PayoutModel): B2cAnswer {
  if (row.conversationId === null && (row.status === "UNKNOWN" || row.status === "PENDING")) ctx.request.markAccepted();
  return { conversationId: row.conversationId, originatorConversationId: row.originatorConversationId, status: row.status as PayoutStatus };
}
