import { z } from "zod";
import { ok } from "../shared/envelope.js";
import { createTRPCRouter, serverProcedure } from "../trpc.js";
import {
  createIntentInput,
  intentIdInput,
  intentOutput,
  listIntentsInput,
  listIntentsOutput,
  paymentIdInput,
  serverPaymentOutput,
} from "./schemas.js";
import { getServerPayment } from "./server-payments.js";
import { cancelIntent, createIntent, getIntent, listIntents } from "./service.js";

const tags = ["payment-intents"];
const tenantHeader = { "x-tenant-id": z.string().optional().describe("Optional: the key names its tenant; when sent, it must be that tenant.") };
const readHeaders = z.object(tenantHeader);
const createHeaders = z.object({
  ...tenantHeader,
  "idempotency-key": z
    .string()
    .optional()
    .describe("Optional, 1-255 visible ASCII characters. A retry with the same key and body answers the same intent; the same key with a different body is a VALIDATION_ERROR."),
});
const keyErrors = {
  401: "AUTH_REQUIRED or INVALID_TOKEN (a wrong or revoked API key, or X-Tenant-ID names another tenant)",
  403: "FORBIDDEN (a customer's access token instead of an API key)",
};
const notFound = { 404: "NOT_FOUND (no payment intent of this shop has this id)" };

/** Payment intents (docs/payment-intents.md): the shop's server fixes what is owed; a customer pays it with stkpush. */
export const intentsRouter = createTRPCRouter({
  create: serverProcedure
    .meta({
      successStatus: 201,
      openapi: {
        method: "POST",
        path: "/api/v1/payment-intents",
        tags,
        summary: "Create a payment intent: the amount an order costs, paid by the customer with stkpush { phone, intent_id }",
        requestHeaders: createHeaders,
        errorResponses: {
          ...keyErrors,
          409: "REFERENCE_IN_USE (another intent of the shop that requires payment or is processing has this reference, case-insensitively)",
          422: "VALIDATION_ERROR (also a reused Idempotency-Key with another body, or a user_id that is not a customer of the shop)",
        },
      },
    })
    .input(createIntentInput)
    .output(intentOutput)
    .mutation(async ({ ctx, input }) => ok(await createIntent(ctx, input), "Payment intent created.")),

  get: serverProcedure
    .meta({
      openapi: {
        method: "GET",
        path: "/api/v1/payment-intents/{id}",
        tags,
        summary: "One payment intent, with its payments",
        requestHeaders: readHeaders,
        errorResponses: { ...keyErrors, ...notFound },
      },
    })
    .input(intentIdInput)
    .output(intentOutput)
    .query(async ({ ctx, input }) => ok(await getIntent(ctx, input.id))),

  list: serverProcedure
    .meta({
      openapi: {
        method: "GET",
        path: "/api/v1/payment-intents",
        tags,
        summary: "The shop's payment intents, newest first",
        requestHeaders: readHeaders,
        errorResponses: { ...keyErrors, 422: "VALIDATION_ERROR" },
      },
    })
    .input(listIntentsInput)
    .output(listIntentsOutput)
    .query(async ({ ctx, input }) => ok(await listIntents(ctx, input))),

  cancel: serverProcedure
    .meta({
      openapi: {
        method: "POST",
        path: "/api/v1/payment-intents/{id}/cancel",
        tags,
        summary: "Cancel a payment intent that requires payment (one already cancelled or expired is answered as it is)",
        requestHeaders: readHeaders,
        errorResponses: { ...keyErrors, ...notFound, 409: "INTENT_NOT_CANCELLABLE (the intent is processing or succeeded)" },
      },
    })
    .input(intentIdInput)
    .output(intentOutput)
    .mutation(async ({ ctx, input }) => ok(await cancelIntent(ctx, input.id), "Payment intent cancelled.")),

  getPayment: serverProcedure
    .meta({
      openapi: {
        method: "GET",
        path: "/api/v1/payments/{id}",
        tags,
        summary: "One payment of the shop (its id, as in an intent's payments)",
        requestHeaders: readHeaders,
        errorResponses: { ...keyErrors, 404: "NOT_FOUND (no payment of this shop has this id)" },
      },
    })
    .input(paymentIdInput)
    .output(serverPaymentOutput)
    .query(async ({ ctx, input }) => ok(await getServerPayment(ctx, input.id))),
});
