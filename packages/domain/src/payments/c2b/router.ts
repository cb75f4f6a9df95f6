import { z } from "zod";
import { ok } from "../../shared/envelope.js";
import { adminApiProcedure, createTRPCRouter, serverProcedure } from "../../trpc.js";
import { listC2bPayments } from "./c2b-reads.js";
import { registerC2b } from "./c2b-register.js";
import { listC2bPaymentsInput, listC2bPaymentsOutput, registerC2bInput, registerC2bOutput } from "./schemas.js";

/** C2B: customers pay the paybill or till from the M-Pesa menu (docs/mpesa.md#c2b). */
export const c2bRouter = createTRPCRouter({
  register: adminApiProcedure
    .meta({
      openapi: {
        method: "POST",
        path: "/api/v1/admin/tenants/{id}/c2b/register",
        tags: ["admin"],
        summary: "Register the shop's C2B validation and confirmation URLs with Daraja (C2B v2 register URL)",
        errorResponses: {
          404: "NOT_FOUND (no tenant has this id)",
          422: "VALIDATION_ERROR (the shop has no short code of its own; only the default tenant uses MOMO_SHORTCODE)",
          502: "PAYMENT_PROVIDER_ERROR (Daraja refused, e.g. URLs already registered in production)",
          503: "PAYMENT_PROVIDER_UNAVAILABLE (M-Pesa not configured, or Daraja not reached)",
        },
      },
    })
    .input(registerC2bInput)
    .output(registerC2bOutput)
    .mutation(async ({ ctx, input }) => ok(await registerC2b(ctx, input), "C2B URLs registered.")),

  list: serverProcedure
    .meta({
      // C2B is live money only in this release (docs/test-mode.md#live-only).
      liveOnly: true,
      openapi: {
        method: "GET",
        path: "/api/v1/c2b-payments",
        tags: ["payment-intents"],
        summary: "The shop's C2B payments (paid from the M-Pesa menu), newest first; ?status=unmatched lists those no intent took",
        requestHeaders: z.object({ "x-tenant-id": z.string().optional().describe("Optional: the key names its tenant; when sent, it must be that tenant.") }),
        errorResponses: {
          401: "AUTH_REQUIRED or INVALID_TOKEN (a wrong or revoked API key)",
          403: "FORBIDDEN (a customer's access token instead of an API key, or a test key: live money only)",
          422: "VALIDATION_ERROR",
        },
      },
    })
    .input(listC2bPaymentsInput)
    .output(listC2bPaymentsOutput)
    .query(async ({ ctx, input }) => ok(await listC2bPayments(ctx, input))),
});
