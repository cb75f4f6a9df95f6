/**
 * Security notices (ASVS 6.3.7): password changed or reset, two-factor turned on or off, a way into
 * the account changed — by mail, and by text to a verified phone. Written through `tx`, in the
 * transaction of the change itself, so a notice exists exactly when the change committed. The caller
 * nudges the mail (and SMS) worker after commit.
 *
 * How often an account is told is bounded (docs/limits.md#security-notices): each change told takes one
 * point of `security_notices_per_account`, whatever it sends; past it the change is still made and
 * recorded as a security event, but nothing is sent and no text is charged. A mail to an address nobody
 * has verified also takes a point of `mails_per_account`, the cap of all mail such an address gets
 * (docs/mail.md#notices-to-an-unverified-address).
 */
import { outboxes, type TenantTx } from "@mteja/db";
import { t } from "@mteja/i18n";
import { recipientLocale } from "../../shared/i18n/recipient-locale.js";
import { tenantDisplayName, type Tenant } from "../../shared/tenant.js";
import { chargeText, shopLimit } from "../../sms/text-budget.js";
import { mailCapAllows, mailTenant, writeMail, type MailContext, type MailUser } from "./mail.js";

export type SecurityNotice =
  | "passwordChanged"
  | "passwordReset"
  | "twoFactorEnabled"
  | "twoFactorDisabled"
  | "emailChanged"
  | "phoneChanged"
  | "phoneAdded"
  | "googleLinked";

export type SecurityText =
  | "sms.notice.phone_changed"
  | "sms.notice.email_changed"
  | "sms.notice.email_added"
  | "sms.notice.email_confirmed"
  | "sms.notice.password_set"
  | "sms.notice.two_factor_enabled"
  | "sms.notice.google_linked";

/** The account told of a change, as it was before the change: its email and its phone, each with whether it is verified. */
export interface NoticeAccount extends MailUser {
  emailVerified: boolean;
  phone: string | null;
  phoneVerified: boolean;
}

/** What one change sends: a mail to the account's email, a text to its verified phone, or both. */
export interface SecurityNoticeOf {
  mail?: SecurityNotice | undefined;
  text?: SecurityText | undefined;
}

/**
 * Tells the account of one change: the mail (to its email, if it has one) and the text (to its phone,
 * only if verified: an unverified number may be anyone's). One point of `security_notices_per_account`
 * for the change, none where there is nobody to tell.
 */
export async function sendSecurityNotice(ctx: MailContext, tx: TenantTx, account: NoticeAccount, notice: SecurityNoticeOf): Promise<void> {
  const mail = account.email !== null ? notice.mail : undefined;
  const phone = account.phoneVerified ? account.phone : null;
  const text = phone !== null ? notice.text : undefined;
  if (mail === undefined && text === undefined) return;
  const tenant = await mailTenant(ctx, tx, account.tenantId);
  if (!(await noticeAllowed(ctx, tenant, account))) return;
  // An address nobody verified may be anyone's: it gets no more mail than its account's cap, notices included.
  if (mail !== undefined && (account.emailVerified || (await mailCapAllows(ctx, account)))) {
    await writeMail(ctx, tx, tenant, account, mail, { userName: account.name ?? "", when: ctx.deps.clock.now() });
  }
  if (text !== undefined && phone !== null) await writeSecurityText(ctx, tx, tenant, account, phone, text);
}

/** A notice by mail alone (a change that is not a new way in: the password changed or reset, two-factor off). */
export async function enqueueSecurityNotice(ctx: MailContext, tx: TenantTx, account: MailUser & { emailVerified: boolean }, notice: SecurityNotice): Promise<void> {
  await sendSecurityNotice(ctx, tx, { ...account, phone: null, phoneVerified: false }, { mail: notice });
}

/**
 * Counts the change against the account's notices of the window (the shop's own number, where it has
 * one); past it, says so in the log once per account and window, and answers false.
 */
async function noticeAllowed(ctx: MailContext, tenant: Tenant, account: { id: string; tenantId: string }): Promise<boolean> {
  const { limiter, logger } = ctx.deps;
  const limit = shopLimit(tenant, "security_notices_per_account") ?? limiter.numberOf("security_notices_per_account");
  const decision = await limiter.consume("security_notices_per_account", `${account.tenantId}:${account.id}`, limit);
  if (decision.allowed) return true;
  if (decision.count === limit + 1) {
    logger.warn(
      { tenantId: account.tenantId, userId: account.id, limit, windowEndsInSeconds: decision.retryAfter },
      "security notices of this account reached security_notices_per_account: further changes are recorded as security events but not mailed or texted until the window ends",
    );
  }
  return false;
}

/**
 * A notice texted to `phone` (2547… as stored) in the account's language, through the SMS outbox.
 * Charged like every text (the platform's texts: docs/limits.md#texts), and never refused there: a
 * spent budget does not keep the owner from hearing of a change.
 */
async function writeSecurityText(ctx: MailContext, tx: TenantTx, tenant: Tenant, user: { id: string }, phone: string, text: SecurityText): Promise<void> {
  const body = t(await recipientLocale(tx, tenant, user.id), text, { shop: tenantDisplayName(tenant) });
  const charge = await chargeText({ ...ctx, tenant }, { kind: "notice" });
  try {
    // No expiry: unlike a code, a notice is worth sending late.
    const to = `+${phone}`;
    const notice = { tenantId: tenant.id, kind: "security_notice", to, userId: user.id, body, expiresAt: null };
    await outboxes.enqueueText(tx, notice, ctx.deps.clock.now());
  } catch (error) {
    await charge.refund();
    throw error;
  }
}
