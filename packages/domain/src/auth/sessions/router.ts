/** The devices page's procedures (docs/sessions.md#devices), spread into the auth router. */
import { nullData, ok } from "../../shared/envelope.js";
import { noInput, tenantHeaders } from "../../shared/fields.js";
import { authProcedure } from "../../trpc.js";
import { listDevices, revokeDevice, revokeOtherDevices } from "./devices.js";
import { listSessionsInput, listSessionsOutput, revokeOthersOutput, revokeSessionInput } from "./schemas.js";

const tags = ["auth"];

export const deviceProcedures = {
  listSessions: authProcedure
    .meta({
      openapi: {
        method: "GET",
        path: "/api/v1/auth/sessions",
        tags,
        summary: "The signed-in customer's live sessions (devices), newest first",
        requestHeaders: tenantHeaders,
        errorResponses: { 401: "AUTH_REQUIRED or INVALID_TOKEN", 422: "VALIDATION_ERROR (a bad limit or cursor)" },
      },
    })
    .input(listSessionsInput)
    .output(listSessionsOutput)
    .query(async ({ ctx, input }) => ok(await listDevices(ctx, input))),

  revokeSession: authProcedure
    .meta({
      openapi: {
        method: "DELETE",
        path: "/api/v1/auth/sessions/{id}",
        tags,
        summary: "End one of the customer's sessions: its access tokens and refresh cookie stop working at once",
        requestHeaders: tenantHeaders,
        errorResponses: { 401: "AUTH_REQUIRED or INVALID_TOKEN", 404: "NOT_FOUND (no live session of this customer has this id)", 422: "VALIDATION_ERROR" },
      },
    })
    .input(revokeSessionInput)
    .output(nullData)
    .mutation(async ({ ctx, input }) => {
      await revokeDevice(ctx, input.id);
      return ok(null, "Session ended.");
    }),

  revokeOtherSessions: authProcedure
    .meta({
      openapi: {
        method: "POST",
        path: "/api/v1/auth/sessions/revoke-others",
        tags,
        summary: "End every session of the customer except this one",
        requestHeaders: tenantHeaders,
        errorResponses: { 401: "AUTH_REQUIRED or INVALID_TOKEN" },
      },
    })
    .input(noInput)
    .output(revokeOthersOutput)
    .mutation(async ({ ctx }) => ok(await revokeOtherDevices(ctx), "Other sessions ended.")),
};
