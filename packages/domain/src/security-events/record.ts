/**
 * The one way a security event is written (docs/security-events.md). Pass the transaction of the
 * change the event reports, so the event exists exactly when the change committed; pass `ctx.db`
 * for events that change nothing else (a failed sign-in).
 */
import type { TenantDb, TenantTx } from "@mteja/db";
import type { Context } from "../context.js";
import type { SecurityEventDetails, SecurityEventType } from "./event-types.js";

export interface SecurityEventInput {
  userId: string;
  type: SecurityEventType;
  details?: SecurityEventDetails;
}

/** The request's client, as stored with the event; user agents are cut to the length sessions keep. */
const userAgentMaxLength = 512;

export async function recordSecurityEvent(ctx: Context, writer: TenantTx | TenantDb, tenantId: string, event: SecurityEventInput): Promise<void> {
  await (writer as TenantTx).securityEvent.create({
    data: {
      id: ctx.deps.random.uuid(),
      tenantId,
      userId: event.userId,
      type: event.type,
      ip: ctx.request.ip || null,
      userAgent: ctx.request.userAgent?.slice(0, userAgentMaxLength) ?? null,
      details: event.details ?? {},
      createdAt: ctx.deps.clock.now(),
    },
  });
}
