import { nullData, ok } from "../shared/envelope.js";
import { noInput, tenantHeaders } from "../shared/fields.js";
import { authProcedure, createTRPCRouter } from "../trpc.js";
import { eraseMyAccount } from "./erasure.js";
import { exportMyData } from "./export.js";
import { eraseAccountInput, exportOutput } from "./schemas.js";

const tags = ["profile"];

/** The customer's rights over their data (docs/data-rights.md): a copy of it, and erasure. */
export const dataRightsRouter = createTRPCRouter({
  exportMyData: authProcedure
    .meta({
      stepUp: "always",
      openapi: {
        method: "GET",
        path: "/api/v1/auth/me/export",
        tags,
        summary: "Everything held on the signed-in customer, as JSON (Cache-Control: no-store); the customer is told by mail",
        requestHeaders: tenantHeaders,
        errorResponses: { 401: "AUTH_REQUIRED or INVALID_TOKEN" },
      },
    })
    .input(noInput)
    .output(exportOutput)
    .query(async ({ ctx }) => ok(await exportMyData(ctx))),

  eraseMyAccount: authProcedure
    .meta({
      stepUp: { orBodyProof: "password" },
      openapi: {
        method: "DELETE",
        path: "/api/v1/auth/me",
        tags,
        summary: "Erase the account: personal data removed, sessions ended; payments kept with the phone masked",
        description: "Needs the password, and `code` (authenticator or recovery code) while two-factor is on. The email may register again afterwards.",
        requestHeaders: tenantHeaders,
        errorResponses: {
          401: "INVALID_CREDENTIALS (wrong password), INVALID_OTP (wrong code), AUTH_REQUIRED or INVALID_TOKEN",
          422: "VALIDATION_ERROR (code missing while two-factor is on)",
          429: "RATE_LIMITED (too many wrong passwords or codes for the account)",
        },
      },
    })
    .input(eraseAccountInput)
    .output(nullData)
    .mutation(async ({ ctx, input }) => {
      await eraseMyAccount(ctx, input);
      return ok(null, "Account deleted.");
    }),
});
