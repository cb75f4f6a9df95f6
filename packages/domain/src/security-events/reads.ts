/** Pages of security events, newest first: the user's own (docs/security-events.md#reading-them). */
import { securityEvents, type Prisma } from "@mteja/db";
import { readKeysetPage } from "../shared/keyset-page.js";
import type { AuthedCtx } from "./ports.js";
import type { SecurityEventDetails, SecurityEventType } from "./event-types.js";
import type { AuditEventView, SecurityEventView } from "./schemas.js";

export interface SecurityEventRow {
  id: string;
  tenantId: string;
  userId: string;
  type: string;
  ip: string | null;
  userAgent: string | null;
  details: Prisma.JsonValue;
  createdAt: Date;
}

export interface PageRequest {
  limit: number;
  cursor?: string | undefined;
}

export function toSecurityEventView(row: SecurityEventRow): SecurityEventView {
  return {
    id: row.id,
    type: row.type as SecurityEventType,
    created_at: row.createdAt.toISOString(),
    ip: row.ip,
    user_agent: row.userAgent,
    details: (row.details ?? {}) as SecurityEventDetails,
  };
}

export function toAuditEventView(row: SecurityEventRow): AuditEventView {
  return { ...toSecurityEventView(row), tenant_id: row.tenantId, user_id: row.userId };
}

export async function listMySecurityEvents(ctx: AuthedCtx, page: PageRequest) {
  const { rows, nextCursor } = await readKeysetPage(page, ({ conditions, orderBy, take }) =>
    securityEvents.pageOfUser(ctx.db, ctx.auth.sub, { where: conditions, orderBy, take }),
  );
  return { security_events: rows.map(toSecurityEventView), next_cursor: nextCursor };
}
