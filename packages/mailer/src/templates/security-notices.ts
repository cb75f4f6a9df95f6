import { formatWhen, t, type Locale } from "@mteja/i18n";
import { singleLine } from "./format.js";
import { renderMailBody, type RenderedMail } from "./mail-body.js";

/** Data of the notices that tell a user about a security-relevant change to their account (ASVS 6.3.7). */
export interface SecurityNoticeData {
  tenantName: string;
  userName: string;
  when: Date;
}

export function passwordChanged(data: SecurityNoticeData, locale: Locale = "en"): RenderedMail {
  const { shop, when } = common(data, locale);
  return notice(data, locale, t(locale, "mail.password_changed.subject", { shop }), [
    t(locale, "mail.password_changed.body", { shop, when }),
    t(locale, "mail.notice.if_you"),
    t(locale, "mail.notice.not_you", { shop }),
  ]);
}

export function passwordReset(data: SecurityNoticeData, locale: Locale = "en"): RenderedMail {
  const { shop, when } = common(data, locale);
  return notice(data, locale, t(locale, "mail.password_reset.subject", { shop }), [
    t(locale, "mail.password_reset.body", { shop, when }),
    t(locale, "mail.notice.if_you"),
    t(locale, "mail.notice.not_you", { shop }),
  ]);
}

export function twoFactorEnabled(data: SecurityNoticeData, locale: Locale = "en"): RenderedMail {
  const { shop, when } = common(data, locale);
  return notice(data, locale, t(locale, "mail.two_factor_enabled.subject", { shop }), [
    t(locale, "mail.two_factor_enabled.body", { shop, when }),
    t(locale, "mail.two_factor_enabled.recovery_codes"),
    t(locale, "mail.notice.not_you", { shop }),
  ]);
}

export function twoFactorDisabled(data: SecurityNoticeData, locale: Locale = "en"): RenderedMail {
  const { shop, when } = common(data, locale);
  return notice(data, locale, t(locale, "mail.two_factor_disabled.subject", { shop }), [
    t(locale, "mail.two_factor_disabled.body", { shop, when }),
    `${t(locale, "mail.notice.not_you", { shop })} ${t(locale, "mail.two_factor_disabled.turn_back_on")}`,
  ]);
}

function common(data: SecurityNoticeData, locale: Locale) {
  return { shop: singleLine(data.tenantName), when: formatWhen(data.when, locale) };
}

function notice(data: SecurityNoticeData, locale: Locale, subject: string, paragraphs: string[]): RenderedMail {
  const shop = singleLine(data.tenantName);
  return renderMailBody({ subject, greetingName: singleLine(data.userName), blocks: paragraphs.map((paragraph) => ({ paragraph })), signature: shop }, locale);
}
