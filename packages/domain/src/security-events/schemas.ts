import { z } from "zod";
import { envelope } from "../shared/envelope.js";
import { pageFields } from "../shared/fields.js";
import { tenantIdSchema } from "../shared/tenant-settings.js";
import { SECURITY_EVENT_TYPES } from "./event-types.js";

export const listMySecurityEventsInput = z.object(pageFields);

export const listAuditInput = z.object({
  tenant: tenantIdSchema.optional().describe("Only this tenant's events (default: every tenant's)."),
  ...pageFields,
});

export const securityEventView = z.object({
  id: z.string(),
  type: z.enum(SECURITY_EVENT_TYPES),
  created_at: z.string(),
  ip: z.string().nullable(),
  user_agent: z.string().nullable(),
  details: z.record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.null()])),
});

export const auditEventView = securityEventView.extend({ tenant_id: z.string(), user_id: z.string() });

export type SecurityEventView = z.infer<typeof securityEventView>;
export type AuditEventView = z.infer<typeof auditEventView>;

export const listMySecurityEventsOutput = envelope(z.object({ security_events: z.array(securityEventView), next_cursor: z.string().nullable() }));
export const listAuditOutput = envelope(z.object({ security_events: z.array(auditEventView), next_cursor: z.string().nullable() }));
