/**
 * Security notices by mail (ASVS 6.3.7): password changed or reset, two-factor turned on or off.
 * Written through `tx`, in the transaction of the change itself, so a notice exists exactly when
 * the change committed. The caller nudges the mail worker after commit.
 */
import type { TenantTx } from "@mteja/db";
import { mailTenant, writeMail, type MailContext, type MailUser } from "./mail.js";

export type SecurityNotice = "passwordChanged" | "passwordReset" | "twoFactorEnabled" | "twoFactorDisabled";

export async function enqueueSecurityNotice(
  ctx: MailContext,
  tx: TenantTx,
  user: MailUser,
  notice: SecurityNotice,
): Promise<void> {
  const tenant = await mailTenant(ctx, tx, user.tenantId);
  await writeMail(ctx, tx, tenant, user, notice, { userName: user.name ?? "", when: ctx.deps.clock.now() });
}
