import { t, type Locale } from "@mteja/i18n";
import { singleLine } from "./format.js";
import { renderMailBody, type RenderedMail } from "./mail-body.js";

export interface NoPasswordToResetData {
  tenantName: string;
  userName: string;
}

/**
 * The answer to forgot-password for an account that has no password (created by phone sign-in): a
 * reset would give it a first password on the strength of an email that may have been attached
 * without a fresh proof, so the owner is told to sign in by phone and set one there.
 */
export function noPasswordToReset(data: NoPasswordToResetData, locale: Locale = "en"): RenderedMail {
  const shop = singleLine(data.tenantName);
  return renderMailBody(
    {
      subject: t(locale, "mail.no_password_to_reset.subject", { shop }),
      greetingName: singleLine(data.userName),
      blocks: [
        { paragraph: t(locale, "mail.no_password_to_reset.body", { shop }) },
        { paragraph: t(locale, "mail.no_password_to_reset.set_one") },
        { paragraph: t(locale, "mail.reset_password.not_you") },
      ],
      signature: shop,
    },
    locale,
  );
}
