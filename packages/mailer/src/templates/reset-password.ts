import { t, type Locale } from "@mteja/i18n";
import { assertWebLink, singleLine } from "./format.js";
import { renderMailBody, type RenderedMail } from "./mail-body.js";

export interface ResetPasswordData {
  tenantName: string;
  userName: string;
  link: string;
  validMinutes: number;
}

export function resetPassword(data: ResetPasswordData, locale: Locale = "en"): RenderedMail {
  const shop = singleLine(data.tenantName);
  return renderMailBody(
    {
      subject: t(locale, "mail.reset_password.subject", { shop }),
      greetingName: singleLine(data.userName),
      blocks: [
        { paragraph: t(locale, "mail.reset_password.intro", { shop }) },
        { button: { label: t(locale, "mail.reset_password.button"), href: assertWebLink(data.link) } },
        { paragraph: t(locale, "mail.reset_password.validity", { minutes: data.validMinutes }) },
        { paragraph: t(locale, "mail.reset_password.not_you") },
      ],
      signature: shop,
    },
    locale,
  );
}
