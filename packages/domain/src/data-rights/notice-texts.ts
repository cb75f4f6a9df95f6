/**
 * The words of the data-rights notices, in English and Swahili. Kept here, typed, until the message
 * catalogue takes them; every notice must have both languages (the type says so).
 */
import type { AccountNoticeText } from "@mteja/mailer";

export type NoticeLocale = "en" | "sw";

export type DataRightsNotice = "accountExported" | "accountDeleted";

export const dataRightsNoticeTexts: { readonly [N in DataRightsNotice]: { readonly [L in NoticeLocale]: AccountNoticeText } } = {
  accountExported: {
    en: {
      subject: (shop) => `A copy of your ${shop} data was downloaded`,
      paragraphs: (shop, when) => [
        `A copy of everything ${shop} holds about your account (profile, addresses, sessions, payments and security events) was downloaded on ${when}.`,
        "If you asked for it, there is nothing more to do. Keep the file somewhere safe: it holds your personal data.",
        `If this was not you, someone may have access to your account: change your password now and let ${shop} know.`,
      ],
    },
    sw: {
      subject: (shop) => `Nakala ya data yako ya ${shop} imepakuliwa`,
      paragraphs: (shop, when) => [
        `Nakala ya taarifa zote ambazo ${shop} inazo kuhusu akaunti yako (wasifu, anwani, vipindi vya kuingia, malipo na matukio ya usalama) ilipakuliwa ${when}.`,
        "Ikiwa uliiomba, hakuna zaidi la kufanya. Tafadhali hifadhi faili hiyo mahali salama: ina taarifa zako binafsi.",
        `Ikiwa si wewe, huenda mtu mwingine anaweza kuingia kwenye akaunti yako: badilisha nenosiri lako sasa na umjulishe ${shop}.`,
      ],
    },
  },
  accountDeleted: {
    en: {
      subject: (shop) => `Your ${shop} account was deleted`,
      paragraphs: (shop, when) => [
        `Your ${shop} account was deleted on ${when}, as you asked. Your personal details, addresses and sessions have been removed, and you will receive no more mail from us about this account.`,
        "Records of your payments are kept, as the law requires, without your full phone number.",
        `You are welcome to create a new account with the same email at any time. If you did not ask for this, contact ${shop} at once.`,
      ],
    },
    sw: {
      subject: (shop) => `Akaunti yako ya ${shop} imefutwa`,
      paragraphs: (shop, when) => [
        `Akaunti yako ya ${shop} ilifutwa ${when}, kama ulivyoomba. Taarifa zako binafsi, anwani na vipindi vya kuingia vimeondolewa, na hutapokea barua pepe zaidi kutoka kwetu kuhusu akaunti hii.`,
        "Kumbukumbu za malipo yako zinahifadhiwa kama sheria inavyotaka, bila nambari yako kamili ya simu.",
        `Karibu kufungua akaunti mpya kwa barua pepe hiyo hiyo wakati wowote. Ikiwa hukuomba hili, wasiliana na ${shop} mara moja.`,
      ],
    },
  },
};

/** The language of a notice: the customer's stored preference, English otherwise. */
export function noticeLocaleOf(preferences: unknown): NoticeLocale {
  const locale = (preferences as { locale?: unknown } | null)?.locale;
  return locale === "sw" ? "sw" : "en";
}
