import { t, type Locale } from "@mteja/i18n";
import { singleLine } from "./format.js";
import { renderMailBody, type RenderedMail } from "./mail-body.js";

export interface ResetNeedsConfirmedEmailData {
  tenantName: string;
  userName: string;
}

/**
 * The answer to forgot-password for an address that may not reset the password yet: it was attached
 * by an email change started on a session that was not fresh (a phone-only account's first email may
 * be, from a stolen access token), so no link goes to it until the owner, signed in on a fresh session,
 * confirms the address in the account's settings.
 */
export function resetNeedsConfirmedEmail(data: ResetNeedsConfirmedEmailData, locale: Locale = "en"): RenderedMail {
  const shop = singleLine(data.tenantName);
  return renderMailBody(
    {
      subject: t(locale, "mail.reset_needs_confirmed_email.subject", { shop }),
      greetingName: singleLine(data.userName),
      blocks: [
        { paragraph: t(locale, "mail.reset_needs_confirmed_email.body", { shop }) },
        { paragraph: t(locale, "mail.reset_needs_confirmed_email.confirm") },
        { paragraph: t(locale, "mail.reset_password.not_you") },
      ],
      signature: shop,
    },
    locale,
  );
}
