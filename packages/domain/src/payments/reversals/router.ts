import { z } from "zod";
import { ok } from "../../shared/envelope.js";
import { paymentIdInput, serverPaymentOutput } from "../../intents/schemas.js";
import { createTRPCRouter, serverOrAdminProcedure } from "../../trpc.js";
import { requestReversal } from "./request-reversal.js";

const headers = z.object({
  "x-tenant-id": z.string().optional().describe("Optional: the credential names its tenant; when sent, it must be that tenant."),
  "idempotency-key": z
    .string()
    .optional()
    .describe("Optional, 1-255 visible ASCII characters. A retry with the same key answers the first request's payment again; the same key for another payment is a VALIDATION_ERROR."),
});

/** Reversals (docs/mpesa.md#reversals): a shop gives back a successful payment. */
export const reversalsRouter = createTRPCRouter({
  create: serverOrAdminProcedure
    .meta({
      acceptedDescription:
        "Accepted: the reversal is stored and sent to Daraja (or its outcome is unknown); the payment's `reversal` shows it (PENDING, then SUCCESS or FAILED; UNKNOWN until a Transaction Status query settles it). A retry with the same Idempotency-Key answers this again.",
      openapi: {
        method: "POST",
        path: "/api/v1/payments/{id}/reversal",
        tags: ["payments"],
        summary: "Reverse a successful payment (the whole amount paid)",
        description:
          "Takes an API key, or the access token of a user with role admin. One reversal per payment: while one is PENDING, UNKNOWN or SUCCESS another is refused; after a FAILED one a new one may be made. `payment.reversed` is sent when it succeeds.",
        requestHeaders: headers,
        errorResponses: {
          403: "FORBIDDEN (a customer's access token)",
          404: "NOT_FOUND (no payment of this shop has this id)",
          409: "REVERSAL_EXISTS (a reversal is PENDING, UNKNOWN or SUCCESS) or PAYMENT_NOT_REVERSIBLE (the payment is not SUCCESS with a receipt)",
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
