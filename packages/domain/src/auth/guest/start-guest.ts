/**
 * POST /api/v1/auth/guest (docs/sign-in.md#guest-checkout): an account with no email, phone or
 * password and role "guest", signed in at once as a login is (access token and refresh cookie). Its
 * session starts fresh as every other. Counted per IP twice: as every unauthenticated auth request
 * (`ipLimited`) and against `guests_per_ip` (300 an hour), since each call creates an account.
 */
import { users } from "@mteja/db";
import { consumeAll, ipLimitKey } from "../../shared/abuse-limits.js";
import { requestedLocale } from "../../shared/i18n/answer-locale.js";
import { noStore } from "../../shared/request.js";
import type { TenantCtx } from "../ports.js";
import { setRefreshCookie } from "../sessions/refresh-cookie.js";
import { createSession } from "../sessions/sessions.js";
import { guestRole } from "./roles.js";

export async function startGuest(ctx: TenantCtx) {
  const { deps, tenant, request } = ctx;
  await consumeAll(deps.limiter, [["guests_per_ip", ipLimitKey(request.ip)]]);
  const locale = requestedLocale(request.acceptLanguage);
  const { user, session } = await deps.db.transaction(ctx.db, async (tx) => {
    const created = await users.create(tx, {
      tenantId: tenant.id,
      email: null,
      name: null,
      phone: null,
      passwordHash: null,
      role: guestRole,
      ...(locale ? { preferences: { locale } } : {}),
    });
    return { user: created, session: await createSession(deps, tx, created, { ip: request.ip, userAgent: request.userAgent }) };
  });
  setRefreshCookie(ctx, session.refreshToken, session.refreshExpiresAt);
  noStore(ctx);
  return {
    access_token: await deps.tokens.sign({ sub: user.id, tid: tenant.id, sid: session.sessionId, role: guestRole }),
    user: { id: user.id, name: null, email: null, role: guestRole, is_guest: true },
  };
}
