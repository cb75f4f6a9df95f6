import { findSessionUser, type Prisma } from "@mteja/db";
import type { z } from "zod";
import { DomainError } from "../shared/errors.js";
import { beginSignInAttempt } from "../shared/abuse-limits.js";
import { confirmIdentity } from "../auth/phone/confirm-identity.js";
import { liveSession, noteSessionUse, revokeUserSessions, sessionKey } from "../auth/sessions/sessions.js";
import type { AuthedCtx } from "./ports.js";
import { enqueueSecurityNotice } from "../auth/recovery/security-notices.js";
import { recordSecurityEvent } from "../security-events/record.js";
import type { changePasswordInput, updateMeInput } from "./schemas.js";

const invalidToken = () => new DomainError("INVALID_TOKEN");

/** One query: the user, provided the token's session is still live. */
export async function getMe(ctx: AuthedCtx) {
  const user = await findSessionUser(ctx.deps.db.sql, sessionKey(ctx.auth), liveSession(ctx.deps.clock.now()));
  if (!user) throw invalidToken();
  const { session_last_used_at, ...profile } = user;
  await noteSessionUse(ctx.deps, ctx.auth.sid, session_last_used_at);
  return { ...profile, preferences: profile.preferences ?? {} };
}

export async function updateMe(ctx: AuthedCtx, input: z.infer<typeof updateMeInput>) {
  const { auth } = ctx;
  const current = await ctx.db.user.findFirst({ where: { id: auth.sub }, select: { phone: true, phoneVerified: true } });
  if (!current) throw invalidToken();
  // A verified phone is a way to sign in: it is changed (or removed) only by proving the new number
  // (me/phone/start, me/phone/verify), which ends the other sessions and tells the old phone.
  if (input.phone !== undefined && input.phone !== current.phone && current.phoneVerified) {
    throw new DomainError("VALIDATION_ERROR", undefined, {
      details: [{ path: "phone", message: "detail.phone_change_needs_verification" }],
    });
  }
  const preferences = input.preferences ? await mergedPreferences(ctx, input.preferences) : undefined;
  const user = await ctx.db.user.update({
    where: { id: auth.sub },
    data: {
      ...(input.name !== undefined ? { name: input.name } : {}),
      // A changed number is not verified: only a number proven by a code signs in (also if one was verified since the read above).
      ...(input.phone !== undefined ? { phone: input.phone, ...(input.phone !== current.phone ? { phoneVerified: false } : {}) } : {}),
      ...(input.avatar_url !== undefined ? { avatarUrl: input.avatar_url } : {}),
      ...(preferences ? { preferences } : {}),
    },
  });
  return { id: user.id, name: user.name, email: user.email, phone: user.phone, avatar_url: user.avatarUrl };
}

type Preferences = Record<string, unknown>;

function preferencesOf(stored: unknown): Preferences {
  return stored && typeof stored === "object" && !Array.isArray(stored) ? (stored as Preferences) : {};
}

/** The stored preferences with the request's applied: a key given null is removed, the others kept. */
async function mergedPreferences(ctx: AuthedCtx, patch: NonNullable<z.infer<typeof updateMeInput>["preferences"]>): Promise<Prisma.InputJsonObject> {
  const current = await ctx.db.user.findFirst({ where: { id: ctx.auth.sub }, select: { preferences: true } });
  const next: Preferences = { ...preferencesOf(current?.preferences) };
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete next[key];
    else if (value !== undefined) next[key] = value;
  }
  return next as Prisma.InputJsonObject;
}

export async function changePassword(ctx: AuthedCtx, input: z.infer<typeof changePasswordInput>): Promise<void> {
  const { deps, auth } = ctx;
  const user = await ctx.db.user.findFirst({ where: { id: auth.sub } });
  if (!user) throw invalidToken();
  // The current password, or for an account created by phone (setting its first password) an sms_code.
  await confirmIdentity(ctx, user, { password: input.current_password, sms_code: input.sms_code, code: input.code }, "current_password");
  const passwordHash = await deps.passwords.hash(input.new_password);
  await ctx.db.$transaction(async (tx) => {
    await tx.user.update({ where: { id: user.id }, data: { passwordHash, passwordChangedAt: deps.clock.now() } });
    await revokeUserSessions(deps, tx, user.id, "password_changed", auth.sid);
    await tx.oneTimeToken.updateMany({
      where: { userId: user.id, purpose: "reset_password", usedAt: null },
      data: { usedAt: deps.clock.now() },
    });
    await recordSecurityEvent(ctx, tx, user.tenantId, { userId: user.id, type: "password.changed", details: { via: "change" } });
    await enqueueSecurityNotice(ctx, tx, user, "passwordChanged");
  });
  deps.nudgeMail();
}
