/**
 * Email verification (docs/sessions.md#emailed-tokens): registration writes a verification mail
 * in its own transaction; POST verify-email spends the token and sets email_verified; resend
 * replaces any unused link with a new one.
 */
import { users, type TenantTx } from "@mteja/db";
import type { z } from "zod";
import type { AuthedCtx, Context, TenantCtx } from "../ports.js";
import { DomainError } from "../../shared/errors.js";
import type { Tenant } from "../../shared/tenant.js";
import { accountLink, mailCapAllows, mailTenant, writeMail, type MailContext, type MailUser } from "./mail.js";
import type { verifyEmailInput } from "./schemas.js";
import { createEmailToken, emailTokenLifetimeSeconds, findEmailToken, invalidEmailToken, revokeEmailTokens, spendEmailToken } from "./one-time-tokens.js";

type Tx = TenantTx;

/**
 * Called by register inside its transaction. Not counted against the mail cap: an address can be
 * registered only once, so this mail cannot be repeated to flood an inbox.
 */
export async function enqueueVerificationMail(ctx: MailContext, tx: Tx, user: MailUser): Promise<void> {
  const tenant = await mailTenant(ctx, tx, user.tenantId);
  await writeVerificationMail(ctx, tx, tenant, user);
}

async function writeVerificationMail(ctx: Context, tx: Tx, tenant: Tenant, user: MailUser): Promise<void> {
  // An account created by phone sign-in has no address to verify.
  if (user.email === null) return;
  const token = await createEmailToken(ctx.deps, tx, user, "verify_email");
  await writeMail(ctx, tx, tenant, user, "verifyEmail", {
    userName: user.name ?? "",
    link: accountLink(ctx, tenant, "verify-email", { token, email: user.email }),
    validHours: emailTokenLifetimeSeconds.verify_email / 3600,
  });
}

export async function verifyEmail(ctx: TenantCtx, input: z.infer<typeof verifyEmailInput>): Promise<void> {
  const { deps, tenant } = ctx;
  await ctx.deps.db.transaction(ctx.db, async (tx) => {
    const found = await findEmailToken(deps, tx, { tenantId: tenant.id, email: input.email, purpose: "verify_email", token: input.token });
    if (!found || !(await spendEmailToken(deps, tx, found.id))) throw invalidEmailToken();
    await users.markEmailVerified(tx, found.user.id);
    await revokeEmailTokens(deps, tx, found.user, "verify_email");
  });
}

export type ResendOutcome = "sent" | "already_verified";

/** Sends a new link (the previous unused ones stop working). Over the mail cap: same answer, no mail. */
export async function resendVerificationMail(ctx: AuthedCtx): Promise<ResendOutcome> {
  const { deps, tenant, auth } = ctx;
  const user = await users.findById(ctx.db, auth.sub);
  if (!user) throw new DomainError("INVALID_TOKEN");
  if (user.emailVerified) return "already_verified";
  if (!(await mailCapAllows(ctx, user))) return "sent";
  await ctx.deps.db.transaction(ctx.db, async (tx) => {
    await revokeEmailTokens(deps, tx, user, "verify_email");
    await writeVerificationMail(ctx, tx, tenant, user);
  });
  deps.nudgeMail();
  return "sent";
}
