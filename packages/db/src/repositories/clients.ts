/**
 * The clients a repository function runs on. A tenant's client (`Database.forTenant`) adds the tenant
 * to every query of tenant-owned rows; the unscoped one crosses tenants. Inside or outside a
 * transaction, at run time each is a Prisma client, but Prisma's extended and plain client types do
 * not assign to each other: a function that works on any of them takes `AnyClient` and reaches the
 * models through `prismaOf`, so the scope (if any) still applies.
 */
import type { Prisma, PrismaClient } from "../generated/prisma/client.js";
import type { UnscopedDb } from "../doors.js";
import type { TenantDb, TenantTx } from "../tenant-scope.js";

/** Any client: a tenant's or the unscoped one, outside or inside a transaction. */
export type AnyClient = TenantDb | TenantTx | UnscopedDb | PrismaClient | Prisma.TransactionClient;

/** The model delegates of any client, typed once; the client's own scope still applies at run time. */
export function prismaOf(client: AnyClient): Prisma.TransactionClient {
  return client as Prisma.TransactionClient;
}
