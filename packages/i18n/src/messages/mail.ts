/**
 * Every text of the account mails (packages/mailer/src/templates). `{shop}` is the shop's display
 * name, `{when}` a date and time already written in the mail's language (formatWhen).
 */
import type { Bilingual } from "../catalogue.js";

export const mailMessages = {
  // The frame every mail shares.
  "mail.greeting": { en: "Hi {name},", sw: "Habari {name}," },
  "mail.greeting_anonymous": { en: "Hi,", sw: "Habari," },
  "mail.button_fallback": {
    en: "If the button does not work, copy this link into your browser:",
    sw: "Kitufe kisipofanya kazi, nakili kiungo hiki kwenye kivinjari chako:",
  },

  "mail.verify_email.subject": { en: "Confirm your email for {shop}", sw: "Karibu {shop}: tafadhali thibitisha barua pepe yako" },
  "mail.verify_email.intro": {
    en: "Thanks for creating an account with {shop}. Please confirm that this is your email address:",
    sw: "Karibu! Asante kwa kufungua akaunti na {shop}. Tafadhali thibitisha kwamba hii ni anwani yako ya barua pepe:",
  },
  "mail.verify_email.button": { en: "Confirm my email", sw: "Thibitisha barua pepe yangu" },
  "mail.verify_email.validity": { en: "This link works for {hours} hours and can be used once.", sw: "Kiungo hiki kinafanya kazi kwa saa {hours} na kinaweza kutumika mara moja tu." },
  "mail.verify_email.not_you": {
    en: "If you did not create an account with {shop}, you can ignore this email.",
    sw: "Ikiwa hukufungua akaunti na {shop}, unaweza kupuuza barua pepe hii.",
  },

  // A new address for an existing account (docs/email.md): the link goes to the new address.
  "mail.confirm_email_change.subject": { en: "Confirm your new email for {shop}", sw: "Thibitisha barua pepe yako mpya ya {shop}" },
  "mail.confirm_email_change.intro": {
    en: "Someone asked to use this address for their {shop} account. If it was you, please confirm it:",
    sw: "Mtu ameomba kutumia anwani hii kwa akaunti yake ya {shop}. Ikiwa ni wewe, tafadhali ithibitishe:",
  },
  "mail.confirm_email_change.button": { en: "Confirm my new email", sw: "Thibitisha barua pepe yangu mpya" },
  "mail.confirm_email_change.signed_in": {
    en: "Open it on the device where you asked for this change, still signed in to {shop} there: it works only for that sign-in.",
    sw: "Tafadhali kifungue kwenye kifaa ulichoombea mabadiliko haya, ukiwa bado umeingia kwenye {shop} hapo: kinafanya kazi kwa kuingia huko tu.",
  },
  "mail.confirm_email_change.not_you": {
    en: "If you did not ask for this, you can ignore this email: nothing changes.",
    sw: "Ikiwa hukuomba hivi, unaweza kupuuza barua pepe hii: hakuna kitakachobadilika.",
  },

  "mail.reset_password.subject": { en: "Reset your {shop} password", sw: "Badilisha nenosiri lako la {shop}" },
  "mail.reset_password.intro": {
    en: "Someone asked to reset the password of your {shop} account. If it was you, choose a new password here:",
    sw: "Mtu ameomba kubadilisha nenosiri la akaunti yako ya {shop}. Ikiwa ni wewe, tafadhali chagua nenosiri jipya hapa:",
  },
  "mail.reset_password.button": { en: "Choose a new password", sw: "Chagua nenosiri jipya" },
  "mail.reset_password.validity": {
    en: "This link works for {minutes} minutes and can be used once.",
    sw: "Kiungo hiki kinafanya kazi kwa dakika {minutes} na kinaweza kutumika mara moja tu.",
  },
  "mail.reset_password.not_you": {
    en: "If you did not ask for this, you can ignore this email: your password stays the same.",
    sw: "Ikiwa hukuomba hivi, unaweza kupuuza barua pepe hii: nenosiri lako halitabadilika.",
  },

  "mail.no_password_to_reset.subject": { en: "About your {shop} password", sw: "Kuhusu nenosiri lako la {shop}" },
  "mail.no_password_to_reset.body": {
    en: "Someone asked to reset the password of your {shop} account, but the account has no password: it signs in with its phone number and a texted code.",
    sw: "Mtu ameomba kubadilisha nenosiri la akaunti yako ya {shop}, lakini akaunti hii haina nenosiri: inaingia kwa nambari yake ya simu na nambari ya kuthibitisha inayotumwa kwa SMS.",
  },
  "mail.no_password_to_reset.set_one": {
    en: "To use a password too, sign in with your phone and set one in your account settings.",
    sw: "Ili kutumia nenosiri pia, ingia kwa simu yako kisha uweke nenosiri kwenye mipangilio ya akaunti yako.",
  },

  // forgot-password for an address attached without a fresh sign-in (docs/email.md): no link until the
  // owner confirms the address from a fresh session.
  "mail.reset_needs_confirmed_email.subject": { en: "About your {shop} password", sw: "Kuhusu nenosiri lako la {shop}" },
  "mail.reset_needs_confirmed_email.body": {
    en: "Someone asked to reset the password of your {shop} account, but this address was added to the account without a recent sign-in, so it cannot be used to reset the password until it is confirmed.",
    sw: "Mtu ameomba kubadilisha nenosiri la akaunti yako ya {shop}, lakini anwani hii iliongezwa kwenye akaunti bila kuingia hivi karibuni, kwa hivyo haiwezi kutumika kubadilisha nenosiri hadi ithibitishwe.",
  },
  "mail.reset_needs_confirmed_email.confirm": {
    en: "If this is your address, sign in (with your phone and a texted code, or your password), then confirm it in your account settings: a password reset by email works after that.",
    sw: "Ikiwa hii ni anwani yako, tafadhali ingia (kwa simu yako na nambari ya kuthibitisha inayotumwa kwa SMS, au kwa nenosiri lako), kisha uithibitishe kwenye mipangilio ya akaunti yako: baada ya hapo utaweza kubadilisha nenosiri kupitia barua pepe.",
  },

  "mail.password_changed.subject": { en: "Your {shop} password was changed", sw: "Nenosiri lako la {shop} limebadilishwa" },
  "mail.password_changed.body": {
    en: "The password of your {shop} account was changed on {when}. For your safety, you were signed out on your other devices.",
    sw: "Nenosiri la akaunti yako ya {shop} lilibadilishwa {when}. Kwa usalama wako, umetolewa kwenye vifaa vyako vingine.",
  },
  "mail.password_reset.subject": { en: "Your {shop} password was reset", sw: "Nenosiri lako la {shop} limewekwa upya" },
  "mail.password_reset.body": {
    en: "The password of your {shop} account was reset with an emailed link on {when}. For your safety, you were signed out on your other devices.",
    sw: "Nenosiri la akaunti yako ya {shop} liliwekwa upya kwa kiungo kilichotumwa kwa barua pepe {when}. Kwa usalama wako, umetolewa kwenye vifaa vyako vingine.",
  },
  "mail.notice.if_you": { en: "If you made this change, there is nothing more to do.", sw: "Ikiwa ni wewe uliyefanya mabadiliko haya, huhitaji kufanya chochote zaidi." },
  "mail.notice.not_you": {
    en: "If this was not you, someone may have access to your account: reset your password now with \"Forgot password\" on the {shop} sign-in page, and let {shop} know.",
    sw: "Ikiwa si wewe, huenda mtu mwingine anaweza kuingia kwenye akaunti yako: tafadhali badilisha nenosiri lako sasa kupitia \"Umesahau nenosiri\" kwenye ukurasa wa kuingia wa {shop}, kisha uwajulishe {shop}.",
  },
  "mail.two_factor_enabled.subject": {
    en: "Two-step sign-in is now on for your {shop} account",
    sw: "Uthibitishaji wa hatua mbili sasa umewashwa kwa akaunti yako ya {shop}",
  },
  "mail.two_factor_enabled.body": {
    en: "Two-step sign-in was turned on for your {shop} account on {when}. From now on, signing in also asks for a 6-digit code from your authenticator app. For your safety, you were signed out on your other devices.",
    sw: "Uthibitishaji wa hatua mbili uliwashwa kwa akaunti yako ya {shop} {when}. Kuanzia sasa, kuingia kutaomba pia nambari ya kuthibitisha yenye tarakimu 6 kutoka kwenye programu yako ya uthibitishaji. Kwa usalama wako, umetolewa kwenye vifaa vyako vingine.",
  },
  "mail.two_factor_enabled.recovery_codes": {
    en: "Keep your recovery codes somewhere safe: they let you sign in if you lose your phone.",
    sw: "Tafadhali hifadhi nambari zako za kurejesha akaunti mahali salama: zitakuwezesha kuingia ukipoteza simu yako.",
  },
  "mail.two_factor_disabled.subject": {
    en: "Two-step sign-in was turned off for your {shop} account",
    sw: "Uthibitishaji wa hatua mbili umezimwa kwa akaunti yako ya {shop}",
  },
  "mail.two_factor_disabled.body": {
    en: "Two-step sign-in was turned off for your {shop} account on {when}. Signing in now needs only your password.",
    sw: "Uthibitishaji wa hatua mbili ulizimwa kwa akaunti yako ya {shop} {when}. Sasa kuingia kunahitaji nenosiri lako pekee.",
  },
  // A way into the account changed (docs/sessions.md#what-ends-sessions): told to the OLD address.
  "mail.email_changed.subject": { en: "The email address of your {shop} account was changed", sw: "Barua pepe ya akaunti yako ya {shop} imebadilishwa" },
  "mail.email_changed.body": {
    en: "The email address of your {shop} account was changed on {when}: mail about the account now goes to the new address. For your safety, you were signed out on your other devices.",
    sw: "Anwani ya barua pepe ya akaunti yako ya {shop} ilibadilishwa {when}: barua pepe kuhusu akaunti sasa zitatumwa kwa anwani mpya. Kwa usalama wako, umetolewa kwenye vifaa vyako vingine.",
  },
  "mail.phone_changed.subject": { en: "The phone number of your {shop} account was changed", sw: "Nambari ya simu ya akaunti yako ya {shop} imebadilishwa" },
  "mail.phone_changed.body": {
    en: "The phone number of your {shop} account was changed on {when}: signing in by SMS now uses the new number. For your safety, you were signed out on your other devices.",
    sw: "Nambari ya simu ya akaunti yako ya {shop} ilibadilishwa {when}: kuingia kwa SMS sasa kunatumia nambari mpya. Kwa usalama wako, umetolewa kwenye vifaa vyako vingine.",
  },
  "mail.phone_added.subject": { en: "A phone number was added to your {shop} account", sw: "Nambari ya simu imeongezwa kwenye akaunti yako ya {shop}" },
  "mail.phone_added.body": {
    en: "A phone number was verified on your {shop} account on {when}: it can now be used to sign in by SMS. For your safety, you were signed out on your other devices.",
    sw: "Nambari ya simu ilithibitishwa kwenye akaunti yako ya {shop} {when}: sasa inaweza kutumika kuingia kwa SMS. Kwa usalama wako, umetolewa kwenye vifaa vyako vingine.",
  },
  "mail.google_linked.subject": { en: "A Google account was linked to your {shop} account", sw: "Akaunti ya Google imeunganishwa na akaunti yako ya {shop}" },
  "mail.google_linked.body": {
    en: "A Google account was linked to your {shop} account on {when}: it can now be used to sign in with Google. For your safety, you were signed out on your other devices.",
    sw: "Akaunti ya Google iliunganishwa na akaunti yako ya {shop} {when}: sasa inaweza kutumika kuingia kwa Google. Kwa usalama wako, umetolewa kwenye vifaa vyako vingine.",
  },
  "mail.notice.not_you_contact_shop": {
    en: "If this was not you, someone may have access to your account: contact {shop} at once.",
    sw: "Ikiwa si wewe, huenda mtu mwingine anaweza kuingia kwenye akaunti yako: tafadhali wasiliana na {shop} mara moja.",
  },
  "mail.two_factor_disabled.turn_back_on": { en: "Then turn two-step sign-in back on.", sw: "Kisha uwashe tena uthibitishaji wa hatua mbili." },

  // The data-rights notices (docs/data-rights.md): an export was downloaded, the account was erased.
  "mail.account_exported.subject": { en: "A copy of your {shop} data was downloaded", sw: "Nakala ya data yako ya {shop} imepakuliwa" },
  "mail.account_exported.body": {
    en: "A copy of everything {shop} holds about your account (profile, addresses, sessions, payments and security events) was downloaded on {when}.",
    sw: "Nakala ya taarifa zote ambazo {shop} inazo kuhusu akaunti yako (wasifu, anwani, vipindi vya kuingia, malipo na matukio ya usalama) ilipakuliwa {when}.",
  },
  "mail.account_exported.keep_safe": {
    en: "If you asked for it, there is nothing more to do. Keep the file somewhere safe: it holds your personal data.",
    sw: "Ikiwa uliiomba, huhitaji kufanya chochote zaidi. Tafadhali hifadhi faili hiyo mahali salama: ina taarifa zako binafsi.",
  },
  "mail.account_deleted.subject": { en: "Your {shop} account was deleted", sw: "Akaunti yako ya {shop} imefutwa" },
  "mail.account_deleted.body": {
    en: "Your {shop} account was deleted on {when}, as you asked. Your personal details, addresses and sessions have been removed, and you will receive no more mail from us about this account.",
    sw: "Akaunti yako ya {shop} ilifutwa {when}, kama ulivyoomba. Taarifa zako binafsi, anwani na vipindi vya kuingia vimeondolewa, na hutapokea barua pepe zaidi kutoka kwetu kuhusu akaunti hii.",
  },
  "mail.account_deleted.payments_kept": {
    en: "Records of your payments are kept, as the law requires, without your full phone number.",
    sw: "Kumbukumbu za malipo yako zinahifadhiwa kama sheria inavyotaka, bila nambari yako kamili ya simu.",
  },
  "mail.account_deleted.welcome_back": {
    en: "You are welcome to create a new account with the same email at any time. If you did not ask for this, contact {shop} at once.",
    sw: "Karibu kufungua akaunti mpya kwa barua pepe hiyo hiyo wakati wowote. Ikiwa hukuomba hili, wasiliana na {shop} mara moja.",
  },
} as const satisfies Record<string, Bilingual>;
