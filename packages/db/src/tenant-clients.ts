import type { PrismaClient } from "./generated/prisma/client.js";
import { givePlainAccess, type PlainSql } from "./plain-access.js";
import { scopeToTenant, type ModeScope, type TenantDb } from "./tenant-scope.js";

export interface TenantClients {
  /**
   * The scoped client of this tenant (and, given one, of this mode: docs/test-mode.md), built on first
   * use and kept (most recently used first).
   */
  forTenant(tenantId: string, mode?: ModeScope): TenantDb;
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
    forTenant(tenantId, mode) {
      const key = mode ? `${tenantId}\u0000${mode.livemode ? "live" : "test"}` : tenantId;
      const hit = clients.get(key);
      if (hit) {
        clients.delete(key);
        clients.set(key, hit);
        return hit;
      }
      const scoped = scopeToTenant(prisma, tenantId, mode);
      const client = plain ? givePlainAccess(scoped, plain, tenantId, mode) : scoped;
      clients.set(key, client);
      if (clients.size > maxTenants) clients.delete(clients.keys().next().value as string);
      return client;
    },
  };
}
