import { formatWhen, singleLine } from "./format.js";
import { renderMailBody, type RenderedMail } from "./mail-body.js";

/** Data of the notices that tell a user about a security-relevant change to their account (ASVS 6.3.7). */
export interface SecurityNoticeData {
  tenantName: string;
  userName: string;
  when: Date;
}

export function passwordChanged(data: SecurityNoticeData): RenderedMail {
  const shop = singleLine(data.tenantName);
  return renderMailBody({
    subject: `Your ${shop} password was changed`,
    greetingName: singleLine(data.userName),
    blocks: [
      { paragraph: `The password of your ${shop} account was changed on ${formatWhen(data.when)}. For your safety, you were signed out on your other devices.` },
      { paragraph: "If you made this change, there is nothing more to do." },
      { paragraph: notYouAdvice(shop) },
    ],
    signature: shop,
  });
}

export function passwordReset(data: SecurityNoticeData): RenderedMail {
  const shop = singleLine(data.tenantName);
  return renderMailBody({
    subject: `Your ${shop} password was reset`,
    greetingName: singleLine(data.userName),
    blocks: [
      { paragraph: `The password of your ${shop} account was reset with an emailed link on ${formatWhen(data.when)}. For your safety, you were signed out on your other devices.` },
      { paragraph: "If you made this change, there is nothing more to do." },
      { paragraph: notYouAdvice(shop) },
    ],
    signature: shop,
  });
}

export function twoFactorEnabled(data: SecurityNoticeData): RenderedMail {
  const shop = singleLine(data.tenantName);
  return renderMailBody({
    subject: `Two-step sign-in is now on for your ${shop} account`,
    greetingName: singleLine(data.userName),
    blocks: [
      { paragraph: `Two-step sign-in was turned on for your ${shop} account on ${formatWhen(data.when)}. From now on, signing in also asks for a 6-digit code from your authenticator app.` },
      { paragraph: "Keep your recovery codes somewhere safe: they let you sign in if you lose your phone." },
      { paragraph: notYouAdvice(shop) },
    ],
    signature: shop,
  });
}

export function twoFactorDisabled(data: SecurityNoticeData): RenderedMail {
  const shop = singleLine(data.tenantName);
  return renderMailBody({
    subject: `Two-step sign-in was turned off for your ${shop} account`,
    greetingName: singleLine(data.userName),
    blocks: [
      { paragraph: `Two-step sign-in was turned off for your ${shop} account on ${formatWhen(data.when)}. Signing in now needs only your password.` },
      { paragraph: `${notYouAdvice(shop)} Then turn two-step sign-in back on.` },
    ],
    signature: shop,
  });
}

function notYouAdvice(shop: string): string {
  return `If this was not you, someone may have access to your account: reset your password now with "Forgot password" on the ${shop} sign-in page, and let ${shop} know.`;
}
