import { z } from "zod";
import { ok } from "../../shared/envelope.js";
import { paymentIdInput, serverPaymentOutput } from "../../intents/schemas.js";
import { createTRPCRouter, serverOrAdminProcedure } from "../../trpc.js";
import { getRefund, listRefunds } from "./refund-reads.js";
import { requestRefund } from "./request-refund.js";
import { requestReversal } from "./request-reversal.js";
import { createRefundInput, listRefundsInput, refundIdInput, listRefundsOutput, refundOutput } from "./schemas.js";

const tags = ["payments"];
const tenantHeader = {
  "x-tenant-id": z
    .string()
    .optional()
    .describe("Optional: the credential names its tenant; when sent, it must be that tenant."),
};
const readHeaders = z.object(tenantHeader);
const credentialErrors = { 403: "FORBIDDEN (a customer's access token)" };
const providerErrors = {
  502: "PAYMENT_PROVIDER_ERROR (Daraja refused the request; the refund is failed and a new one may be made)",
  503: "PAYMENT_PROVIDER_UNAVAILABLE (Daraja was never reached, nothing was sent; or refunds not configured)",
};

/** Refunds (docs/mpesa.md#refunds): a shop gives back a successful payment, whole or in part. */
export const refundsRouter = createTRPCRouter({
  create: serverOrAdminProcedure
    .meta({
      acceptedDescription:
        "Accepted: the refund is stored and sent to Daraja (or its outcome is unknown): pending, then succeeded " +
        "or failed (refund.succeeded / refund.failed); unknown until a Transaction Status query settles it. A " +
        "retry with the same Idempotency-Key answers this refund again.",
      openapi: {
        method: "POST",
        path: "/api/v1/payments/{id}/refunds",
        tags,
        summary: "Refund a successful payment, whole or in part",
        description:
          "Takes an API key, or the access token of a user with role admin. The whole payment, when nothing of " +
          "it was refunded before and it has an M-Pesa receipt, goes back by Daraja's Reversal; anything else " +
          "by B2C to the payer's phone from the shop's B2C account (needs settings.momo.b2c.enabled; counts " +
          "toward the shop's B2C daily limit with its payouts). The refunds of a payment that are not failed " +
          "never add up to more than it.",
        requestHeaders: z.object({
          ...tenantHeader,
          "idempotency-key": z
            .string()
            .describe(
              "Required, 1-255 visible ASCII characters (e.g. a UUID). A retry with the same key answers the " +
                "first refund again, never a second one; the same key with a different body is a VALIDATION_ERROR.",
            ),
        }),
        errorResponses: {
          ...credentialErrors,
          404: "NOT_FOUND (no payment of this shop has this id)",
          409:
            "PAYMENT_NOT_REFUNDABLE (the payment is not SUCCESS; a part of a payment whose phone is not stored " +
            "in full; neither a receipt nor the payer's full phone; a refund by B2C under 10 shillings)",
          422:
            "VALIDATION_ERROR (no Idempotency-Key, or one used with another body; an amount over what remains, " +
            "or over the shop's B2C daily limit)",
          ...providerErrors,
        },
      },
    })
    .input(createRefundInput)
    .output(refundOutput)
    .mutation(async ({ ctx, input }) => ok(await requestRefund(ctx, input), "Refund requested.")),

  get: serverOrAdminProcedure
    .meta({
      openapi: {
        method: "GET",
        path: "/api/v1/refunds/{id}",
        tags,
        summary: "One refund of the shop",
        requestHeaders: readHeaders,
        errorResponses: { ...credentialErrors, 404: "NOT_FOUND (no refund of this shop has this id)" },
      },
    })
    .input(refundIdInput)
    .output(refundOutput)
    .query(async ({ ctx, input }) => ok(await getRefund(ctx, input.id))),

  list: serverOrAdminProcedure
    .meta({
      openapi: {
        method: "GET",
        path: "/api/v1/payments/{id}/refunds",
        tags,
        summary: "The refunds of a payment, newest first",
        requestHeaders: readHeaders,
        errorResponses: {
          ...credentialErrors,
          404: "NOT_FOUND (no payment of this shop has this id)",
          422: "VALIDATION_ERROR",
        },
      },
    })
    .input(listRefundsInput)
    .output(listRefundsOutput)
    .query(async ({ ctx, input }) => ok(await listRefunds(ctx, input))),
});

/**
 * The second release's reversal (docs/mpesa.md#reversals): now a refund of the whole payment, deprecated
 * for refundsRouter.create.
 */
export const reversalsRouter = createTRPCRouter({
  create: serverOrAdminProcedure
    .meta({
      deprecated: { since: "2026-12-01", sunset: "2027-06-01", replacement: "POST /api/v1/payments/{id}/refunds" },
      acceptedDescription:
        "Accepted: the reversal is stored and sent to Daraja (or its outcome is unknown); the payment's " +
        "`reversal` shows it (PENDING, then SUCCESS or FAILED; UNKNOWN until a Transaction Status query settles " +
        "it). A retry with the same Idempotency-Key answers this again.",
      openapi: {
        method: "POST",
        path: "/api/v1/payments/{id}/reversal",
        tags,
        summary: "Reverse a successful payment (the whole amount paid): a refund by reversal",
        description:
          "Takes an API key, or the access token of a user with role admin. A refund of the whole payment by " +
          "Daraja's Reversal (it is listed with the payment's refunds, and sends refund.succeeded or " +
          "refund.failed besides payment.reversed). While any refund of the payment is PENDING, UNKNOWN or " +
          "SUCCESS another reversal is refused; after a FAILED one a new one may be made.",
        requestHeaders: z.object({
          ...tenantHeader,
          "idempotency-key": z
            .string()
            .optional()
            .describe(
              "Optional, 1-255 visible ASCII characters. A retry with the same key answers the first request's " +
                "payment again; the same key for another payment is a VALIDATION_ERROR.",
            ),
        }),
        errorResponses: {
          ...credentialErrors,
          404: "NOT_FOUND (no payment of this shop has this id)",
          409:
            "REVERSAL_EXISTS (a refund of the payment is PENDING, UNKNOWN or SUCCESS) or PAYMENT_NOT_REVERSIBLE " +
            "(the payment is not SUCCESS with a receipt)",
          422: "VALIDATION_ERROR (also an Idempotency-Key used for another payment's reversal)",
          502: "PAYMENT_PROVIDER_ERROR (Daraja refused the reversal; a new one may be made)",
          503: "PAYMENT_PROVIDER_UNAVAILABLE (Daraja was never reached, nothing was sent; or reversals not configured)",
        },
      },
    })
    .input(paymentIdInput)
    .output(serverPaymentOutput)
    .mutation(async ({ ctx, input }) => ok(await requestReversal(ctx, input.id), "Reversal requested.")),
});
