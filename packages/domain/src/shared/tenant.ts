import { tenants, type Database } from "@mteja/db";
import type { Clock } from "./ports.js";
import { storedTenantSettingsSchema, type TenantSettings } from "./tenant-settings.js";

export interface Tenant {
  id: string;
  name: string;
  settings: TenantSettings;
  active: boolean;
}

export interface TenantDirectory {
  /** The active tenant with this id, or undefined. */
  find(id: string): Promise<Tenant | undefined>;
  /** The CORS origins of every active tenant (for a preflight, which names no tenant), cached like find(). */
  everyCorsOrigin(): Promise<ReadonlySet<string>>;
  /** Forget cached entries after an admin change. */
  invalidate(id?: string): void;
}

const slug = /^[a-z0-9][a-z0-9-]{1,62}$/;

/**
 * Every request of the auth API resolves its tenant, so lookups are cached briefly in process.
 * An admin change invalidates this instance's cache at once and other instances' within ttlMs.
 */
export function createTenantDirectory(db: Database, options: { ttlMs: number; clock: Pick<Clock, "monotonicMs"> }): TenantDirectory {
  const cache = new Map<string, { tenant: Tenant | undefined; expires: number }>();
  let everyOrigin: { origins: Set<string>; expires: number } | undefined;
  return {
    async find(id) {
      if (!slug.test(id)) return undefined;
      const hit = cache.get(id);
      if (hit && hit.expires > options.clock.monotonicMs()) return hit.tenant;
      const row = await tenants.findTenant(db.unscoped("tenant-directory"), id);
      const tenant = row && row.active ? toTenant(row) : undefined;
      if (cache.size > 10_000) cache.clear();
      cache.set(id, { tenant, expires: options.clock.monotonicMs() + options.ttlMs });
      return tenant;
    },
    async everyCorsOrigin() {
      if (everyOrigin && everyOrigin.expires > options.clock.monotonicMs()) return everyOrigin.origins;
      const rows = await tenants.activeTenants(db.unscoped("tenant-directory"));
      const origins = new Set(rows.flatMap((row) => corsOriginsOf(toTenant(row))));
      everyOrigin = { origins, expires: options.clock.monotonicMs() + options.ttlMs };
      return origins;
    },
    invalidate(id) {
      everyOrigin = undefined;
      if (id) cache.delete(id);
      else cache.clear();
    },
  };
}

export function toTenant(row: { id: string; name: string; settings: unknown; active: boolean }): Tenant {
  const parsed = storedTenantSettingsSchema.safeParse(row.settings);
  return { id: row.id, name: row.name, active: row.active, settings: parsed.success ? parsed.data : {} };
}

/** "https://shop.example.com/" and "https://shop.example.com" are the same origin. */
export function normaliseOrigin(origin: string): string {
  try {
    return new URL(origin).origin;
  } catch {
    return origin;
  }
}

/** The origins a shop allows for its own requests, besides the process's CORS_ORIGINS (docs/http.md#cors). */
export function corsOriginsOf(tenant: Tenant): string[] {
  return (tenant.settings.corsOrigins ?? []).map(normaliseOrigin);
}

export function tenantDisplayName(tenant: Tenant): string {
  return tenant.settings.displayName ?? tenant.name;
}

/** Creates the default tenant on start when it does not exist yet (instances starting at once included). */
export async function ensureDefaultTenant(db: Database, id: string, name: string): Promise<void> {
  await tenants.ensureTenant(db.unscoped("start-up"), id, name);
}
