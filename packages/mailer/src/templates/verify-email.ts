import { assertWebLink, singleLine } from "./format.js";
import { renderMailBody, type RenderedMail } from "./mail-body.js";

export interface VerifyEmailData {
  tenantName: string;
  userName: string;
  link: string;
  /** How long the link works; the service's verification tokens last 24 hours. */
  validHours?: number;
}

export function verifyEmail(data: VerifyEmailData): RenderedMail {
  const shop = singleLine(data.tenantName);
  const hours = data.validHours ?? 24;
  return renderMailBody({
    subject: `Confirm your email for ${shop}`,
    greetingName: singleLine(data.userName),
    blocks: [
      { paragraph: `Thanks for creating an account with ${shop}. Please confirm that this is your email address:` },
      { button: { label: "Confirm my email", href: assertWebLink(data.link) } },
      { paragraph: `This link works for ${hours} hours and can be used once.` },
      { paragraph: `If you did not create an account with ${shop}, you can ignore this email.` },
    ],
    signature: shop,
  });
}
