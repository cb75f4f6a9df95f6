/**
 * The one way a security event is written (docs/security-events.md). Pass the transaction of the
 * change the event reports, so the event exists exactly when the change committed; pass `ctx.db`
 * for events that change nothing else (a failed sign-in).
 */
import { securityEvents, type RawSql } from "@mteja/db";
import type { Context } from "./ports.js";
import { storedUserAgent } from "../shared/client-info.js";
import type { SecurityEventDetails, SecurityEventType } from "./event-types.js";

export interface SecurityEventInput {
  userId: string;
  type: SecurityEventType;
  details?: SecurityEventDetails;
}

export async function recordSecurityEvent(ctx: Context, writer: RawSql, tenantId: string, event: SecurityEventInput): Promise<void> {
  await securityEvents.insert(writer, {
    id: ctx.deps.random.uuid(),
    tenantId,
    userId: event.userId,
    type: event.type,
    ip: ctx.request.ip || null,
    userAgent: storedUserAgent(ctx.request.userAgent),
    details: event.details ?? {},
    createdAt: ctx.deps.clock.now(),
  });
}
