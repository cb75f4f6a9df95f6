import { findSessionUser } from "@mteja/db";
import type { z } from "zod";
import { DomainError } from "../errors.js";
import { confirmIdentity } from "../auth/phone/confirm-identity.js";
import { revokeUserSessions, sessionKey } from "../auth/sessions/sessions.js";
import type { AuthedCtx } from "../trpc.js";
import { enqueueSecurityNotice } from "../auth/recovery/security-notices.js";
import type { changePasswordInput, updateMeInput } from "./schemas.js";

const invalidToken = () => new DomainError("INVALID_TOKEN", "The access token is invalid or expired.");

/** One query: the user, provided the token's session is still live. */
export async function getMe(ctx: AuthedCtx) {
  const user = await findSessionUser(ctx.deps.db.sql, sessionKey(ctx.deps, ctx.auth));
  if (!user) throw invalidToken();
  return { ...user, preferences: user.preferences ?? {} };
}

export async function updateMe(ctx: AuthedCtx, input: z.infer<typeof updateMeInput>) {
  const { auth } = ctx;
  const current = await ctx.db.user.findFirst({ where: { id: auth.sub }, select: { phone: true, phoneVerified: true, email: true, passwordHash: true } });
  if (!current) throw invalidToken();
  // An account whose only way in is its verified phone would lock itself out: it changes the number
  // by proving the new one (me/phone/start, me/phone/verify).
  if (input.phone !== undefined && input.phone !== current.phone && current.phoneVerified && current.email === null && current.passwordHash === null) {
    throw new DomainError("VALIDATION_ERROR", "The request is invalid.", {
      details: [{ path: "phone", message: "this account signs in with its phone: verify a new number with /api/v1/auth/me/phone/start and /api/v1/auth/me/phone/verify" }],
    });
  }
  const user = await ctx.db.user.update({
    where: { id: auth.sub },
    data: {
      ...(input.name !== undefined ? { name: input.name } : {}),
      // A changed number is not verified any more: it would otherwise sign in as this account.
      ...(input.phone !== undefined ? { phone: input.phone, ...(input.phone !== current.phone ? { phoneVerified: false } : {}) } : {}),
      ...(input.avatar_url !== undefined ? { avatarUrl: input.avatar_url } : {}),
    },
  });
  return { id: user.id, name: user.name, email: user.email, phone: user.phone, avatar_url: user.avatarUrl };
}

export async function changePassword(ctx: AuthedCtx, input: z.infer<typeof changePasswordInput>): Promise<void> {
  const { deps, auth } = ctx;
  const user = await ctx.db.user.findFirst({ where: { id: auth.sub } });
  if (!user) throw invalidToken();
  // The current password, or for an account created by phone (setting its first password) an sms_code.
  await confirmIdentity(ctx, user, { password: input.current_password, sms_code: input.sms_code }, "current_password");
  const passwordHash = await deps.passwords.hash(input.new_password);
  await ctx.db.$transaction(async (tx) => {
    await tx.user.update({ where: { id: user.id }, data: { passwordHash, passwordChangedAt: deps.clock.now() } });
    await revokeUserSessions(deps, tx, user.id, "password_changed", auth.sid);
    await tx.oneTimeToken.updateMany({
      where: { userId: user.id, purpose: "reset_password", usedAt: null },
      data: { usedAt: deps.clock.now() },
    });
    await enqueueSecurityNotice(ctx, tx, user, "passwordChanged");
  });
  deps.nudgeMail();
}
