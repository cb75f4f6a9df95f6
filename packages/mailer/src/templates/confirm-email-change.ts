import { t, type Locale } from "@mteja/i18n";
import { assertWebLink, singleLine } from "./format.js";
import { renderMailBody, type RenderedMail } from "./mail-body.js";

/** The link that confirms a new address for an existing account (docs/email.md), sent to that address. */
export interface ConfirmEmailChangeData {
  tenantName: string;
  userName: string;
  link: string;
  validHours: number;
}

export function confirmEmailChange(data: ConfirmEmailChangeData, locale: Locale = "en"): RenderedMail {
  const shop = singleLine(data.tenantName);
  return renderMailBody(
    {
      subject: t(locale, "mail.confirm_email_change.subject", { shop }),
      greetingName: singleLine(data.userName),
      blocks: [
        { paragraph: t(locale, "mail.confirm_email_change.intro", { shop }) },
        { button: { label: t(locale, "mail.confirm_email_change.button"), href: assertWebLink(data.link) } },
        { paragraph: t(locale, "mail.verify_email.validity", { hours: data.validHours }) },
        { paragraph: t(locale, "mail.confirm_email_change.signed_in", { shop }) },
        { paragraph: t(locale, "mail.confirm_email_change.not_you") },
      ],
      signature: shop,
    },
    locale,
  );
}
