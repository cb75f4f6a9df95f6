import { z } from "zod";
import { ok } from "../shared/envelope.js";
import { adminProcedure, createTRPCRouter, protectedProcedure } from "../trpc.js";
import { b2cPayout } from "./payouts/b2c.js";
import { getPayment, listPayments } from "./stk/payment-reads.js";
import { openPaymentStatusStream } from "./payment-status-stream.js";
import { getPayout, listPayouts } from "./payouts/payout-reads.js";
import {
  b2cInput,
  b2cOutput,
  getPaymentInput,
  getPaymentOutput,
  getPayoutInput,
  getPayoutOutput,
  listPaymentsInput,
  listPaymentsOutput,
  listPayoutsInput,
  listPayoutsOutput,
  stkPushInput,
  stkPushOutput,
  stkQueryInput,
  stkQueryOutput,
} from "./shared/schemas.js";
import { stkPush } from "./stk/stk-push.js";
import { stkQuery } from "./stk/stk-query.js";

const tags = ["momo"];

/** The tenant comes from the access token; X-Tenant-ID may be sent and must then match (docs/tenants.md#x-tenant-id). */
const tenantHeader = {
  "x-tenant-id": z.string().optional().describe("Optional; when sent it must be the access token's tenant."),
};
const idempotentHeaders = z.object({
  ...tenantHeader,
  "idempotency-key": z
    .string()
    .optional()
    .describe("Optional, 1-255 visible ASCII characters (e.g. a UUID). A retry with the same key answers the first result instead of starting a second request; the same key with a different body is a VALIDATION_ERROR."),
});
const readHeaders = z.object(tenantHeader);

const authErrors = { 401: "AUTH_REQUIRED or INVALID_TOKEN" };
const providerErrors = {
  502: "PAYMENT_PROVIDER_ERROR (Daraja refused the request; its errorCode/errorMessage in error.details)",
  503: "PAYMENT_PROVIDER_UNAVAILABLE (Daraja was never reached: no connection or no OAuth token, nothing was sent; or M-Pesa not configured)",
};

export const paymentsRouter = createTRPCRouter({
  stkPush: protectedProcedure
    .meta({
      guestAllowed: true,
      acceptedDescription:
        "Accepted, outcome unknown: Daraja's answer proved nothing (a gateway error, a 5xx, a time-out after sending). The prompt may be on the phone; the payment stays PENDING with checkoutRequestId and merchantRequestId null and is settled by its callback, or becomes TIMEOUT. It is never sent again; a retry with the same Idempotency-Key answers this again.",
      openapi: {
        method: "POST",
        path: "/api/momo/stkpush",
        tags,
        summary: "Send a payment prompt (STK push) to the customer's phone",
        description:
          "The result arrives later through the payment callback; follow it with stkquery, GET /api/momo/payments/{checkoutRequestId} or the tRPC subscription payments.onStatus. At most 10 prompts per customer per minute, and 3 per minute and 10 per hour to one phone number of the shop (429 RATE_LIMITED). 202 (ids null, status PENDING): Daraja's answer proved nothing; the prompt may be on the phone and is settled by its callback or becomes TIMEOUT. It is never sent again.",
        requestHeaders: idempotentHeaders,
        errorResponses: {
          ...authErrors,
          404: "NOT_FOUND (intent_id names no payment intent of the shop, or one bound to another customer)",
          409: "INTENT_NOT_PAYABLE (the payment intent is processing, succeeded, cancelled or expired)",
          422: "VALIDATION_ERROR (also an amount that differs from the intent's, or no intent_id while the shop requires one)",
          429: "RATE_LIMITED (Retry-After set)",
          ...providerErrors,
        },
      },
    })
    .input(stkPushInput)
    .output(stkPushOutput)
    .mutation(async ({ ctx, input }) => ok(await stkPush(ctx, input), "Payment prompt sent.")),

  stkQuery: protectedProcedure
    .meta({
      guestAllowed: true,
      openapi: {
        method: "POST",
        path: "/api/momo/stkquery",
        tags,
        summary: "A payment's status (asked of Daraja while it is pending)",
        description: "At most 30 queries per customer per minute (429 RATE_LIMITED).",
        requestHeaders: readHeaders,
        errorResponses: { ...authErrors, 404: "NOT_FOUND (no such payment, or another customer's)", 422: "VALIDATION_ERROR", 429: "RATE_LIMITED (Retry-After set)", ...providerErrors },
      },
    })
    .input(stkQueryInput)
    .output(stkQueryOutput)
    .mutation(async ({ ctx, input }) => ok(await stkQuery(ctx, input.checkoutRequestId))),

  b2c: adminProcedure
    .meta({
      acceptedDescription:
        "Accepted, outcome unknown: Daraja's answer proved nothing (a gateway error, a 5xx, a time-out after sending). The payout is UNKNOWN (conversationId null) and is settled by a Transaction Status query. Never send it again: a retry with the same Idempotency-Key answers this again.",
      openapi: {
        method: "POST",
        path: "/api/momo/b2c",
        tags,
        summary: "Send a payout (B2C) to a phone (admin only)",
        description:
          "The result and time-out arrive later through the B2C callbacks. 202 (status UNKNOWN): Daraja's answer proved nothing (a time-out after sending, a 5xx or gateway page); the payout is settled by a Transaction Status query and is never re-sent automatically.",
        requestHeaders: idempotentHeaders,
        errorResponses: { ...authErrors, 403: "FORBIDDEN (not an admin)", 422: "VALIDATION_ERROR", ...providerErrors },
      },
    })
    .input(b2cInput)
    .output(b2cOutput)
    .mutation(async ({ ctx, input }) => ok(await b2cPayout(ctx, input), "Payout request accepted.")),

  list: protectedProcedure
    .meta({
      guestAllowed: true,
      openapi: {
        method: "GET",
        path: "/api/momo/payments",
        tags,
        summary: "Payments, newest first (a customer's own; every payment of the tenant for an admin)",
        requestHeaders: readHeaders,
        errorResponses: { ...authErrors, 422: "VALIDATION_ERROR" },
      },
    })
    .input(listPaymentsInput)
    .output(listPaymentsOutput)
    .query(async ({ ctx, input }) => ok(await listPayments(ctx, input))),

  get: protectedProcedure
    .meta({
      guestAllowed: true,
      openapi: {
        method: "GET",
        path: "/api/momo/payments/{checkoutRequestId}",
        tags,
        summary: "One payment, from the store",
        requestHeaders: readHeaders,
        errorResponses: { ...authErrors, 404: "NOT_FOUND (no such payment, or another customer's)" },
      },
    })
    .input(getPaymentInput)
    .output(getPaymentOutput)
    .query(async ({ ctx, input }) => ok(await getPayment(ctx, input.checkoutRequestId))),

  listPayouts: adminProcedure
    .meta({
      openapi: {
        method: "GET",
        path: "/api/momo/payouts",
        tags,
        summary: "Payouts (B2C) of the tenant, newest first (admin only)",
        requestHeaders: readHeaders,
        errorResponses: { ...authErrors, 403: "FORBIDDEN (not an admin)", 422: "VALIDATION_ERROR" },
      },
    })
    .input(listPayoutsInput)
    .output(listPayoutsOutput)
    .query(async ({ ctx, input }) => ok(await listPayouts(ctx, input))),

  getPayout: adminProcedure
    .meta({
      openapi: {
        method: "GET",
        path: "/api/momo/payouts/{originatorConversationId}",
        tags,
        summary: "One payout and its result, from the store (admin only)",
        requestHeaders: readHeaders,
        errorResponses: { ...authErrors, 403: "FORBIDDEN (not an admin)", 404: "NOT_FOUND (no such payout in this tenant)" },
      },
    })
    .input(getPayoutInput)
    .output(getPayoutOutput)
    .query(async ({ ctx, input }) => ok(await getPayout(ctx, input.originatorConversationId))),

  /** tRPC only (SSE; httpSubscriptionLink): the payment's status, then each change until it is terminal. */
  onStatus: protectedProcedure.meta({ guestAllowed: true }).input(getPaymentInput).subscription(({ ctx, input, signal }) => openPaymentStatusStream(ctx, input.checkoutRequestId, signal)),
});
