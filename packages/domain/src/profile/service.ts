import { findSessionUser, type Prisma } from "@mteja/db";
import type { z } from "zod";
import { DomainError } from "../errors.js";
import { beginSignInAttempt } from "../core/abuse-limits.js";
import { noteSessionUse, revokeUserSessions, sessionKey } from "../auth/sessions/sessions.js";
import type { AuthedCtx } from "../trpc.js";
import { enqueueSecurityNotice } from "../auth/recovery/security-notices.js";
import { recordSecurityEvent } from "../security-events/record.js";
import type { changePasswordInput, updateMeInput } from "./schemas.js";

const invalidToken = () => new DomainError("INVALID_TOKEN");

/** One query: the user, provided the token's session is still live. */
export async function getMe(ctx: AuthedCtx) {
  const user = await findSessionUser(ctx.deps.db.sql, sessionKey(ctx.deps, ctx.auth));
  if (!user) throw invalidToken();
  const { session_last_used_at, ...profile } = user;
  await noteSessionUse(ctx.deps, ctx.auth.sid, session_last_used_at);
  return { ...profile, preferences: profile.preferences ?? {} };
}

export async function updateMe(ctx: AuthedCtx, input: z.infer<typeof updateMeInput>) {
  const { auth } = ctx;
  const preferences = input.preferences ? await mergedPreferences(ctx, input.preferences) : undefined;
  const user = await ctx.db.user.update({
    where: { id: auth.sub },
    data: {
      ...(input.name !== undefined ? { name: input.name } : {}),
      ...(input.phone !== undefined ? { phone: input.phone } : {}),
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
  // A wrong current password is a password guess like a failed login (counted per account, not per
  // IP: the caller is authenticated), so a stolen access token cannot be used to test passwords.
  const attempt = await beginSignInAttempt(ctx, { tenantId: user.tenantId, email: user.email }, { ip: false });
  const valid = await attempt.check(() => deps.passwords.verify(user.passwordHash, input.current_password));
  if (!valid) throw new DomainError("INVALID_CREDENTIALS", "auth.current_password_wrong");
  await attempt.stepPassed();
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
