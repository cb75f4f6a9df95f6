/**
 * Email management (docs/email.md): me/email/start mails a link to the new address, me/email/verify
 * (the signed-in account, with the token of its own link) switches the account to it, verified.
 *
 * start never looks at other accounts: whether the address is free is decided at verify (409
 * EMAIL_IN_USE), so start's answer, and the work before it, are the same for a free and a taken
 * address. The link is an emailed one-time token (recovery/one-time-tokens.ts) that carries its
 * address; a newer start spends the older link.
 *
 * The link also carries whether its start was made on a fresh session. A phone-only account may add
 * its first email on a session that is not (docs/step-up.md), so from a stolen access token too: such
 * an address never resets the password (`emailResetsPassword` false) until the owner confirms it again
 * from a fresh session — a start for the account's own address, allowed in exactly that case.
 *
 * And it names the session that started it: only that session may use it. Its mail goes to an address
 * that may not be the owner's (the restore above mails the address already attached, perhaps by a
 * thief), so a link usable from any session of the account would let another one — a stolen one —
 * confirm a change the owner started, and end the owner's session instead of its own.
 */
import { isUniqueViolation, oneTimeTokens, users } from "@mteja/db";
import type { z } from "zod";
import { consumeAll } from "../../shared/abuse-limits.js";
import { DomainError } from "../../shared/errors.js";
import { recordSecurityEvent } from "../../security-events/record.js";
import type { AuthedCtx } from "../ports.js";
import type { SessionCtx } from "../sessions/sessions.js";
import { secureSignInFactorChange } from "../factor-changes.js";
import { isFresh } from "../step-up/require-step-up.js";
import { accountLink, writeMail } from "../recovery/mail.js";
import { createEmailChangeToken, emailTokenLifetimeSeconds, findEmailChangeToken, invalidEmailToken, revokeEmailTokens, spendEmailToken } from "../recovery/one-time-tokens.js";
import type { emailStartInput, emailVerifyInput } from "./schemas.js";

const emailInUse = () => new DomainError("EMAIL_IN_USE");
const linkOfAnotherSession = () => new DomainError("INVALID_TOKEN", "auth.email_link_other_session", { status: 400 });

/**
 * `guestUpgrade`: the first address of a guest upgrading in place (auth/guest/upgrade.ts). A guest has no
 * other factor a stale session could be hiding from, so its address resets the password as a fresh one's.
 */
export async function startEmailChange(ctx: SessionCtx, input: z.infer<typeof emailStartInput>, guestUpgrade = false): Promise<void> {
  const { deps, tenant } = ctx;
  const user = await users.findById(ctx.db, ctx.auth.sub);
  if (!user) throw new DomainError("INVALID_TOKEN");
  const fromFreshSession = guestUpgrade || isFresh(ctx.session, deps.clock.now());
  // The account's own address is no change; it is confirmed again only where it may not yet reset the
  // password, and only from a fresh session (step-up has asked for one: the account has an email).
  if (user.email === input.email && (user.emailResetsPassword || !fromFreshSession)) {
    throw new DomainError("VALIDATION_ERROR", undefined, { details: [{ path: "email", message: "detail.email_is_current" }] });
  }
  // Per account (docs/limits.md): the caller learns only about its own account, so 429 says so.
  await consumeAll(deps.limiter, [["email_changes_per_account", `${tenant.id}:${user.id}`]]);
  // Per address, whoever asks: many accounts cannot flood one inbox. Over it: the same answer, no mail.
  const forAddress = await deps.limiter.consume("email_change_mails_per_address", `${tenant.id}:${input.email}`);
  if (!forAddress.allowed) {
    deps.logger.info({ tenantId: tenant.id, userId: user.id }, "email change mail cap of the address reached; no mail written");
    return;
  }
  await ctx.deps.db.transaction(ctx.db, async (tx) => {
    await revokeEmailTokens(deps, tx, user, "change_email");
    const token = await createEmailChangeToken(deps, tx, user, { newEmail: input.email, fromFreshSession, sessionId: ctx.auth.sid });
    // To the new address, in the account's language.
    await writeMail(ctx, tx, tenant, { ...user, email: input.email }, "confirmEmailChange", {
      userName: user.name ?? "",
      link: accountLink(ctx, tenant, "verify-email", { token, email: input.email, change: true }),
      validHours: emailTokenLifetimeSeconds.change_email / 3600,
    });
  });
  deps.nudgeMail();
}

export async function verifyEmailChange(ctx: AuthedCtx, input: z.infer<typeof emailVerifyInput>) {
  const { deps, tenant } = ctx;
  try {
    const email = await ctx.deps.db.transaction(ctx.db, async (tx) => {
      const found = await findEmailChangeToken(deps, tx, { tenantId: tenant.id, userId: ctx.auth.sub, token: input.token });
      if (!found) throw invalidEmailToken();
      // Only the session that asked: the link goes to an address someone else may read (an address the
      // account's restore confirms may be a thief's), and another session of the account may be theirs.
      // Refused without spending it, so it still works where it was asked for.
      if (found.sessionId !== ctx.auth.sid) throw linkOfAnotherSession();
      const holder = await users.findOtherWithEmail(tx, found.newEmail, found.user.id);
      if (holder) throw emailInUse();
      if (!(await spendEmailToken(deps, tx, found.id))) throw invalidEmailToken();
      const before = await users.findById(tx, found.user.id);
      if (!before) throw new DomainError("INVALID_TOKEN");
      // Only a link started on a fresh session makes the address one that resets the password.
      const resetsPassword = found.fromFreshSession;
      await users.setEmail(tx, before.id, { email: found.newEmail, verified: true, resetsPassword });
      // Links mailed to the old address (verification, reset) and any other pending change end with it.
      const mailedLinks = { in: ["verify_email", "reset_password", "change_email"] };
      await oneTimeTokens.spendUnused(tx, { userId: before.id }, mailedLinks, deps.clock.now());
      if (before.email === found.newEmail) {
        // The account's own address confirmed from a fresh session (the one that started it): it resets
        // the password again, a way back in, so the other sessions end (a stolen one among them) and the
        // verified phone is told, in case that session was not the owner's.
        const { sessionsEnded } = await secureSignInFactorChange(ctx, tx, before, "email_confirmed");
        await recordSecurityEvent(ctx, tx, tenant.id, { userId: before.id, type: "email.confirmed", details: { sessions_ended: sessionsEnded } });
        return found.newEmail;
      }
      const first = before.email === null;
      const { sessionsEnded } = await secureSignInFactorChange(ctx, tx, before, first ? "email_added" : "email_changed");
      await recordSecurityEvent(ctx, tx, tenant.id, {
        userId: before.id,
        type: "email.changed",
        details: { first, sessions_ended: sessionsEnded, resets_password: resetsPassword },
      });
      return found.newEmail;
    });
    deps.nudgeMail();
    deps.nudgeSms();
    return { email, email_verified: true as const };
  } catch (error) {
    // Another account took the address between the check and the update (emails are unique per shop).
    if (isUniqueViolation(error)) throw emailInUse();
    throw error;
  }
}
