/**
 * The shop the admin API's path names (`/api/v1/admin/tenants/{id}/balance`), with its client scoped to
 * that tenant and to live money (the balance is live only: docs/test-mode.md#live-only): the admin key
 * belongs to no tenant, so the procedure's context carries none.
 */
import type { TenantDb } from "@mteja/db";
import { DomainError } from "../../shared/errors.js";
import type { Tenant } from "../../shared/tenant.js";
import { liveMoney } from "../shared/money-mode.js";
import type { Context } from "../shared/ports.js";

export async function tenantNamed(ctx: Context, id: string): Promise<{ tenant: Tenant; db: TenantDb }> {
  const tenant = await ctx.deps.tenants.find(id);
  if (!tenant) throw new DomainError("NOT_FOUND", "not_found.tenant");
  return { tenant, db: ctx.deps.db.forTenant(tenant.id, liveMoney) };
}
