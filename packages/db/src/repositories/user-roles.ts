/**
 * A user's role, as the admin API changes it (PATCH /api/v1/admin/users/:id). Of the `users` table, in
 * a file of its own while the users' repository is written beside it (issue 29): fold it in there.
 */
import { prismaOf, type AnyClient } from "./clients.js";

/** The user's role, the row locked until the transaction ends; undefined when the tenant has no such user. */
export async function lockRoleOf(
  tx: AnyClient,
  tenantId: string,
  userId: string,
): Promise<{ role: string | null } | undefined> {
  // Raw SQL is not scoped by a tenant's client: the tenant is named here.
  const [current] = await prismaOf(tx).$queryRaw<{ role: string | null }[]>`
    SELECT role FROM users WHERE id = ${userId}::uuid AND tenant_id = ${tenantId} FOR UPDATE`;
  return current;
}

export function setRole(
  tx: AnyClient,
  userId: string,
  role: string | null,
): Promise<{ id: string; email: string | null; role: string | null }> {
  return prismaOf(tx).user.update({
    where: { id: userId },
    data: { role },
    select: { id: true, email: true, role: true },
  });
}
