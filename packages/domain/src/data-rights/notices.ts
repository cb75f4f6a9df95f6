/** The mail that tells the customer their data was exported or their account erased, in their language. */
import type { TenantTx } from "@mteja/db";
import { mailTenant, writeMail, type MailContext } from "../auth/recovery/mail.js";
import { dataRightsNoticeTexts, noticeLocaleOf, type DataRightsNotice } from "./notice-texts.js";

export interface NoticeRecipient {
  id: string;
  tenantId: string;
  email: string;
  name: string;
  preferences: unknown;
}

/** Written through `tx`, in the transaction of the change; the caller nudges the mail worker after commit. */
export async function enqueueDataRightsNotice(ctx: MailContext, tx: TenantTx, user: NoticeRecipient, notice: DataRightsNotice): Promise<void> {
  const tenant = await mailTenant(ctx, tx, user.tenantId);
  const locale = noticeLocaleOf(user.preferences);
  await writeMail(ctx, tx, tenant, user, notice, {
    userName: user.name,
    when: ctx.deps.clock.now(),
    locale,
    text: dataRightsNoticeTexts[notice][locale],
  });
}
