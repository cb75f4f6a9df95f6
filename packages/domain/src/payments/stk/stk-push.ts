/**
 * POST /api/momo/stkpush: a payment prompt on the customer's phone (docs/mpesa.md).
 *
 * The payment row is written PENDING before Daraja is called, and Daraja's ids are stored as soon as
 * it answers. Daraja refusing the push, or the push never leaving (no connection, no OAuth token),
 * leaves the row FAILED (502 / 503). Any other failure (a gateway page, a 5xx, a time-out after
 * sending, a body that does not parse) proves nothing: the prompt may be on the phone. The payment
 * then stays PENDING without a CheckoutRequestID and is answered 202; its callback is matched by
 * phone, amount and reference (unknown-prompts.ts), or it becomes TIMEOUT. It is never sent again.
 */
import { payments, type PaymentModel } from "@mteja/db";
import type { DarajaClient, StkPushResponse } from "@mteja/daraja";
import { countStkPrompt } from "./stk-limits.js";
import { tenantDisplayName } from "../../shared/tenant.js";
import type { Tenant } from "../../shared/tenant.js";
import type { AuthedCtx } from "../shared/ports.js";
import { applyHeldStkCallbacks, applyHeldStkCallbacksSince } from "./stk-callbacks.js";
import { requestOnce, type ProviderRequest } from "../shared/provider-request.js";
import { recordIntentPaidByHeld, recordPaymentSettled } from "../../intents/intent-events.js";
import { providerUnavailable } from "../shared/provider-errors.js";
import { checkTenantAmount, idempotencyKeyOf } from "../shared/request-rules.js";
import type { PaymentStatus, StkPushInput } from "../shared/schemas.js";
import { promptCallbackUrl } from "./unknown-prompts.js";
import { callbackUrlFor } from "../shared/flow.js";
import { intentTermsForPrompt, storePromptForIntent } from "../../intents/intent-prompt.js";
import { settleIntentOf } from "../../intents/intent-settlement.js";

export const DEFAULT_DESCRIPTION = "Payment";
/** Daraja's usual CustomerMessage, for answers replayed from the store (the text itself is not stored). */
const REPLAYED_CUSTOMER_MESSAGE = "Success. Request accepted for processing";

/** Daraja's ids are null (and the answer 202) while the push's outcome is unknown. */
export interface StkPushAnswer {
  id: string;
  checkoutRequestId: string | null;
  merchantRequestId: string | null;
  customerMessage?: string;
  status: PaymentStatus;
}

interface PromptRequest {
  phone: string;
  livemode: boolean;
  amount: number;
  reference: string;
  description: string;
}

/** AccountReference when the caller sends none: the shop's name (letters and digits), else its id. */
export function defaultReference(tenant: Tenant): string {
  const name = tenantDisplayName(tenant).replace(/[^A-Za-z0-9]/g, "").slice(0, 12);
  return name || tenant.id.slice(0, 12);
}

export async function stkPush(ctx: AuthedCtx, input: StkPushInput): Promise<StkPushAnswer> {
  const { deps } = ctx;
  // Payment intents (intents/intent-prompt.ts): the intent's terms replace the customer's, and its mode
  // is the payment's (docs/test-mode.md): a test intent is paid through the simulated provider.
  const intent = await intentTermsForPrompt(ctx, input);
  const livemode = intent?.livemode ?? true;
  const daraja = deps.daraja.darajaFor(ctx.tenant, { livemode });
  // The shop's own token in the prompt's CallBackURL (docs/mpesa.md#callback-tokens).
  const callbackUrl = callbackUrlFor(deps.daraja, "stkpush", ctx.tenant.id);
  if (!daraja || !callbackUrl) throw providerUnavailable("payments.not_configured");
  const request: PromptRequest = intent
    ? { phone: input.phone, livemode, amount: intent.amount, reference: intent.reference, description: intent.description ?? DEFAULT_DESCRIPTION }
    : {
        phone: input.phone,
        livemode,
        // stkPushInput requires amount when there is no intent_id.
        amount: input.amount!,
        reference: input.reference ?? defaultReference(ctx.tenant),
        description: input.description ?? DEFAULT_DESCRIPTION,
      };
  checkTenantAmount(ctx.tenant, request.amount);
  return requestOnce(promptOnce(ctx, daraja, callbackUrl, request, intent?.intentId), { clock: deps.clock, inFlightSeconds: deps.daraja.settings.promptInFlightSeconds });
}

/** The STK push as a request made at most once: the payment row is the request's record. */
function promptOnce(ctx: AuthedCtx, daraja: DarajaClient, callbackUrl: string, request: PromptRequest, intentId?: string): ProviderRequest<PaymentModel, StkPushResponse, StkPushAnswer> {
  const { deps } = ctx;
  const { db } = ctx;
  const owner = { tenantId: ctx.tenant.id, userId: ctx.auth.sub };
  const idempotencyKey = idempotencyKeyOf(ctx);
  return {
    idempotencyKey,
    findByKey: (key) => payments.findByIdempotencyKey(db, { ...owner, idempotencyKey: key }),
    // Counted only for requests that may prompt (a replay does not), before the row is stored.
    count: () => countStkPrompt(ctx, { ...owner, phone: request.phone }),
    store() {
      const now = deps.clock.now();
      const row = {
        id: deps.random.uuid(),
        ...owner,
        ...request,
        idempotencyKey: idempotencyKey ?? null,
        callbackTokenForm: "tenant",
        nextQueryAt: new Date(now.getTime() + deps.daraja.settings.reconcileAfterSeconds * 1000),
        createdAt: now,
      };
      return intentId ? storePromptForIntent(db, intentId, row) : payments.createPrompt(db, row);
    },
    sameRequest: (row) =>
      row.phone === request.phone && row.amount === request.amount && row.reference === request.reference && row.description === request.description && row.intentId === (intentId ?? null),
    // Still waiting for Daraja's answer to its push (an unknown outcome has a last_error).
    inFlight: (row) => row.status === "PENDING" && row.checkoutRequestId === null && row.lastError === null,
    reload: (row) => payments.get(db, row.id),
    refusedOrNeverSent: (row) => row.status === "FAILED" && row.checkoutRequestId === null,
    storedAnswer: (row) => storedAnswer(ctx, row),
    call: (payment) =>
      daraja.stkPush({
        phone: payment.phone,
        amount: payment.amount,
        accountReference: payment.reference,
        transactionDesc: payment.description,
        callbackUrl: promptCallbackUrl(callbackUrl, payment.reference, payment.intentId !== null),
      }),
    accepted: (payment, response) => promptAccepted(ctx, payment, response),
    async markFailed(payment, lastError) {
      const now = deps.clock.now();
      await deps.db.transaction(db, async (tx) => {
        const failed = await payments.updateIfStill(
          tx,
          { id: payment.id, status: "PENDING", checkoutRequestId: null },
          { status: "FAILED", lastError, nextQueryAt: null, settledAt: now, updatedAt: now },
        );
        if (!failed) return;
        const intent = await settleIntentOf(tx, payment, "FAILED", now); // payment intents: back to requires_payment
        await recordPaymentSettled(tx, await payments.get(tx, payment.id), now);
        await recordIntentPaidByHeld(tx, intent, now);
      });
    },
    async markUnknown(payment, lastError) {
      // No CheckoutRequestID to query with: only a callback (or the unknown-prompt window) settles it.
      const changes = { lastError, nextQueryAt: null, updatedAt: deps.clock.now() };
      await payments.updateIfStill(db, { id: payment.id, status: "PENDING", checkoutRequestId: null }, changes);
      deps.logger.warn({ paymentId: payment.id, lastError }, "STK push outcome unknown: the payment stays PENDING until its callback or the unknown-prompt window");
      // A callback kept while this push was in flight may be this prompt's.
      await applyHeldStkCallbacksSince(deps, payment.createdAt);
    },
  };
}

async function promptAccepted(ctx: AuthedCtx, payment: PaymentModel, response: StkPushResponse): Promise<StkPushAnswer> {
  const { deps } = ctx;
  const { checkoutRequestId, merchantRequestId } = response;
  const ack = await payments.storePromptAck(ctx.db, { id: payment.id, checkoutRequestId, merchantRequestId, at: deps.clock.now() });
  // A callback that beat this answer was kept; it can be applied now that the id is known, and may have settled the payment.
  const applied = await applyHeldStkCallbacks(deps, checkoutRequestId);
  const current = applied > 0 || !ack ? await payments.get(ctx.db, payment.id) : ack;
  if (!ack?.stored && current.checkoutRequestId !== checkoutRequestId) {
    deps.logger.error({ paymentId: payment.id, checkoutRequestId, stored: current.checkoutRequestId }, "could not store the CheckoutRequestID of an accepted STK push");
  }
  return {
    id: payment.id,
    checkoutRequestId,
    merchantRequestId,
    customerMessage: response.customerMessage || REPLAYED_CUSTOMER_MESSAGE,
    status: current.status as PaymentStatus,
  };
}

/** The stored answer for a payment; without Daraja's ids (outcome unknown) it is a 202. */
function storedAnswer(ctx: AuthedCtx, row: PaymentModel): StkPushAnswer {
  if (row.checkoutRequestId === null) {
    ctx.request.markAccepted();
    return { id: row.id, checkoutRequestId: null, merchantRequestId: null, status: row.status as PaymentStatus };
  }
  return {
    id: row.id,
    checkoutRequestId: row.checkoutRequestId,
    merchantRequestId: row.merchantRequestId,
    customerMessage: REPLAYED_CUSTOMER_MESSAGE,
    status: row.status as PaymentStatus,
  };
}
