import { t, type Locale } from "@mteja/i18n";
import { assertWebLink, singleLine } from "./format.js";
import { renderMailBody, type RenderedMail } from "./mail-body.js";

export interface VerifyEmailData {
  tenantName: string;
  userName: string;
  link: string;
  /** How long the link works; the service's verification tokens last 24 hours. */
  validHours?: number;
}

export function verifyEmail(data: VerifyEmailData, locale: Locale = "en"): RenderedMail {
  const shop = singleLine(data.tenantName);
  const hours = data.validHours ?? 24;
  return renderMailBody(
    {
      subject: t(locale, "mail.verify_email.subject", { shop }),
      greetingName: singleLine(data.userName),
      blocks: [
        { paragraph: t(locale, "mail.verify_email.intro", { shop }) },
        { button: { label: t(locale, "mail.verify_email.button"), href: assertWebLink(data.link) } },
        { paragraph: t(locale, "mail.verify_email.validity", { hours }) },
        { paragraph: t(locale, "mail.verify_email.not_you", { shop }) },
      ],
      signature: shop,
    },
    locale,
  );
}
