/**
 * Whose C2B notifications a callback's token speaks for (docs/mpesa.md#callback-tokens), and the form of
 * the tenant's C2B registration. Whose money a notification is: shared/short-codes.ts.
 */
import { tenants, type UnscopedDb } from "@mteja/db";
import type { PaymentPorts } from "../shared/ports.js";
import type { SettlementTx } from "../shared/stored-callback.js";
import type { Tenant } from "../../shared/tenant.js";
import type { CallbackAuthority } from "../shared/callback-tokens.js";
import { refusalOf } from "../shared/callback-authority.js";

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
