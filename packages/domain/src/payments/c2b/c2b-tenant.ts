/**
 * Whose money a C2B notification is (docs/mpesa.md#c2b): Daraja names only the BusinessShortCode. A
 * tenant with its own short code (settings.momo.shortcode) owns it; the default tenant also owns the
 * platform's (MOMO_SHORTCODE). Any other tenant has no short code to be paid into from the menu.
 */
import { tenants, type UnscopedDb } from "@mteja/db";
import type { PaymentPorts } from "../shared/ports.js";
import type { SettlementTx } from "../shared/stored-callback.js";
import type { Tenant } from "../../shared/tenant.js";
import type { CallbackAuthority } from "../shared/callback-tokens.js";
import { refusalOf } from "../shared/callback-authority.js";

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

/**
 * Why a C2B notification for `tenant` is refused (docs/mpesa.md#callback-tokens): another shop's token,
 * or the shared secret (the old form) once the tenant's URLs were registered with its own token.
 * The registration's form is read only for the old form: a tenant's own token needs no statement.
 */
export async function c2bRefusal(
  sql: UnscopedDb | SettlementTx,
  authority: CallbackAuthority,
  tenant: Pick<Tenant, "id">,
): Promise<string | undefined> {
  if (authority.form === "tenant") return refusalOf(authority, { tenantId: tenant.id, callbackTokenForm: "tenant" });
  const form = await tenants.c2bCallbackTokenForm(sql, tenant.id);
  return refusalOf(authority, { tenantId: tenant.id, callbackTokenForm: form ?? "tenant" });
}

/** The tenant's C2B URLs are registered with its own token: from now on the shared secret no longer speaks for its C2B. */
export async function recordC2bRegisteredWithTenantToken(deps: Pick<PaymentPorts, "db">, tenantId: string): Promise<void> {
  await tenants.markC2bRegisteredWithTenantToken(deps.db.unscoped("admin-api"), tenantId);
}

/**
 * The active shops whose C2B still accepts the old form (MOMO_CALLBACK_SECRET itself): registered before
 * shop tokens and not since, and with a short code to be paid into (their own, or the default shop's
 * `platformShortcode`); sorted ids. What `mteja doctor` and the start's warning report
 * (docs/operations.md#upgrading-to-shop-callback-tokens).
 */
export function shopsOnSharedC2bToken(db: UnscopedDb, platform: { defaultTenantId: string; platformShortcode: string | null }): Promise<string[]> {
  return tenants.activeIdsOnSharedC2bToken(db, platform);
}
