import type { AuthedCtx } from "./ports.js";

/** A customer sees their own payments; an admin sees every payment of the tenant. */
export function isAdmin(ctx: AuthedCtx): boolean {
  return ctx.auth.role === "admin";
}
