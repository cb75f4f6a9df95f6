/**
 * The operator's audit (GET /api/v1/admin/audit, ADMIN_API_KEY): every tenant's security events, or
 * one tenant's. Crossing tenants is the point of it, hence the unscoped client.
 */
import { securityEvents } from "@mteja/db";
import type { Context } from "./ports.js";
import { readKeysetPage } from "../shared/keyset-page.js";
import { toAuditEventView, type PageRequest } from "./reads.js";

export async function listAudit(ctx: Context, input: PageRequest & { tenant?: string | undefined }) {
  const { rows, nextCursor } = await readKeysetPage(input, ({ conditions, orderBy, take }) =>
    securityEvents.pageOf(ctx.deps.db.unscoped("admin-api"), input.tenant, { where: conditions, orderBy, take }),
  );
  return { security_events: rows.map(toAuditEventView), next_cursor: nextCursor };
}
