import { ok } from "../../shared/envelope.js";
import { adminApiProcedure, createTRPCRouter } from "../../trpc.js";
import { latestBalance } from "./balance-reads.js";
import { requestBalance } from "./request-balance.js";
import { balanceOutput, balanceTenantInput, requestBalanceOutput } from "./schemas.js";

const notConfigured =
  "PAYMENT_PROVIDER_UNAVAILABLE (M-Pesa or its balance callback URLs not configured, the shop has no B2C initiator, " +
  "or Daraja not reached)";

/** Account balance (docs/mpesa.md#account-balance): the balance of a shop's B2C short code, asked of Daraja. */
export const balanceRouter = createTRPCRouter({
  request: adminApiProcedure
    .meta({
      acceptedDescription:
        "Accepted: the request is stored and sent to Daraja; its result arrives by callback (GET the balance to " +
        "see it).",
      openapi: {
        method: "POST",
        path: "/api/v1/admin/tenants/{id}/balance",
        tags: ["admin"],
        summary: "Ask Daraja for the balance of the shop's B2C short code (Account Balance)",
        errorResponses: {
          404: "NOT_FOUND (no tenant has this id)",
          502: "PAYMENT_PROVIDER_ERROR (Daraja refused the request)",
          503: notConfigured,
        },
      },
    })
    .input(balanceTenantInput)
    .output(requestBalanceOutput)
    .mutation(async ({ ctx, input }) => ok(await requestBalance(ctx, input.id), "Balance requested.")),

  latest: adminApiProcedure
    .meta({
      openapi: {
        method: "GET",
        path: "/api/v1/admin/tenants/{id}/balance",
        tags: ["admin"],
        summary: "The shop's latest balance request: its status and, once it succeeded, each account's amounts",
        errorResponses: { 404: "NOT_FOUND (no tenant has this id, or it never asked for its balance)" },
      },
    })
    .input(balanceTenantInput)
    .output(balanceOutput)
    .query(async ({ ctx, input }) => ok(await latestBalance(ctx, input.id))),
});
