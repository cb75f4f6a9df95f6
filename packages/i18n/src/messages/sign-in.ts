/**
 * The messages of guest checkout, the breached-password check and CAPTCHA (docs/sign-in.md): their
 * error codes, their refusals and the detail of a breached password.
 */
import type { Bilingual } from "../catalogue.js";

export const signInMessages = {
  "error.CAPTCHA_REQUIRED": {
    en: "Please complete the CAPTCHA and try again.",
    sw: "Tafadhali kamilisha CAPTCHA kisha ujaribu tena.",
  },
  "error.CAPTCHA_UNAVAILABLE": {
    en: "The CAPTCHA check is unavailable for a moment; please try again shortly.",
    sw: "Ukaguzi wa CAPTCHA haupatikani kwa muda; tafadhali jaribu tena baada ya muda mfupi.",
  },
  "captcha.token_missing": {
    en: "This shop asks for a CAPTCHA here: send the widget's token in the X-Captcha-Token header.",
    sw: "Duka hili linahitaji CAPTCHA hapa: tuma tokeni ya kidirisha kwenye kichwa X-Captcha-Token.",
  },
  "captcha.token_refused": {
    en: "The CAPTCHA was not accepted (wrong, expired or already used). Please complete it again.",
    sw: "CAPTCHA haikukubaliwa (si sahihi, muda wake umekwisha au imeshatumika). Tafadhali ikamilishe tena.",
  },
  "guest.not_allowed": {
    en: "A guest cannot do this. Save your details (sign up) or sign in first.",
    sw: "Mgeni hawezi kufanya hili. Hifadhi maelezo yako (jisajili) au uingie kwanza.",
  },
  "guest.not_a_guest": {
    en: "This account is not a guest: there is nothing to upgrade.",
    sw: "Akaunti hii si ya mgeni: hakuna cha kupandisha.",
  },
  "guest.token_invalid": {
    en: "The guest_token is not a valid guest session of this shop (it may have expired or been used already).",
    sw: "guest_token si kikao halali cha mgeni wa duka hili (huenda muda wake umekwisha au imeshatumika).",
  },
  "detail.password_breached": {
    en: "this password has appeared in a data breach; please choose another",
    sw: "nenosiri hili limeonekana katika uvujaji wa data; tafadhali chagua jingine",
  },
} as const satisfies Record<string, Bilingual>;
