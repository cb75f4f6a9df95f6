/**
 * What follows a change to the ways into an account (docs/sessions.md#what-ends-sessions): every
 * other session of the account ends (the one making the change stays), and the owner is told at the
 * email and the verified phone the account had BEFORE the change, in the account's language. Called
 * inside the transaction of the change, so the sessions end and the notices exist exactly when the
 * change committed; the caller nudges the mail and SMS workers after commit.
 *
 * A new kind of change (adding a passkey) adds its row to the two tables below.
 */
import type { TenantTx } from "@mteja/db";
import type { AuthedCtx } from "./ports.js";
import { sendSecurityNotice, type NoticeAccount, type SecurityNotice, type SecurityText } from "./recovery/security-notices.js";
import { revokeUserSessions } from "./sessions/sessions.js";

export type SignInFactorChange =
  /** A verified phone replaced by another. */
  | "phone_changed"
  /** A first verified phone: a new way to sign in (by SMS). */
  | "phone_added"
  /** An email replaced by another (through its link). */
  | "email_changed"
  /** A first email on an account that had none: a new way back in (password reset by mail). */
  | "email_added"
  /**
   * The account's own email confirmed from a fresh session, where it could not reset the password
   * before (docs/email.md#which-address-resets-the-password): a way back in again.
   */
  | "email_confirmed"
  /** A first password on an account created by phone: a new way to sign in. */
  | "password_added"
  | "two_factor_enabled"
  /** A Google account linked (docs/sign-in.md#linking): a new way to sign in. */
  | "google_linked";

/** The account as it was before the change: its old email and its old verified phone are told. */
export type AccountBeforeChange = NoticeAccount;

/** The mail to the old email; none where there is nothing to add to what the reader already knows. */
const noticeMail: Record<SignInFactorChange, SecurityNotice | undefined> = {
  phone_changed: "phoneChanged",
  phone_added: "phoneAdded",
  email_changed: "emailChanged",
  // There was no email to tell.
  email_added: undefined,
  // The address itself was just proven by its owner, on a fresh session.
  email_confirmed: undefined,
  password_added: "passwordChanged",
  two_factor_enabled: "twoFactorEnabled",
  google_linked: "googleLinked",
};

/** The text to the old verified phone (a first phone has no old one to tell). */
const noticeText: Record<SignInFactorChange, SecurityText | undefined> = {
  phone_changed: "sms.notice.phone_changed",
  phone_added: undefined,
  email_changed: "sms.notice.email_changed",
  email_added: "sms.notice.email_added",
  // The address now resets the password, a way back in: the phone hears of it, in case the session that
  // confirmed it was not the owner's.
  email_confirmed: "sms.notice.email_confirmed",
  // The mail may go to an address the owner does not hold (one attached from a stolen session): the
  // phone, the account's only way in until now, is told too.
  password_added: "sms.notice.password_set",
  two_factor_enabled: "sms.notice.two_factor_enabled",
  google_linked: "sms.notice.google_linked",
};

/** Ends the account's other sessions and writes the notices; answers how many sessions ended. */
export async function secureSignInFactorChange(
  ctx: AuthedCtx,
  tx: TenantTx,
  before: AccountBeforeChange,
  change: SignInFactorChange,
): Promise<{ sessionsEnded: number }> {
  // Whoever held another session may be who the owner is locking out: it ends now, on every instance
  // (each request reads its session), and its refresh cookie with it.
  const sessionsEnded = await revokeUserSessions(ctx.deps, tx, before.id, change, ctx.auth.sid);
  // Only a verified phone is texted (an unverified number may be anyone's); an account told too often
  // in the window is told nothing more (docs/limits.md#security-notices).
  await sendSecurityNotice(ctx, tx, before, { mail: noticeMail[change], text: noticeText[change] });
  return { sessionsEnded };
}
