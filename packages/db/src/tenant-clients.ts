import type { PrismaClient } from "./generated/prisma/client.js";
import { givePlainAccess, type PlainSql } from "./plain-access.js";
import { scopeToTenant, type TenantDb } from "./tenant-scope.js";

export interface TenantClients {
  /** The scoped client of this tenant, built on first use and kept (most recently used first). */
  forTenant(tenantId: string): TenantDb;
}

/**
 * Scoped clients are built once per tenant, not per request: `$extends` is cheap but not free, and
 * the hot paths (GET /me) should pay nothing for scoping. Bounded, so a flood of tenant ids cannot
 * grow it without end; the least recently used client goes first. Each carries the database's plain
 * SQL (`plain`, when given) for the repositories that read through it (plain-access.ts).
 */
export function createTenantClients(prisma: PrismaClient, maxTenants = 1000, plain?: PlainSql): TenantClients {
  const clients = new Map<string, TenantDb>();
  return {
    forTenant(tenantId) {
      const hit = clients.get(tenantId);
      if (hit) {
        clients.delete(tenantId);
        clients.set(tenantId, hit);
        return hit;
      }
      const scoped = scopeToTenant(prisma, tenantId);
      const client = plain ? givePlainAccess(scoped, plain, tenantId) : scoped;
      clients.set(tenantId, client);
      if (clients.size > maxTenants) clients.delete(clients.keys().next().value as string);
      return client;
    },
  };
}
