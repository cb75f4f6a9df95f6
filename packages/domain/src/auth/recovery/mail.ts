/**
 * Writing account mail to the outbox, inside the transaction of the change that causes it
 * (packages/mailer README). The worker in apps/api sends it after commit; callers nudge it.
 */
import { outboxes, tenants, type TenantTx } from "@mteja/db";
import { newOutboxMail, type MailDataByKind, type MailKind } from "@mteja/mailer";
import type { Context } from "../ports.js";
import { recipientLocale } from "../../shared/i18n/recipient-locale.js";
import { tenantDisplayName, toTenant, type Tenant } from "../../shared/tenant.js";

type Tx = TenantTx;

/** The account a mail goes to. */
export interface MailUser {
  id: string;
  tenantId: string;
  /** Null for an account created by phone sign-in: it gets no mail. */
  email: string | null;
  name: string | null;
}

/** Callers inside a request usually know the tenant already; others (or a mismatch) read it. */
export type MailContext = Context & { tenant?: Tenant };

/**
 * The tenant a mail is sent for. Read through the transaction, never through the tenant directory:
 * on the embedded database a query outside the open transaction would wait for it forever.
 */
export async function mailTenant(ctx: MailContext, tx: Tx, tenantId: string): Promise<Tenant> {
  if (ctx.tenant?.id === tenantId) return ctx.tenant;
  const row = await tenants.findTenant(tx, tenantId);
  if (!row) throw new Error(`No tenant ${tenantId} for a mail`);
  return toTenant(row);
}

/**
 * `${appUrl}/<page>?token=…&email=…`, appUrl being the tenant's own or APP_URL; an email change's link
 * (docs/email.md) is the verification page's with `&change=1`.
 */
export function accountLink(
  ctx: Context,
  tenant: Tenant,
  page: "verify-email" | "reset-password",
  params: { token: string; email: string; change?: true },
): string {
  const base = (tenant.settings.appUrl ?? ctx.deps.config.appUrl).replace(/\/+$/, "");
  const query = new URLSearchParams({ token: params.token, email: params.email, ...(params.change ? { change: "1" } : {}) });
  return `${base}/${page}?${query.toString()}`;
}

/**
 * Renders the mail in the recipient's language and inserts it into the outbox through `tx`. Sender
 * name: the tenant's display name.
 */
export async function writeMail<K extends MailKind>(
  ctx: Context,
  tx: Tx,
  tenant: Tenant,
  user: MailUser,
  kind: K,
  data: Omit<MailDataByKind[K], "tenantName">,
): Promise<void> {
  if (user.email === null) return;
  const locale = await recipientLocale(tx, tenant, user.id);
  const mail = newOutboxMail(kind, data, { tenantId: tenant.id, tenantName: tenantDisplayName(tenant), to: user.email, locale });
  await outboxes.enqueueMail(tx, mail, ctx.deps.clock.now());
}

/** "5 verification or reset mails per account per hour" (docs/limits.md). */
export async function mailCapAllows(ctx: Context, user: { id: string; tenantId: string }): Promise<boolean> {
  const decision = await ctx.deps.limiter.consume("mails_per_account", `${user.tenantId}:${user.id}`);
  if (!decision.allowed) {
    ctx.deps.logger.info({ tenantId: user.tenantId, userId: user.id }, "mail cap reached; no mail written");
  }
  return decision.allowed;
}
