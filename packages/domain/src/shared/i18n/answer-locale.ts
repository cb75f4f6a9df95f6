/**
 * The language of an answer (docs/i18n.md#which-language), decided here and nowhere else:
 * - not signed in: Accept-Language only, whatever account the request names;
 * - signed in: the user's `preferences.locale`, else Accept-Language, else the tenant's `settings.locale`.
 * The signed-in user's preference is read only when an answer needs words (an error), so a call
 * that succeeds costs no query.
 */
import { preferredLocale, resolveLocale, type Locale } from "@mteja/i18n";
import { users, type TenantDb } from "@mteja/db";
import type { RequestInfo } from "../request.js";
import type { Tenant } from "../tenant.js";

/** The language of an answer to this request, as far as it is decided. */
export function answerLocale(request: Pick<RequestInfo, "acceptLanguage" | "signedInLocale"> | undefined): Locale {
  return request?.signedInLocale ?? resolveLocale({ acceptLanguage: request?.acceptLanguage });
}

/** Records the signed-in user's language on the request, for the answer about to be formatted. */
export async function noteSignedInLocale(ctx: { request: RequestInfo; tenant: Tenant; db: TenantDb }, userId: string): Promise<void> {
  if (ctx.request.signedInLocale) return;
  const preferences = await users.findPreferences(ctx.db, userId).catch(() => undefined);
  ctx.request.signedInLocale = resolveLocale({
    preference: preferredLocale(preferences),
    acceptLanguage: ctx.request.acceptLanguage,
    tenantLocale: ctx.tenant.settings.locale,
  });
}

/** The language a registration stores as `preferences.locale`: the request's, when it names one. */
export { localeFromAcceptLanguage as requestedLocale } from "@mteja/i18n";
