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
  // Security notices (docs/sessions.md#what-ends-sessions): to the account's verified phone as it was
  // before the change. No time (the text arrives at once), one SMS for the default shop name.
  "sms.notice.phone_changed": {
    en: "{shop}: the phone number of your account was changed and your other devices were signed out. Not you? Contact {shop} at once.",
    sw: "{shop}: nambari ya simu ya akaunti yako imebadilishwa na umetolewa kwenye vifaa vingine. Si wewe? Wasiliana na {shop} mara moja.",
  },
  "sms.notice.email_changed": {
    en: "{shop}: the email address of your account was changed and your other devices were signed out. Not you? Contact {shop} at once.",
    sw: "{shop}: barua pepe ya akaunti yako imebadilishwa na umetolewa kwenye vifaa vingine. Si wewe? Wasiliana na {shop} mara moja.",
  },
  "sms.notice.email_added": {
    en: "{shop}: an email address was added to your account and your other devices were signed out. Not you? Contact {shop} at once.",
    sw: "{shop}: barua pepe imeongezwa kwenye akaunti yako na umetolewa kwenye vifaa vingine. Si wewe? Wasiliana na {shop} mara moja.",
  },
  "sms.notice.email_confirmed": {
    en: "{shop}: the email address of your account can now reset its password and your other devices were signed out. Not you? Contact {shop} at once.",
    sw: "{shop}: barua pepe ya akaunti yako sasa inaweza kubadilisha nenosiri na umetolewa kwenye vifaa vingine. Si wewe? Wasiliana na {shop} mara moja.",
  },
  "sms.notice.password_set": {
    en: "{shop}: a password was set on your account and your other devices were signed out. Not you? Contact {shop} at once.",
    sw: "{shop}: nenosiri limewekwa kwenye akaunti yako na umetolewa kwenye vifaa vingine. Si wewe? Wasiliana na {shop} mara moja.",
  },
  "sms.notice.google_linked": {
    en: "{shop}: a Google account was linked to your account and your other devices were signed out. Not you? Contact {shop} at once.",
    sw: "{shop}: akaunti ya Google imeunganishwa na akaunti yako na umetolewa kwenye vifaa vingine. Si wewe? Wasiliana na {shop} mara moja.",
  },
  "sms.notice.two_factor_enabled": {
    en: "{shop}: two-step sign-in was turned on for your account and your other devices were signed out. Not you? Contact {shop} at once.",
    sw: "{shop}: uthibitishaji wa hatua mbili umewashwa kwa akaunti yako na umetolewa kwenye vifaa vingine. Si wewe? Wasiliana na {shop} mara moja.",
  },
} as const satisfies Record<string, Bilingual>;
