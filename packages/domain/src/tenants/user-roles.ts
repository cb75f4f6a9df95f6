import { users } from "@mteja/db";
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
  return deps.db.transaction(deps.db.forTenant(tenantId), async (tx) => {
    // Locked, so two concurrent changes cannot both see the old role and skip the revocation.
    const current = await users.lockRoleOf(tx, tenantId, userId);
    if (!current) return undefined;
    const user = await users.setRole(tx, userId, role);
    if (current.role !== role) await revokeUserSessions(deps, tx, userId, "role_changed");
    return user;
  });
}
