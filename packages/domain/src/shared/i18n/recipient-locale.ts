/**
 * The language of a mail or text: the recipient's stored `preferences.locale`, else the shop's
 * `settings.locale`, else English — never the language of whoever caused it (a reset asked for in
 * English reaches a Swahili reader in Swahili). Read through the caller's transaction.
 */
import { preferredLocale, resolveLocale, type Locale } from "@mteja/i18n";
import { users, type TenantTx } from "@mteja/db";
import type { Tenant } from "../tenant.js";

export async function recipientLocale(tx: TenantTx, tenant: Tenant, userId: string): Promise<Locale> {
  return localeOfRecipient(await users.findPreferences(tx, userId), tenant);
}

/** The same rule for a recipient already read (or none yet: a phone that has no account). */
export function localeOfRecipient(preferences: unknown, tenant: Tenant): Locale {
  return resolveLocale({ preference: preferredLocale(preferences), tenantLocale: tenant.settings.locale });
}
