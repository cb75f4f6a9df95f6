/**
 * The languages the service answers in, and the one rule that picks one (docs/i18n.md#which-language).
 */
export const LOCALES = ["en", "sw"] as const;
export type Locale = (typeof LOCALES)[number];
export const DEFAULT_LOCALE: Locale = "en";

export function isLocale(value: unknown): value is Locale {
  return typeof value === "string" && (LOCALES as readonly string[]).includes(value);
}

/**
 * The first supported language of an Accept-Language header, by quality then order (RFC 9110 §12.5.4):
 * `sw`, `sw-KE`, `sw-TZ` → sw; `en`, `en-GB` → en; `*` and anything else are not a choice.
 */
export function localeFromAcceptLanguage(header: string | undefined): Locale | undefined {
  if (!header) return undefined;
  let best: { locale: Locale; quality: number } | undefined;
  for (const part of header.slice(0, 512).split(",")) {
    const [range = "", ...params] = part.trim().split(";");
    const primary = range.trim().toLowerCase().split("-")[0];
    if (!isLocale(primary)) continue;
    const q = params.map((p) => /^\s*q\s*=\s*([0-9.]+)\s*$/i.exec(p)?.[1]).find((v) => v !== undefined);
    const quality = q === undefined ? 1 : Number(q);
    if (!(quality > 0)) continue;
    if (!best || quality > best.quality) best = { locale: primary, quality };
  }
  return best?.locale;
}

/** What may decide the language of an answer, mail or text. */
export interface LocaleSources {
  /** The signed-in user's (or the recipient's) stored `preferences.locale`. */
  preference?: unknown;
  /** The request's Accept-Language header (absent for mail written outside a request). */
  acceptLanguage?: string | undefined;
  /** The tenant's `settings.locale`. */
  tenantLocale?: unknown;
}

/**
 * The one rule: the user's preference, else Accept-Language, else the tenant's setting, else English.
 * An unauthenticated answer passes only `acceptLanguage`: the account a request names never decides
 * the language of an answer to someone not signed in to it.
 */
export function resolveLocale(sources: LocaleSources): Locale {
  if (isLocale(sources.preference)) return sources.preference;
  const requested = localeFromAcceptLanguage(sources.acceptLanguage);
  if (requested) return requested;
  if (isLocale(sources.tenantLocale)) return sources.tenantLocale;
  return DEFAULT_LOCALE;
}

/** The stored preference of a `preferences` JSON value, if it holds a supported one. */
export function preferredLocale(preferences: unknown): Locale | undefined {
  const locale = (preferences as { locale?: unknown } | null | undefined)?.locale;
  return isLocale(locale) ? locale : undefined;
}
