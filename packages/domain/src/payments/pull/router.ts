import { z } from "zod";
import { ok } from "../../shared/envelope.js";
import { adminApiProcedure, createTRPCRouter, serverProcedure } from "../../trpc.js";
import { pullNow } from "./pull-now.js";
import { registerPull } from "./pull-register.js";
import { pullNowInput, pullNowOutput, registerPullInput, registerPullOutput } from "./schemas.js";

/** Payments that never called back (docs/mpesa.md#recovery): Daraja's Pull Transactions. */
export const pullRouter = createTRPCRouter({
  register: adminApiProcedure
    .meta({
      openapi: {
        method: "POST",
        path: "/api/v1/admin/tenants/{id}/pull/register",
        tags: ["admin"],
        summary: "Register the shop's short code with Daraja's Pull Transactions API; the sweep then pulls it",
        description:
          "Once per short code (Daraja's 1001 \"already registered\" is success too). The sweep pulls the " +
          "short code's last 48 hours at its next run, then its latest window every MOMO_PULL_INTERVAL_SECONDS, and " +
          "applies each receipt no confirmation brought as the confirmation would have been.",
        errorResponses: {
          404: "NOT_FOUND (no tenant has this id)",
          422: "VALIDATION_ERROR (nominated_number not a Kenyan mobile number, or the shop has no own short code)",
          502: "PAYMENT_PROVIDER_ERROR (Daraja refused: e.g. the short code is not live, the app lacks Pull)",
          503: "PAYMENT_PROVIDER_UNAVAILABLE (M-Pesa or the pull callback URL not configured, or Daraja not reached)",
        },
      },
    })
    .input(registerPullInput)
    .output(registerPullOutput)
    .mutation(async ({ ctx, input }) => {
      return ok(await registerPull(ctx, input), "Short code registered for Pull Transactions.");
    }),

  now: serverProcedure
    .meta({
      // C2B is live money only in this release (docs/test-mode.md#live-only).
      liveOnly: true,
      openapi: {
        method: "POST",
        path: "/api/v1/c2b-payments/pull",
        tags: ["payment-intents"],
        summary: "Pull the shop's M-Pesa receipts of a window now and apply those no confirmation brought",
        description:
          "A window within the last 48 hours (default: all of them). Each receipt Mteja does not hold is applied " +
          "exactly as its C2B confirmation would have been (it pays the intent its account names, or is kept " +
          "unmatched); a receipt is never counted twice, whichever way it arrived. Daraja's \"no records\" answers " +
          "`{ pulled: 0, recovered: 0 }`.",
        requestHeaders: z.object({
          "x-tenant-id": z
            .string()
            .optional()
            .describe("Optional: the key names its tenant; when sent, it must be that tenant."),
        }),
        errorResponses: {
          401: "AUTH_REQUIRED or INVALID_TOKEN (a wrong or revoked API key)",
          403: "FORBIDDEN (a customer's access token instead of an API key, or a test key: live money only)",
          422: "VALIDATION_ERROR (from over 48 hours ago, to in the future or not after from; or no own short code)",
          502: "PAYMENT_PROVIDER_ERROR (Daraja refused the query)",
          503: "PAYMENT_PROVIDER_UNAVAILABLE (M-Pesa not configured, or Daraja not reached)",
        },
      },
    })
    .input(pullNowInput)
    .output(pullNowOutput)
    .mutation(async ({ ctx, input }) => ok(await pullNow(ctx, input))),
});
