import { isUniqueViolation, users } from "@mteja/db";
import type { z } from "zod";
import { DomainError } from "../shared/errors.js";
import { issueOtpLoginToken } from "./tokens/otp-login-token.js";
import { beginSignInAttempt } from "../shared/abuse-limits.js";
import { createSession, revokeSessionByRefreshToken, rotateRefreshToken } from "./sessions/sessions.js";
import type { Tenant } from "../shared/tenant.js";
import type { TenantCtx } from "./ports.js";
import { clearRefreshCookie, readRefreshCookie, setRefreshCookie } from "./sessions/refresh-cookie.js";
import { noStore } from "../shared/request.js";
import type { loginInput, registerInput } from "./schemas.js";
import { enqueueVerificationMail } from "./recovery/email-verification.js";
import { recordSecurityEvent } from "../security-events/record.js";
import { requestedLocale } from "../shared/i18n/answer-locale.js";

const invalidCredentials = () => new DomainError("INVALID_CREDENTIALS");

export async function register(ctx: TenantCtx, input: z.infer<typeof registerInput>) {
  const { deps, tenant, request } = ctx;
  const passwordHash = await deps.passwords.hash(input.password);
  // The language the request asked in becomes the account's (mails included); none asked: the shop's applies.
  const locale = requestedLocale(request.acceptLanguage);
  try {
    const result = await ctx.deps.db.transaction(ctx.db, async (tx) => {
      const user = await users.create(tx, {
        tenantId: tenant.id,
        email: input.email,
        name: input.name,
        phone: input.phone ?? null,
        passwordHash,
        ...(locale ? { preferences: { locale } } : {}),
      });
      const session = await createSession(deps, tx, user, { ip: request.ip, userAgent: request.userAgent });
      await enqueueVerificationMail(ctx, tx, user);
      return { user, session };
    });
    deps.nudgeMail();
    const { user, session } = result;
    setRefreshCookie(ctx, session.refreshToken, session.refreshExpiresAt);
    noStore(ctx);
    return {
      user: { id: user.id, name: input.name, email: input.email, phone: user.phone, email_verified: user.emailVerified },
      access_token: await deps.tokens.sign({ sub: user.id, tid: tenant.id, sid: session.sessionId, role: user.role }),
    };
  } catch (error) {
    if (isUniqueViolation(error)) {
      throw new DomainError("USER_EXISTS");
    }
    throw error;
  }
}

export type LoginResult =
  | { requires_otp: false; access_token: string; user: { id: string; name: string | null; email: string | null; role: string | null } }
  | { requires_otp: true; otp_token: string };

export async function login(ctx: TenantCtx, input: z.infer<typeof loginInput>): Promise<LoginResult> {
  const { deps, tenant } = ctx;
  // In a sign-in storm, shed before any other work (limiter, user query): a shed login costs almost nothing.
  await deps.passwords.assertAdmits();
  // Counted as a failure up front (per account and per IP), given back below once the password is right.
  const attempt = await beginSignInAttempt(ctx, { tenantId: tenant.id, email: input.email }, { ip: true });

  const user = await users.findForSignIn(ctx.db, tenant.id, input.email);
  // Unknown emails are verified against a decoy hash: same work, same time, same answer.
  // An account without a password (created by phone sign-in) is checked against the decoy too.
  const valid = await attempt.check(() => deps.passwords.verify(user?.passwordHash ?? undefined, input.password));
  if (!user) throw invalidCredentials();
  if (!valid) {
    // Recorded for existing accounts only, and at most as often as the account's sign-in limit lets a
    // guess through: unknown emails cannot fill the table (docs/security-events.md#retention).
    await recordSecurityEvent(ctx, ctx.db, tenant.id, { userId: user.id, type: "sign_in.failed", details: { reason: "invalid_password" } });
    throw invalidCredentials();
  }
  // With two-factor on, earlier failures stay counted until the code is right too (otp/validate).
  if (user.otpEnabled) await attempt.stepPassed();
  else await attempt.succeeded();
  assertEmailVerifiedIfRequired(tenant, user);
  noStore(ctx);
  if (user.otpEnabled) {
    // Step 1 of 2: no session and no cookie until the second factor is proven (otp/validate).
    return { requires_otp: true, otp_token: await issueOtpLoginToken(ctx, user) };
  }
  return { requires_otp: false, ...(await startSession(ctx, user)) };
}

/** The tenant setting requireVerifiedEmail holds at login and at every refresh (an account created by phone has no email to verify). */
export function assertEmailVerifiedIfRequired(tenant: Tenant, user: { email: string | null; emailVerified: boolean }): void {
  if (tenant.settings.requireVerifiedEmail && user.email !== null && !user.emailVerified) {
    throw new DomainError("EMAIL_NOT_VERIFIED");
  }
}

/** Opens a session for a fully authenticated user: refresh cookie set, access token returned. */
export async function startSession(
  ctx: TenantCtx,
  user: { id: string; tenantId: string; name: string | null; email: string | null; role: string | null },
  method: "password" | "otp" | "sms" | "google" = "password",
) {
  const { deps, request } = ctx;
  // A plain transaction, not Prisma's: every sign-in opens one, and Prisma's interactive transaction
  // costs several times the CPU per statement, on the core the password hashes need (docs/performance.md,
  // "Sign-in"). Both writes name the user's tenant themselves.
  const session = await deps.db.transaction(ctx.db, "plain", async (tx) => {
    const created = await createSession(deps, tx, user, { ip: request.ip, userAgent: request.userAgent });
    await recordSecurityEvent(ctx, tx, user.tenantId, { userId: user.id, type: "sign_in.succeeded", details: { method, session_id: created.sessionId } });
    return created;
  });
  setRefreshCookie(ctx, session.refreshToken, session.refreshExpiresAt);
  noStore(ctx);
  return {
    access_token: await deps.tokens.sign({ sub: user.id, tid: user.tenantId, sid: session.sessionId, role: user.role }),
    user: { id: user.id, name: user.name, email: user.email, role: user.role },
  };
}

export async function refresh(ctx: TenantCtx) {
  const { deps, tenant } = ctx;
  const presented = readRefreshCookie(ctx);
  if (!presented) throw new DomainError("AUTH_REQUIRED", "auth.no_refresh_cookie");
  const outcome = await ctx.deps.db.transaction(ctx.db, async (tx) => {
    const rotated = await rotateRefreshToken(deps, tx, presented, tenant.id);
    if (rotated.kind !== "rotated") return { rotated, user: null };
    const user = await users.findForRefresh(tx, rotated.userId);
    // Thrown inside the transaction, so the rotation is undone: the cookie works once the address is verified.
    if (user) assertEmailVerifiedIfRequired(tenant, user);
    return { rotated, user };
  });
  if (outcome.rotated.kind !== "rotated" || !outcome.user) {
    clearRefreshCookie(ctx);
    throw new DomainError("INVALID_TOKEN", "auth.refresh_cookie_invalid");
  }
  const { session } = outcome.rotated;
  setRefreshCookie(ctx, session.refreshToken, session.refreshExpiresAt);
  noStore(ctx);
  return {
    access_token: await deps.tokens.sign({ sub: outcome.user.id, tid: tenant.id, sid: session.sessionId, role: outcome.user.role }),
  };
}

export async function logout(ctx: TenantCtx): Promise<void> {
  const presented = readRefreshCookie(ctx);
  if (presented) await revokeSessionByRefreshToken(ctx.deps, ctx.db, presented);
  clearRefreshCookie(ctx);
}
