import { formatWhen, t, type Locale } from "@mteja/i18n";
import { singleLine } from "./format.js";
import { renderMailBody, type RenderedMail } from "./mail-body.js";
import type { SecurityNoticeData } from "./security-notices.js";

/** The data-rights notices (docs/data-rights.md): the customer's data was exported, their account erased. */
export function accountExported(data: SecurityNoticeData, locale: Locale = "en"): RenderedMail {
  const shop = singleLine(data.tenantName);
  return renderMailBody(
    {
      subject: t(locale, "mail.account_exported.subject", { shop }),
      greetingName: singleLine(data.userName),
      blocks: [
        { paragraph: t(locale, "mail.account_exported.body", { shop, when: formatWhen(data.when, locale) }) },
        { paragraph: t(locale, "mail.account_exported.keep_safe") },
        { paragraph: t(locale, "mail.notice.not_you", { shop }) },
      ],
      signature: shop,
    },
    locale,
  );
}

export function accountDeleted(data: SecurityNoticeData, locale: Locale = "en"): RenderedMail {
  const shop = singleLine(data.tenantName);
  return renderMailBody(
    {
      subject: t(locale, "mail.account_deleted.subject", { shop }),
      greetingName: singleLine(data.userName),
      blocks: [
        { paragraph: t(locale, "mail.account_deleted.body", { shop, when: formatWhen(data.when, locale) }) },
        { paragraph: t(locale, "mail.account_deleted.payments_kept") },
        { paragraph: t(locale, "mail.account_deleted.welcome_back", { shop }) },
      ],
      signature: shop,
    },
    locale,
  );
}
