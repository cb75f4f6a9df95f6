/**
 * Password reset by emailed link (forgot-password / reset-password; docs/sessions.md#emailed-tokens,
 * docs/mail.md). Forgot-password never reveals whether an account exists: same status, same body,
 * and the same work before answering (the write for a known account is not awaited).
 */
import { oneTimeTokens, users } from "@mteja/db";
import type { z } from "zod";
import { clearRefreshCookie } from "../sessions/refresh-cookie.js";
import { noStore } from "../../shared/request.js";
import { randomToken } from "../../shared/secrets.js";
import { revokeUserSessions } from "../sessions/sessions.js";
import type { Tenant } from "../../shared/tenant.js";
import type { TenantCtx } from "../ports.js";
import { accountLink, mailCapAllows, writeMail, type MailUser } from "./mail.js";
import type { forgotPasswordInput, resetPasswordInput } from "./schemas.js";
import { enqueueSecurityNotice } from "./security-notices.js";
import { recordSecurityEvent } from "../../security-events/record.js";
import { createEmailToken, emailTokenLifetimeSeconds, findEmailToken, invalidEmailToken, spendEmailToken } from "./one-time-tokens.js";
import { assertPasswordNotBreached } from "../breached-passwords/check-password.js";

/** Long enough for the answer to leave the process first (measured: 0 ms still showed a difference). */
const afterAnswerMs = 10;

export async function forgotPassword(ctx: TenantCtx, input: z.infer<typeof forgotPasswordInput>): Promise<void> {
  const { deps, tenant } = ctx;
  const user = await users.findByEmail(ctx.db, tenant.id, input.email);
  // Generated for unknown emails too, so both answers cost the same before they are sent.
  const token = randomToken(deps.random, "hex");
  if (!user) return;
  // Written only once the answer is out: awaiting the cap check and the write for real accounts,
  // or even running them alongside the response (event loop, CPU, the embedded database's one
  // connection), made those answers measurably slower than for unknown emails.
  void deps.clock
    .sleep(afterAnswerMs)
    .then(() => {
      if (user.passwordHash === null) return writeNoLinkMail(ctx, tenant, user, "noPasswordToReset");
      if (!user.emailResetsPassword) return writeNoLinkMail(ctx, tenant, user, "resetNeedsConfirmedEmail");
      return writeResetMail(ctx, tenant, user, token);
    })
    .catch((error: unknown) => {
      // Only the error's name: a database error may quote the row, and the row holds the link.
      deps.logger.error({ tenantId: tenant.id, userId: user.id, error: error instanceof Error ? error.name : "unknown" }, "reset mail not written");
    });
}

async function writeResetMail(ctx: TenantCtx, tenant: Tenant, user: MailUser, token: string): Promise<void> {
  const { deps } = ctx;
  const email = user.email;
  if (email === null || !(await mailCapAllows(ctx, user))) return;
  await ctx.deps.db.transaction(ctx.db, async (tx) => {
    await createEmailToken(deps, tx, user, "reset_password", token);
    await writeMail(ctx, tx, tenant, user, "resetPassword", {
      userName: user.name ?? "",
      link: accountLink(ctx, tenant, "reset-password", { token, email }),
      validMinutes: emailTokenLifetimeSeconds.reset_password / 60,
    });
  });
  deps.nudgeMail();
}

/**
 * The answer when the address may not reset the password, a notice without a link. A reset replaces a
 * forgotten password; it never gives an account its first one (`noPasswordToReset`: sign in by phone
 * and set one under step-up). And an address attached by a change started on a session that was not
 * fresh — a phone-only account's first email may be, from a stolen token (docs/step-up.md) — never
 * resets the password the owner sets later, until the owner confirms it from a fresh session
 * (`resetNeedsConfirmedEmail`, docs/email.md#which-address-resets-the-password).
 */
async function writeNoLinkMail(ctx: TenantCtx, tenant: Tenant, user: MailUser, kind: "noPasswordToReset" | "resetNeedsConfirmedEmail"): Promise<void> {
  if (user.email === null || !(await mailCapAllows(ctx, user))) return;
  await ctx.deps.db.transaction(ctx.db, (tx) => writeMail(ctx, tx, tenant, user, kind, { userName: user.name ?? "" }));
  ctx.deps.nudgeMail();
}

export async function resetPassword(ctx: TenantCtx, input: z.infer<typeof resetPasswordInput>): Promise<void> {
  const { deps, tenant } = ctx;
  const query = { tenantId: tenant.id, email: input.email, purpose: "reset_password" as const, token: input.token };
  // Checked before hashing, so a wrong token costs no argon2 work; spent again under the
  // transaction below, so two requests with the same token cannot both succeed.
  const found = await findEmailToken(deps, ctx.db, query);
  // Links mailed before these rules (no link for an account without a password, nor to an address
  // that may not reset it) set nothing either.
  if (!found || !found.user.hasPassword || !found.user.emailResetsPassword) throw invalidEmailToken();
  await assertPasswordNotBreached(ctx, input.new_password, "new_password");
  const passwordHash = await deps.passwords.hash(input.new_password);
  const user = found.user;
  await ctx.deps.db.transaction(ctx.db, async (tx) => {
    if (!(await spendEmailToken(deps, tx, found.id))) throw invalidEmailToken();
    // Following the emailed link proves the address too.
    await users.setPassword(tx, user.id, { passwordHash, changedAt: deps.clock.now(), emailVerified: true });
    // Every other reset link, and any sign-in half done (otp_token), ends with the old password.
    await oneTimeTokens.spendUnused(tx, { userId: user.id }, { not: "verify_email" }, deps.clock.now());
    await revokeUserSessions(deps, tx, user.id, "password_reset");
    await recordSecurityEvent(ctx, tx, user.tenantId, { userId: user.id, type: "password.changed", details: { via: "reset" } });
    // The link just proved the address (email_verified is set above).
    await enqueueSecurityNotice(ctx, tx, { ...user, emailVerified: true }, "passwordReset");
  });
  deps.nudgeMail();
  // The owner has proven control of the account: earlier failed logins no longer lock it.
  await deps.limiter.reset("login_failures_per_account", `${tenant.id}:${user.email}`);
  clearRefreshCookie(ctx);
  noStore(ctx);
}
