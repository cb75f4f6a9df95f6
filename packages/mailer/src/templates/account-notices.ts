import { formatWhen, singleLine } from "./format.js";
import { renderMailBody, type RenderedMail } from "./mail-body.js";

/** The wording of a notice, written by the caller in each language it sends (the shop name and time are filled in here). */
export interface AccountNoticeText {
  subject(shop: string): string;
  paragraphs(shop: string, when: string): readonly string[];
}

/** Data of the notices about the customer's data rights: their data exported, their account erased. */
export interface AccountNoticeData {
  tenantName: string;
  userName: string;
  when: Date;
  locale: "en" | "sw";
  text: AccountNoticeText;
}

const swahiliNairobiTime = new Intl.DateTimeFormat("sw-KE", { dateStyle: "full", timeStyle: "short", timeZone: "Africa/Nairobi" });

function formatWhenIn(locale: AccountNoticeData["locale"], when: Date): string {
  return locale === "sw" ? `${swahiliNairobiTime.format(when)} (saa za Afrika Mashariki)` : formatWhen(when);
}

export function accountNotice(data: AccountNoticeData): RenderedMail {
  const shop = singleLine(data.tenantName);
  return renderMailBody({
    subject: data.text.subject(shop),
    greetingName: singleLine(data.userName),
    blocks: data.text.paragraphs(shop, formatWhenIn(data.locale, data.when)).map((paragraph) => ({ paragraph })),
    signature: shop,
  });
}
