import type { Locale } from "@mteja/i18n";
import type { RenderedMail } from "./mail-body.js";
import { resetPassword, type ResetPasswordData } from "./reset-password.js";
import { noPasswordToReset, type NoPasswordToResetData } from "./no-password-to-reset.js";
import { resetNeedsConfirmedEmail, type ResetNeedsConfirmedEmailData } from "./reset-needs-confirmed-email.js";
import { confirmEmailChange, type ConfirmEmailChangeData } from "./confirm-email-change.js";
import {
  accountDeleted,
  accountExported,
  emailChanged,
  googleLinked,
  passwordChanged,
  passwordReset,
  phoneAdded,
  phoneChanged,
  twoFactorDisabled,
  twoFactorEnabled,
  type SecurityNoticeData,
} from "./security-notices.js";
import { verifyEmail, type VerifyEmailData } from "./verify-email.js";

export { escapeHtml } from "./escape-html.js";
export type { RenderedMail } from "./mail-body.js";
export { resetPassword, type ResetPasswordData } from "./reset-password.js";
export { noPasswordToReset, type NoPasswordToResetData } from "./no-password-to-reset.js";
export { resetNeedsConfirmedEmail, type ResetNeedsConfirmedEmailData } from "./reset-needs-confirmed-email.js";
export { confirmEmailChange, type ConfirmEmailChangeData } from "./confirm-email-change.js";
export {
  accountDeleted,
  accountExported,
  emailChanged,
  googleLinked,
  passwordChanged,
  passwordReset,
  phoneAdded,
  phoneChanged,
  twoFactorDisabled,
  twoFactorEnabled,
  type SecurityNoticeData,
} from "./security-notices.js";
export { verifyEmail, type VerifyEmailData } from "./verify-email.js";

/** The data each kind of mail is rendered from. */
export interface MailDataByKind {
  verifyEmail: VerifyEmailData;
  resetPassword: ResetPasswordData;
  noPasswordToReset: NoPasswordToResetData;
  resetNeedsConfirmedEmail: ResetNeedsConfirmedEmailData;
  passwordChanged: SecurityNoticeData;
  passwordReset: SecurityNoticeData;
  twoFactorEnabled: SecurityNoticeData;
  twoFactorDisabled: SecurityNoticeData;
  accountExported: SecurityNoticeData;
  accountDeleted: SecurityNoticeData;
  confirmEmailChange: ConfirmEmailChangeData;
  emailChanged: SecurityNoticeData;
  phoneChanged: SecurityNoticeData;
  phoneAdded: SecurityNoticeData;
  googleLinked: SecurityNoticeData;
}

export type MailKind = keyof MailDataByKind;

export const MAIL_KINDS = [
  "verifyEmail",
  "resetPassword",
  "noPasswordToReset",
  "resetNeedsConfirmedEmail",
  "passwordChanged",
  "passwordReset",
  "twoFactorEnabled",
  "twoFactorDisabled",
  "accountExported",
  "accountDeleted",
  "confirmEmailChange",
  "emailChanged",
  "phoneChanged",
  "phoneAdded",
  "googleLinked",
] as const satisfies readonly MailKind[];

const templates: { readonly [K in MailKind]: (data: MailDataByKind[K], locale: Locale) => RenderedMail } = {
  verifyEmail,
  resetPassword,
  noPasswordToReset,
  resetNeedsConfirmedEmail,
  passwordChanged,
  passwordReset,
  twoFactorEnabled,
  twoFactorDisabled,
  accountExported,
  accountDeleted,
  confirmEmailChange,
  emailChanged,
  phoneChanged,
  phoneAdded,
  googleLinked,
};

/** The mail in the recipient's language (English unless told). */
export function renderMail<K extends MailKind>(kind: K, data: MailDataByKind[K], locale: Locale = "en"): RenderedMail {
  const template: (data: MailDataByKind[K], locale: Locale) => RenderedMail = templates[kind];
  return template(data, locale);
}

export function isMailKind(value: string): value is MailKind {
  return (MAIL_KINDS as readonly string[]).includes(value);
}
