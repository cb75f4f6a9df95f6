/**
 * POST /api/momo/stkpush: a payment prompt on the customer's phone (docs/mpesa.md).
 *
 * The payment row is written PENDING before Daraja is called, and Daraja's ids are stored as soon as
 * it answers. A Daraja error (it answered: no prompt started) leaves the row FAILED. No answer at all
 * (timeout, network) also leaves it FAILED, because a row without a CheckoutRequestID can never be
 * reconciled; the prompt may still have reached the phone, and a callback for it is then kept and
 * flagged for review (docs/mpesa.md "Residual risks").
 */
import { Prisma, type PaymentModel } from "@mteja/db";
import { DarajaError, type DarajaClient } from "@mteja/daraja";
import { countStkPrompt } from "../shared/abuse-limits.js";
import { tenantDisplayName } from "../tenants/directory.js";
import type { Tenant } from "../tenants/directory.js";
import { applyHeldStkCallbacks } from "./callbacks.js";
import type { MomoCtx } from "./momo-context.js";
import { darajaAnswered, lastErrorOf, providerUnavailable, replayedError, toProviderError } from "./provider-errors.js";
import { checkTenantAmount, idempotencyKeyOf, keyReusedError, pause } from "./request-rules.js";
import type { PaymentStatus, StkPushInput } from "./schemas.js";

export const DEFAULT_DESCRIPTION = "Payment";
/** Daraja's usual CustomerMessage, for answers replayed from the store (the text itself is not stored). */
const REPLAYED_CUSTOMER_MESSAGE = "Success. Request accepted for processing";
/** How long a retry waits for the first request with its Idempotency-Key to get Daraja's answer. */
const IN_FLIGHT_WAIT_MS = 12_000;

export interface StkPushAnswer {
  checkoutRequestId: string;
  merchantRequestId: string;
  customerMessage: string;
  status: PaymentStatus;
}

interface PromptRequest {
  phone: string;
  amount: number;
  reference: string;
  description: string;
}

/** AccountReference when the caller sends none: the shop's name (letters and digits), else its id. */
export function defaultReference(tenant: Tenant): string {
  const name = tenantDisplayName(tenant).replace(/[^A-Za-z0-9]/g, "").slice(0, 12);
  return name || tenant.id.slice(0, 12);
}

export async function stkPush(ctx: MomoCtx, input: StkPushInput): Promise<StkPushAnswer> {
  const { deps } = ctx;
  const daraja = deps.momo.darajaFor(ctx.tenant);
  const callbackUrl = deps.momo.settings.stkCallbackUrl;
  if (!daraja || !callbackUrl) throw providerUnavailable("M-Pesa payments are not configured on this service.");
  checkTenantAmount(ctx.tenant, input.amount);

  const request: PromptRequest = {
    phone: input.phone,
    amount: input.amount,
    reference: input.reference ?? defaultReference(ctx.tenant),
    description: input.description ?? DEFAULT_DESCRIPTION,
  };
  const owner = { tenantId: ctx.tenant.id, userId: ctx.auth.sub };
  const idempotencyKey = idempotencyKeyOf(ctx);
  if (idempotencyKey) {
    const existing = await deps.db.prisma.payment.findUnique({ where: { tenantId_userId_idempotencyKey: { ...owner, idempotencyKey } } });
    if (existing) return replay(ctx, existing, request);
  }

  // Counted only for requests that may prompt (a replay does not), before the row is stored.
  const counted = await countStkPrompt(ctx, { ...owner, phone: request.phone });

  const now = deps.now();
  let payment: PaymentModel;
  try {
    payment = await deps.db.prisma.payment.create({
      data: {
        ...owner,
        ...request,
        idempotencyKey: idempotencyKey ?? null,
        nextQueryAt: new Date(now.getTime() + deps.momo.settings.reconcileAfterSeconds * 1000),
        createdAt: now,
        updatedAt: now,
      },
    });
  } catch (error) {
    // Two requests with one key at once: the second answers what the first did.
    if (idempotencyKey && error instanceof Prisma.PrismaClientKnownRequestError && error.code === "P2002") {
      const existing = await deps.db.prisma.payment.findUnique({ where: { tenantId_userId_idempotencyKey: { ...owner, idempotencyKey } } });
      if (existing) {
        await counted.refund();
        return replay(ctx, existing, request);
      }
    }
    throw error;
  }
  return sendPrompt(ctx, daraja, payment, callbackUrl);
}

async function sendPrompt(ctx: MomoCtx, daraja: DarajaClient, payment: PaymentModel, callbackUrl: string): Promise<StkPushAnswer> {
  const { deps } = ctx;
  let response;
  try {
    response = await daraja.stkPush({
      phone: payment.phone,
      amount: payment.amount,
      accountReference: payment.reference,
      transactionDesc: payment.description,
      callbackUrl,
    });
  } catch (error) {
    if (!(error instanceof DarajaError)) {
      await markFailed(ctx, payment.id, "internal error before Daraja answered");
      throw error;
    }
    await markFailed(ctx, payment.id, lastErrorOf(error));
    if (!darajaAnswered(error)) {
      deps.logger.warn(
        { paymentId: payment.id, reason: error.reason },
        "STK push got no answer from Daraja: marked FAILED; a prompt may still have reached the phone (its callback will be flagged)",
      );
    }
    throw toProviderError(error);
  }

  const stored = await deps.db.prisma.payment.updateMany({
    where: { id: payment.id, checkoutRequestId: null },
    data: { checkoutRequestId: response.checkoutRequestId, merchantRequestId: response.merchantRequestId, updatedAt: deps.now() },
  });
  if (stored.count !== 1) {
    deps.logger.error({ paymentId: payment.id, checkoutRequestId: response.checkoutRequestId }, "could not store the CheckoutRequestID of an accepted STK push");
  }
  // A callback that beat this answer was kept; it can be applied now that the id is known.
  await applyHeldStkCallbacks(deps, response.checkoutRequestId);
  const current = await deps.db.prisma.payment.findUniqueOrThrow({ where: { id: payment.id }, select: { status: true } });
  return {
    checkoutRequestId: response.checkoutRequestId,
    merchantRequestId: response.merchantRequestId,
    customerMessage: response.customerMessage || REPLAYED_CUSTOMER_MESSAGE,
    status: current.status as PaymentStatus,
  };
}

async function markFailed(ctx: MomoCtx, paymentId: string, lastError: string): Promise<void> {
  const now = ctx.deps.now();
  await ctx.deps.db.prisma.payment.updateMany({
    where: { id: paymentId, status: "PENDING", checkoutRequestId: null },
    data: { status: "FAILED", lastError, nextQueryAt: null, settledAt: now, updatedAt: now },
  });
}

function sameRequest(row: PaymentModel, request: PromptRequest): boolean {
  return row.phone === request.phone && row.amount === request.amount && row.reference === request.reference && row.description === request.description;
}

/** A retry with a used Idempotency-Key: the first request's answer (or error), never a second prompt. */
async function replay(ctx: MomoCtx, existing: PaymentModel, request: PromptRequest): Promise<StkPushAnswer> {
  if (!sameRequest(existing, request)) throw keyReusedError();
  let row = existing;
  const deadline = Date.now() + IN_FLIGHT_WAIT_MS;
  while (row.status === "PENDING" && row.checkoutRequestId === null) {
    if (Date.now() >= deadline) throw providerUnavailable("The first request with this Idempotency-Key is still waiting for M-Pesa; retry shortly.");
    await pause(100);
    row = await ctx.deps.db.prisma.payment.findUniqueOrThrow({ where: { id: existing.id } });
  }
  if (row.checkoutRequestId === null || row.merchantRequestId === null) throw replayedError(row.lastError);
  return {
    checkoutRequestId: row.checkoutRequestId,
    merchantRequestId: row.merchantRequestId,
    customerMessage: REPLAYED_CUSTOMER_MESSAGE,
    status: row.status as PaymentStatus,
  };
}
