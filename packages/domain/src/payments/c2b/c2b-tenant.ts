/**
 * Whose money a C2B notification is (docs/mpesa.md#c2b): Daraja names only the BusinessShortCode. A
 * tenant with its own short code (settings.momo.shortcode) owns it; the default tenant also owns the
 * platform's (MOMO_SHORTCODE). Any other tenant has no short code to be paid into from the menu.
 */
import type { Deps } from "../../context.js";
import type { Tenant } from "../../tenants/directory.js";

/** The short code a tenant's customers pay from the M-Pesa menu; null when it has none of its own. */
export function c2bShortCodeOf(deps: Pick<Deps, "config" | "momo">, tenant: Pick<Tenant, "id" | "settings">): string | null {
  const own = tenant.settings.momo?.shortcode;
  if (own) return own;
  return tenant.id === deps.config.defaultTenantId ? deps.momo.settings.platformShortcode : null;
}

/**
 * The active tenant paid through this short code; null when none is, or when several claim it (the
 * money is then kept flagged rather than credited to a guess).
 */
export async function tenantForShortCode(deps: Deps, shortCode: string): Promise<Tenant | null> {
  // Short codes are no tenant's data: the lookup crosses tenants by design, reading ids only.
  const rows = await deps.db.unscoped.$queryRaw<{ id: string }[]>`
    SELECT id FROM tenants WHERE active AND settings->'momo'->>'shortcode' = ${shortCode} LIMIT 2`;
  if (rows.length > 1) {
    deps.logger.warn({ shortCode, tenantIds: rows.map((row) => row.id) }, "several shops have this short code: its C2B payments are not credited to either");
    return null;
  }
  const ownerId = rows[0]?.id ?? (shortCode === deps.momo.settings.platformShortcode ? deps.config.defaultTenantId : undefined);
  if (!ownerId) return null;
  const tenant = await deps.tenants.find(ownerId);
  return tenant && c2bShortCodeOf(deps, tenant) === shortCode ? tenant : null;
}
