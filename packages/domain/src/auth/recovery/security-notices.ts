/**
 * Security notices (ASVS 6.3.7): password changed or reset, two-factor turned on or off, a way into
 * the account changed — by mail, and by text to a verified phone. Written through `tx`, in the
 * transaction of the change itself, so a notice exists exactly when the change committed. The caller
 * nudges the mail (and SMS) worker after commit.
 */
import { enqueueSms, type TenantTx } from "@mteja/db";
import { t } from "@mteja/i18n";
import { recipientLocale } from "../../shared/i18n/recipient-locale.js";
import { tenantDisplayName } from "../../shared/tenant.js";
import { chargeText } from "../../sms/text-budget.js";
import { mailTenant, writeMail, type MailContext, type MailUser } from "./mail.js";

export type SecurityNotice =
  | "passwordChanged"
  | "passwordReset"
  | "twoFactorEnabled"
  | "twoFactorDisabled"
  | "emailChanged"
  | "phoneChanged"
  | "phoneAdded";

export async function enqueueSecurityNotice(
  ctx: MailContext,
  tx: TenantTx,
  user: MailUser,
  notice: SecurityNotice,
): Promise<void> {
  const tenant = await mailTenant(ctx, tx, user.tenantId);
  await writeMail(ctx, tx, tenant, user, notice, { userName: user.name ?? "", when: ctx.deps.clock.now() });
}

export type SecurityText =
  | "sms.notice.phone_changed"
  | "sms.notice.email_changed"
  | "sms.notice.email_added"
  | "sms.notice.password_set"
  | "sms.notice.two_factor_enabled";

/**
 * A notice texted to `phone` (2547… as stored) in the account's language, through the SMS outbox.
 * Charged like every text (the shop's budget, the platform's texts: docs/limits.md#texts), and never
 * refused by them: a spent budget does not keep the owner from hearing of a change.
 */
export async function enqueueSecurityText(
  ctx: MailContext,
  tx: TenantTx,
  user: { id: string; tenantId: string },
  phone: string,
  text: SecurityText,
): Promise<void> {
  const tenant = await mailTenant(ctx, tx, user.tenantId);
  const body = t(await recipientLocale(tx, tenant, user.id), text, { shop: tenantDisplayName(tenant) });
  const charge = await chargeText({ ...ctx, tenant }, { kind: "notice" });
  try {
    // No expiry: unlike a code, a notice is worth sending late.
    await enqueueSms(tx, { tenantId: tenant.id, kind: "security_notice", to: `+${phone}`, userId: user.id, body, expiresAt: null }, ctx.deps.clock.now());
  } catch (error) {
    await charge.refund();
    throw error;
  }
}
