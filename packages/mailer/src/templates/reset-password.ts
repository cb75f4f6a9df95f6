import { assertWebLink, singleLine } from "./format.js";
import { renderMailBody, type RenderedMail } from "./mail-body.js";

export interface ResetPasswordData {
  tenantName: string;
  userName: string;
  link: string;
  validMinutes: number;
}

export function resetPassword(data: ResetPasswordData): RenderedMail {
  const shop = singleLine(data.tenantName);
  return renderMailBody({
    subject: `Reset your ${shop} password`,
    greetingName: singleLine(data.userName),
    blocks: [
      { paragraph: `Someone asked to reset the password of your ${shop} account. If it was you, choose a new password here:` },
      { button: { label: "Choose a new password", href: assertWebLink(data.link) } },
      { paragraph: `This link works for ${data.validMinutes} minutes and can be used once.` },
      { paragraph: "If you did not ask for this, you can ignore this email: your password stays the same." },
    ],
    signature: shop,
  });
}
