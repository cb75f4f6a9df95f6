import { oneTimeTokens, users } from "@mteja/db";
import type { z } from "zod";
import { DomainError } from "../shared/errors.js";
import { beginSignInAttempt } from "../shared/abuse-limits.js";
import { confirmIdentity } from "../auth/phone/confirm-identity.js";
import { liveSession, noteSessionUse, revokeUserSessions, sessionKey } from "../auth/sessions/sessions.js";
import type { AuthedCtx } from "./ports.js";
import { enqueueSecurityNotice } from "../auth/recovery/security-notices.js";
import { secureSignInFactorChange } from "../auth/factor-changes.js";
import { recordSecurityEvent } from "../security-events/record.js";
import type { changePasswordInput, updateMeInput } from "./schemas.js";
import { viewOf } from "../auth/google/links.js";

const invalidToken = () => new DomainError("INVALID_TOKEN");

/**
 * One query: the user, provided the token's session is still live (the rule of every other route's check,
 * made here instead of in the builder: docs/architecture.md#the-one-exception-get-me).
 */
export async function getMe(ctx: AuthedCtx) {
  const { deps, auth } = ctx;
  const user = await users.findProfileInSession(ctx.db, sessionKey(auth), liveSession(deps.clock.now()));
  if (!user) throw invalidToken();
  const { session_last_used_at, identities, ...profile } = user;
  await noteSessionUse(deps, ctx.db, auth.sid, session_last_used_at);
  return { ...profile, preferences: profile.preferences ?? {}, identities: identitiesOf(identities) };
}

/** The linked identities as read in GET /me's one query (a JSON array, or its text). */
function identitiesOf(read: unknown) {
  const list = typeof read === "string" ? (JSON.parse(read) as unknown) : read;
  if (!Array.isArray(list)) return [];
  return list.map((identity: { provider: string; email: string | null; linked_at: string }) =>
    viewOf({ provider: identity.provider, email: identity.email, linkedAt: identity.linked_at }),
  );
}

/**
 * PUT me. A verified phone is a way to sign in: it is changed (or removed) only by proving the new
 * number (me/phone/start, me/phone/verify), which ends the other sessions and tells the old phone. The
 * phone is decided on the account as read and written only if it is still as read (unverified), so a
 * me/phone/verify that commits in between is never undone: the request is then decided again on the
 * account as it is now, as if it had come a moment later (422 on `phone`, or no change to it).
 */
export async function updateMe(ctx: AuthedCtx, input: z.infer<typeof updateMeInput>) {
  const { auth } = ctx;
  // Every other field the input allows is written as given (the profile's columns are named as its fields).
  const { phone: requestedPhone, preferences: preferencesPatch, ...fields } = input;
  const preferences = preferencesPatch ? await mergedPreferences(ctx, preferencesPatch) : undefined;
  const changes = { ...fields, ...(preferences ? { preferences } : {}) };
  // A phone changes from unverified to verified only once between two reads, so two passes decide it.
  for (let pass = 0; pass < 2; pass++) {
    const current = await users.findPhone(ctx.db, auth.sub);
    if (!current) throw invalidToken();
    const phone = phoneChangeOf(current, requestedPhone);
    // A changed number is written only over an unverified one (as read), and is not verified: only a
    // number proven by a code signs in.
    const phoneChange = phone ? { phone: phone.to, phone_verified: false } : {};
    const guard = phone ? { whilePhoneVerified: false } : {};
    if (await users.updateProfile(ctx.db, auth.sub, { ...changes, ...phoneChange }, guard)) {
      // The whole profile: the output schema (updateMeOutput) keeps what PUT /me answers.
      const profile = await users.findProfile(ctx.db, auth.sub);
      if (!profile) throw invalidToken();
      return profile;
    }
  }
  throw phoneNeedsVerification();
}

const phoneNeedsVerification = () =>
  new DomainError("VALIDATION_ERROR", undefined, { details: [{ path: "phone", message: "detail.phone_change_needs_verification" }] });

/** The phone PUT me writes, if any: the same number is no change; another replaces only an unverified one. */
function phoneChangeOf(current: { phone: string | null; phoneVerified: boolean }, requested: string | null | undefined): { to: string | null } | undefined {
  if (requested === undefined || requested === current.phone) return undefined;
  if (current.phoneVerified) throw phoneNeedsVerification();
  return { to: requested };
}

type Preferences = Record<string, unknown>;

function preferencesOf(stored: unknown): Preferences {
  return stored && typeof stored === "object" && !Array.isArray(stored) ? (stored as Preferences) : {};
}

/** The stored preferences with the request's applied: a key given null is removed, the others kept. */
type PreferencesPatch = NonNullable<z.infer<typeof updateMeInput>["preferences"]>;

async function mergedPreferences(ctx: AuthedCtx, patch: PreferencesPatch): Promise<Preferences> {
  const next: Preferences = { ...preferencesOf(await users.findPreferences(ctx.db, ctx.auth.sub)) };
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete next[key];
    else if (value !== undefined) next[key] = value;
  }
  return next;
}

export async function changePassword(ctx: AuthedCtx, input: z.infer<typeof changePasswordInput>): Promise<void> {
  const { deps, auth } = ctx;
  const user = await users.findById(ctx.db, auth.sub);
  if (!user) throw invalidToken();
  // The current password, or for an account created by phone (setting its first password) an sms_code.
  await confirmIdentity(ctx, user, { password: input.current_password, sms_code: input.sms_code, code: input.code }, "current_password");
  const passwordHash = await deps.passwords.hash(input.new_password);
  const first = user.passwordHash === null;
  await ctx.deps.db.transaction(ctx.db, async (tx) => {
    await users.setPassword(tx, user.id, { passwordHash, changedAt: deps.clock.now() });
    if (first) {
      // A first password is a new way in: the other sessions end, the email and the verified phone are told.
      await secureSignInFactorChange(ctx, tx, user, "password_added");
    } else {
      await revokeUserSessions(deps, tx, user.id, "password_changed", auth.sid);
      await enqueueSecurityNotice(ctx, tx, user, "passwordChanged");
    }
    await oneTimeTokens.spendUnused(tx, { userId: user.id }, "reset_password", deps.clock.now());
    await recordSecurityEvent(ctx, tx, user.tenantId, { userId: user.id, type: "password.changed", details: { via: "change" } });
  });
  deps.nudgeMail();
  if (first) deps.nudgeSms();
}
