/** The mail that tells the customer their data was exported or their account erased (in their language, as every account mail). */
import type { TenantTx } from "@mteja/db";
import { mailTenant, writeMail, type MailContext, type MailUser } from "../auth/recovery/mail.js";

export type DataRightsNotice = "accountExported" | "accountDeleted";

/** Written through `tx`, in the transaction of the change; the caller nudges the mail worker after commit. */
export async function enqueueDataRightsNotice(ctx: MailContext, tx: TenantTx, user: MailUser, notice: DataRightsNotice): Promise<void> {
  const tenant = await mailTenant(ctx, tx, user.tenantId);
  await writeMail(ctx, tx, tenant, user, notice, { userName: user.name ?? "", when: ctx.deps.clock.now() });
}
