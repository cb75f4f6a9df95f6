/**
 * Which short code a shop's customers pay from the M-Pesa menu, and whose money a payment to a short
 * code is (docs/mpesa.md#c2b): Daraja names only the short code. A tenant with its own short code
 * (settings.momo.shortcode) owns it; the default tenant also owns the platform's (MOMO_SHORTCODE). Any
 * other tenant has no short code to be paid into from the menu. Read by C2B's callbacks and registration,
 * by Pull (whose rows are that short code's) and by Dynamic QR (whose code pays it).
 */
import { tenants } from "@mteja/db";
import type { PaymentPorts } from "./ports.js";
import type { Tenant } from "../../shared/tenant.js";

/** The short code a tenant's customers pay from the M-Pesa menu; null when it has none of its own. */
export function c2bShortCodeOf(deps: Pick<PaymentPorts, "config" | "daraja">, tenant: Pick<Tenant, "id" | "settings">): string | null {
  const own = tenant.settings.momo?.shortcode;
  if (own) return own;
  return tenant.id === deps.config.defaultTenantId ? deps.daraja.settings.platformShortcode : null;
}

/**
 * The active tenant paid through this short code; null when none is, or when several claim it (the
 * money is then kept flagged rather than credited to a guess).
 */
export async function tenantForShortCode(deps: PaymentPorts, shortCode: string): Promise<Tenant | null> {
  // Short codes are no tenant's data: the lookup crosses tenants by design, reading ids only.
  const ids = await tenants.activeIdsWithShortCode(deps.db.unscoped("daraja-callback"), shortCode);
  if (ids.length > 1) {
    deps.logger.warn({ shortCode, tenantIds: ids }, "several shops have this short code: its C2B payments are not credited to either");
    return null;
  }
  const ownerId = ids[0] ?? (shortCode === deps.daraja.settings.platformShortcode ? deps.config.defaultTenantId : undefined);
  if (!ownerId) return null;
  const tenant = await deps.tenants.find(ownerId);
  return tenant && c2bShortCodeOf(deps, tenant) === shortCode ? tenant : null;
}
