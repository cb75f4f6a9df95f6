/**
 * How numbers and dates read in each language (docs/i18n-glossary.md#money-and-dates). Times are
 * shown in Nairobi time whatever the server's zone.
 */
import type { Locale } from "./locale.js";

const grouped = new Intl.NumberFormat("en-KE", { maximumFractionDigits: 2 });

/** Kenyan shillings as Kenyans write them in both languages: "KSh 1,500" (comma thousands, no decimals for whole shillings). */
export function formatMoney(amount: number): string {
  return `KSh ${grouped.format(amount)}`;
}

const when: Record<Locale, Intl.DateTimeFormat> = {
  en: new Intl.DateTimeFormat("en-KE", { dateStyle: "full", timeStyle: "short", timeZone: "Africa/Nairobi" }),
  // "Jumatano, 25 Novemba 2026 saa 15:52": the 24-hour clock, never Swahili time (saa za Kiswahili).
  sw: new Intl.DateTimeFormat("sw-KE", { dateStyle: "full", timeStyle: "short", hourCycle: "h23", timeZone: "Africa/Nairobi" }),
};

const zoneName: Record<Locale, string> = { en: "East Africa Time", sw: "saa za Afrika Mashariki" };

export function formatWhen(date: Date, locale: Locale): string {
  return `${when[locale].format(date)} (${zoneName[locale]})`;
}
