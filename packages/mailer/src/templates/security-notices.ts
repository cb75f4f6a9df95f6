import { formatWhen, t, type Locale } from "@mteja/i18n";
import { singleLine } from "./format.js";
import { renderMailBody, type RenderedMail } from "./mail-body.js";

/** Data of the notices that tell a user about a security-relevant change to their account (ASVS 6.3.7). */
export interface SecurityNoticeData {
  tenantName: string;
  userName: string;
  when: Date;
}

type Notice =
  | "password_changed"
  | "password_reset"
  | "two_factor_enabled"
  | "two_factor_disabled"
  | "account_exported"
  | "account_deleted"
  | "email_changed"
  | "phone_changed"
  | "phone_added"
  | "google_linked";

/** What each notice says after its subject and its "what changed, when" paragraph. */
const closing: Record<Notice, (locale: Locale, shop: string) => string[]> = {
  password_changed: (locale, shop) => [t(locale, "mail.notice.if_you"), t(locale, "mail.notice.not_you", { shop })],
  password_reset: (locale, shop) => [t(locale, "mail.notice.if_you"), t(locale, "mail.notice.not_you", { shop })],
  two_factor_enabled: (locale, shop) => [t(locale, "mail.two_factor_enabled.recovery_codes"), t(locale, "mail.notice.not_you", { shop })],
  two_factor_disabled: (locale, shop) => [`${t(locale, "mail.notice.not_you", { shop })} ${t(locale, "mail.two_factor_disabled.turn_back_on")}`],
  account_exported: (locale, shop) => [t(locale, "mail.account_exported.keep_safe"), t(locale, "mail.notice.not_you", { shop })],
  account_deleted: (locale, shop) => [t(locale, "mail.account_deleted.payments_kept"), t(locale, "mail.account_deleted.welcome_back", { shop })],
  // Sent to the old address: "reset your password" would send the link to the new one.
  email_changed: (locale, shop) => [t(locale, "mail.notice.if_you"), t(locale, "mail.notice.not_you_contact_shop", { shop })],
  phone_changed: (locale, shop) => [t(locale, "mail.notice.if_you"), t(locale, "mail.notice.not_you", { shop })],
  phone_added: (locale, shop) => [t(locale, "mail.notice.if_you"), t(locale, "mail.notice.not_you", { shop })],
  google_linked: (locale, shop) => [t(locale, "mail.notice.if_you"), t(locale, "mail.notice.not_you_contact_shop", { shop })],
};

function notice(kind: Notice) {
  return (data: SecurityNoticeData, locale: Locale = "en"): RenderedMail => {
    const shop = singleLine(data.tenantName);
    const paragraphs = [t(locale, `mail.${kind}.body`, { shop, when: formatWhen(data.when, locale) }), ...closing[kind](locale, shop)];
    return renderMailBody(
      { subject: t(locale, `mail.${kind}.subject`, { shop }), greetingName: singleLine(data.userName), blocks: paragraphs.map((paragraph) => ({ paragraph })), signature: shop },
      locale,
    );
  };
}

export const passwordChanged = notice("password_changed");
export const passwordReset = notice("password_reset");
export const twoFactorEnabled = notice("two_factor_enabled");
export const twoFactorDisabled = notice("two_factor_disabled");
/** The data-rights notices (docs/data-rights.md): the customer's data was exported, their account erased. */
export const accountExported = notice("account_exported");
export const accountDeleted = notice("account_deleted");
/** A way into the account changed (docs/sessions.md#what-ends-sessions), told to the address it had before. */
export const emailChanged = notice("email_changed");
export const phoneChanged = notice("phone_changed");
export const phoneAdded = notice("phone_added");
/** A Google account was linked (docs/sign-in.md#linking): a new way in. */
export const googleLinked = notice("google_linked");
