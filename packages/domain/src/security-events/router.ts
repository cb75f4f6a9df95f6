import { ok } from "../shared/envelope.js";
import { tenantHeaders } from "../shared/fields.js";
import { adminApiProcedure, authProcedure, createTRPCRouter } from "../trpc.js";
import { listAudit } from "./audit.js";
import { listMySecurityEvents } from "./reads.js";
import { listAuditInput, listAuditOutput, listMySecurityEventsInput, listMySecurityEventsOutput } from "./schemas.js";

/** Security events (docs/security-events.md): the customer's own, and the operator's audit. */
export const securityEventsRouter = createTRPCRouter({
  mine: authProcedure
    .meta({
      openapi: {
        method: "GET",
        path: "/api/v1/auth/me/security-events",
        tags: ["profile"],
        summary: "The signed-in customer's security events (sign-ins, password and two-factor changes, revocations), newest first",
        requestHeaders: tenantHeaders,
        errorResponses: { 401: "AUTH_REQUIRED or INVALID_TOKEN", 422: "VALIDATION_ERROR (a bad limit or cursor)" },
      },
    })
    .input(listMySecurityEventsInput)
    .output(listMySecurityEventsOutput)
    .query(async ({ ctx, input }) => ok(await listMySecurityEvents(ctx, input))),

  audit: adminApiProcedure
    .meta({
      openapi: {
        method: "GET",
        path: "/api/v1/admin/audit",
        tags: ["admin"],
        summary: "Security events of every tenant's customers, or of one tenant's (?tenant=), newest first",
        errorResponses: { 401: "AUTH_REQUIRED or INVALID_TOKEN (ADMIN_API_KEY)", 422: "VALIDATION_ERROR (a bad tenant, limit or cursor)" },
      },
    })
    .input(listAuditInput)
    .output(listAuditOutput)
    .query(async ({ ctx, input }) => ok(await listAudit(ctx, input))),
});
