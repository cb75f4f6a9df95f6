import { z } from "zod";
import { ok } from "../../shared/envelope.js";
import { createTRPCRouter, serverProcedure } from "../../trpc.js";
import { intentQr } from "./intent-qr.js";
import { intentQrInput, intentQrOutput } from "./schemas.js";

/** Pay by QR (docs/payment-intents.md#pay-by-qr): an intent's QR code from Daraja's Dynamic QR API. */
export const qrRouter = createTRPCRouter({
  intent: serverProcedure
    .meta({
      // C2B is live money only in this release (docs/test-mode.md#live-only).
      liveOnly: true,
      openapi: {
        method: "POST",
        path: "/api/v1/payment-intents/{id}/qr",
        tags: ["payment-intents"],
        summary: "The QR code a customer scans in the M-Pesa app to pay the intent (Daraja's Dynamic QR)",
        description:
          "A paybill QR code (trx_code PB) for the intent's amount, carrying its reference as the account, to the " +
          "shop's paybill short code. The payment made by scanning arrives as a C2B confirmation and pays the intent " +
          "(follow it as for any payment: webhooks, GET the intent). Show it beside \"pay from the M-Pesa menu\" " +
          "(paybill and account number).",
        requestHeaders: z.object({
          "x-tenant-id": z
            .string()
            .optional()
            .describe("Optional: the key names its tenant; when sent, it must be that tenant."),
        }),
        errorResponses: {
          401: "AUTH_REQUIRED or INVALID_TOKEN (a wrong or revoked API key)",
          403: "FORBIDDEN (a customer's access token instead of an API key, or a test key: live money only)",
          404: "NOT_FOUND (no payment intent of the shop has this id)",
          409: "INTENT_NOT_PAYABLE (the intent is not requires_payment: processing, succeeded, cancelled or expired)",
          422: "VALIDATION_ERROR (size out of range; or the shop is paid through a till only: no reference to match)",
          502: "PAYMENT_PROVIDER_ERROR (Daraja refused the request)",
          503: "PAYMENT_PROVIDER_UNAVAILABLE (M-Pesa not configured, or Daraja not reached)",
        },
      },
    })
    .input(intentQrInput)
    .output(intentQrOutput)
    .mutation(async ({ ctx, input }) => ok(await intentQr(ctx, input))),
});
