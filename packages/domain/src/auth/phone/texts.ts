/**
 * The texts of phone sign-in, in English and Swahili (docs/phone-sign-in.md#texts). Short enough for
 * one SMS in either language (160 GSM-7 characters), code first so a phone's preview shows it.
 */
export type TextLocale = "en" | "sw";

export interface PhoneCodeText {
  code: string;
  shop: string;
  minutes: number;
}

export const phoneCodeTexts: Record<TextLocale, (text: PhoneCodeText) => string> = {
  en: ({ code, shop, minutes }) => `${code} is your ${shop} verification code. It expires in ${minutes} minutes. Do not share it with anyone.`,
  sw: ({ code, shop, minutes }) => `${code} ni nambari yako ya kuthibitisha ya ${shop}. Itaisha baada ya dakika ${minutes}. Usimpe mtu yeyote.`,
};

/** The recipient's stored locale when it is one we write texts in; English otherwise. */
export function textLocaleOf(preferences: unknown): TextLocale {
  const locale = typeof preferences === "object" && preferences !== null ? (preferences as { locale?: unknown }).locale : undefined;
  return locale === "sw" ? "sw" : "en";
}
