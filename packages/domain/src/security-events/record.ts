/**
 * The one way a security event is written (docs/security-events.md). Pass the transaction of the
 * change the event reports, so the event exists exactly when the change committed; pass `ctx.db`
 * for events that change nothing else (a failed sign-in).
 */
import type { RawSql } from "@mteja/db";
import type { Context } from "./ports.js";
import { storedUserAgent } from "../shared/client-info.js";
import type { SecurityEventDetails, SecurityEventType } from "./event-types.js";

export interface SecurityEventInput {
  userId: string;
  type: SecurityEventType;
  details?: SecurityEventDetails;
}

export async function recordSecurityEvent(ctx: Context, writer: RawSql, tenantId: string, event: SecurityEventInput): Promise<void> {
  const userAgent = storedUserAgent(ctx.request.userAgent);
  // A plain statement: every sign-in writes one, and Prisma's model create costs several times its CPU
  // (docs/performance.md, "Sign-in"). The tenant is named, as the scoped client would.
  await writer.$executeRaw`INSERT INTO security_events (id, tenant_id, user_id, type, ip, user_agent, details, created_at)
    VALUES (${ctx.deps.random.uuid()}::uuid, ${tenantId}, ${event.userId}::uuid, ${event.type}, ${ctx.request.ip || null}, ${userAgent}, ${JSON.stringify(event.details ?? {})}::jsonb, ${ctx.deps.clock.now()})`;
}
