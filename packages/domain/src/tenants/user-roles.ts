import type { TenantPorts } from "./ports.js";
import { revokeUserSessions } from "../auth/sessions/sessions.js";

export interface RoleChange {
  id: string;
  email: string | null;
  role: string | null;
}

/**
 * Sets a user's role in the tenant the admin API request names (through that tenant's scoped client).
 * A change ends every session of the user at once, like a password change: the role travels in access
 * tokens, so a demoted admin must not keep admin rights until theirs expire.
 */
export async function setUserRole(deps: TenantPorts, tenantId: string, userId: string, role: string | null): Promise<RoleChange | undefined> {
  return deps.db.forTenant(tenantId).$transaction(async (tx) => {
    // Locked, so two concurrent changes cannot both see the old role and skip the revocation.
    // Raw SQL is not scoped by the client: the tenant is named here.
    const [current] = await tx.$queryRaw<{ role: string | null }[]>`
      SELECT role FROM users WHERE id = ${userId}::uuid AND tenant_id = ${tenantId} FOR UPDATE`;
    if (!current) return undefined;
    const user = await tx.user.update({ where: { id: userId }, data: { role }, select: { id: true, email: true, role: true } });
    if (current.role !== role) await revokeUserSessions(deps, tx, userId, "role_changed");
    return user;
  });
}
