import type { Context } from "../context.js";
import type { AccessClaims } from "../auth/tokens/access-tokens.js";
import type { Tenant } from "../tenants/directory.js";

/** A momo procedure's context: the tenant comes from the access token (docs/tenants.md#x-tenant-id). */
export type MomoCtx = Context & { tenant: Tenant; auth: AccessClaims };

export function isAdmin(ctx: MomoCtx): boolean {
  return ctx.auth.role === "admin";
}
