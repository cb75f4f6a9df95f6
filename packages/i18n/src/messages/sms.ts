/**
 * Texts (SMS). Texts are short: one sentence per fact, no greeting, the shop's name first so a
 * shared phone's owner knows who wrote. `{shop}`, `{code}` and `{minutes}` as in the mails.
 */
import type { Bilingual } from "../catalogue.js";

export const smsMessages = {
  // Phone sign-in (docs/phone-sign-in.md#texts): one SMS in either language (160 GSM-7 characters),
  // the code first so a phone's preview shows it.
  "sms.phone_code": {
    en: "{code} is your {shop} verification code. It expires in {minutes} minutes. Do not share it with anyone.",
    sw: "{code} ni nambari yako ya kuthibitisha ya {shop}. Itaisha baada ya dakika {minutes}. Usimpe mtu yeyote.",
  },
} as const satisfies Record<string, Bilingual>;
