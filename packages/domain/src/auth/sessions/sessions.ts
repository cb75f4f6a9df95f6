/**
 * Sessions and refresh tokens: opaque 256-bit refresh tokens stored as SHA-256, rotated on every
 * refresh under a row lock, with reuse detection and a grace window for two tabs refreshing at once.
 * A token's successor is derived from it (refresh-successor.ts), so every request that presents the
 * same token within the window gets the same new one.
 */
import { sessions, type RawSql, type TenantDb, type TenantTx } from "@mteja/db";
import type { AuthedCtx, AuthPorts } from "../ports.js";
import { DomainError } from "../../shared/errors.js";
import type { AccessClaims } from "../tokens/access-tokens.js";
import { randomToken, sha256 } from "../../shared/secrets.js";
import { storedUserAgent } from "../../shared/client-info.js";

type Tx = TenantTx;

export interface IssuedSession {
  sessionId: string;
  refreshToken: string;
  refreshExpiresAt: Date;
}

export interface SessionUser {
  id: string;
  tenantId: string;
}

export async function createSession(
  deps: AuthPorts,
  tx: RawSql,
  user: SessionUser,
  client: { ip: string; userAgent: string | undefined },
): Promise<IssuedSession> {
  const now = deps.clock.now();
  const absoluteExpiresAt = addSeconds(now, deps.config.refreshAbsoluteSeconds);
  const idleExpiresAt = minDate(addSeconds(now, deps.config.refreshIdleSeconds), absoluteExpiresAt);
  // Every way in (register, each sign-in method) opens its session here, so each starts fresh
  // (docs/step-up.md); a refresh never moves it, only reauthenticate does.
  const freshUntil = freshUntilFrom(deps, now);
  const sessionId = deps.random.uuid();
  const refreshToken = randomToken(deps.random);
  await sessions.open(tx, {
    id: sessionId,
    tenantId: user.tenantId,
    userId: user.id,
    createdAt: now,
    idleExpiresAt,
    absoluteExpiresAt,
    freshUntil,
    ip: client.ip,
    userAgent: storedUserAgent(client.userAgent),
    refreshTokenId: deps.random.uuid(),
    refreshTokenHash: sha256(refreshToken),
  });
  return { sessionId, refreshToken, refreshExpiresAt: idleExpiresAt };
}

export type RefreshOutcome =
  | { kind: "rotated"; session: IssuedSession; userId: string; tenantId: string }
  | { kind: "invalid"; reason: "unknown" | "expired" | "revoked" | "reused" | "tenant" };

/** Rotates the presented refresh token. Runs inside a transaction; rows are locked so concurrent refreshes serialise. */
export async function rotateRefreshToken(deps: AuthPorts, tx: Tx, presented: string, tenantId: string): Promise<RefreshOutcome> {
  const now = deps.clock.now();
  const row = await sessions.lockByRefreshToken(tx, sha256(presented));
  if (!row) return { kind: "invalid", reason: "unknown" };
  if (row.tenant_id !== tenantId) return { kind: "invalid", reason: "tenant" };
  if (row.revoked_at) return { kind: "invalid", reason: "revoked" };
  if (row.idle_expires_at <= now || row.absolute_expires_at <= now) return { kind: "invalid", reason: "expired" };

  const successor = deps.refreshSuccessor(presented);
  if (row.rotated_at) {
    const withinGrace = now.getTime() - row.rotated_at.getTime() <= deps.config.refreshReuseGraceSeconds * 1000;
    if (!withinGrace || !(await isCurrentToken(tx, row.session_id, successor))) {
      // Used again later than two tabs refreshing at once would, or after its successor moved on:
      // the token has been copied, so the whole session ends.
      await sessions.revoke(tx, row.session_id, { at: now, reason: "refresh_token_reuse" });
      deps.logger.warn({ sessionId: row.session_id, userId: row.user_id }, "refresh token reuse detected; session revoked");
      return { kind: "invalid", reason: "reused" };
    }
    // Two requests presented this token at once: the later one gets the same successor as the first.
  } else {
    const next = { sessionId: row.session_id, tokenHash: sha256(successor), at: now };
    await sessions.rotateRefreshToken(tx, row.token_id, next);
  }

  const idleExpiresAt = minDate(addSeconds(now, deps.config.refreshIdleSeconds), row.absolute_expires_at);
  await sessions.noteRefresh(tx, row.session_id, { at: now, idleExpiresAt });
  return {
    kind: "rotated",
    userId: row.user_id,
    tenantId: row.tenant_id,
    session: { sessionId: row.session_id, refreshToken: successor, refreshExpiresAt: idleExpiresAt },
  };
}

async function isCurrentToken(tx: Tx, sessionId: string, token: string): Promise<boolean> {
  const row = await sessions.findRefreshToken(tx, sha256(token));
  return row !== null && row.sessionId === sessionId && row.rotatedAt === null;
}

/** Revokes the session a refresh token belongs to (logout). Unknown tokens, and other tenants', are ignored. */
export async function revokeSessionByRefreshToken(deps: AuthPorts, db: TenantDb, presented: string): Promise<void> {
  const token = await sessions.findRefreshToken(db, sha256(presented));
  if (!token) return;
  await sessions.revokeUnrevoked(db, [token.sessionId], { at: deps.clock.now(), reason: "logout" });
}

/** Password change and reset end every other session of the user (all of them when keepSessionId is absent). */
export async function revokeUserSessions(
  deps: Pick<AuthPorts, "clock">,
  tx: Tx,
  userId: string,
  reason: string,
  keepSessionId?: string,
): Promise<number> {
  return sessions.revokeUnrevokedOfUser(tx, userId, { at: deps.clock.now(), reason, except: keepSessionId });
}

/** A session as the per-request check read it: live (liveSession). */
// An interface of its own (not an alias), so the types of the procedures that carry it can be named.
export interface LiveSessionRow extends sessions.SessionRow {}

/**
 * What makes a session live, the one rule every authenticated request is checked against
 * (docs/sessions.md): not revoked (logout, reuse, a password change, a role change, the devices page
 * end it) and within its absolute lifetime.
 */
export function liveSession(now: Date): sessions.SessionCondition {
  return { revoked: false, absoluteExpiresAfter: now };
}

/**
 * An access token stays usable only while its session lives (liveSession). Read from the database on
 * every request, with no cache, so a revocation holds on the next request to any instance
 * (docs/sessions.md#devices). Answers the session as read, its `fresh_until` included (step-up reads it
 * from here: no query of its own).
 */
export async function assertLiveSession(deps: Pick<AuthPorts, "clock">, db: TenantDb, auth: AccessClaims): Promise<LiveSessionRow> {
  const live = await sessions.find(db, sessionKey(auth), liveSession(deps.clock.now()));
  if (!live) throw new DomainError("INVALID_TOKEN");
  await noteSessionUse(deps, db, auth.sid, live.last_used_at);
  return live;
}

/** last_used_at is shown on the devices page; a minute's precision is enough, so it costs one write a minute, not one a request. */
export const sessionUseResolutionSeconds = 60;

export async function noteSessionUse(deps: Pick<AuthPorts, "clock">, db: TenantDb, sessionId: string, lastUsedAt: Date | null): Promise<void> {
  const now = deps.clock.now();
  const staleBefore = addSeconds(now, -sessionUseResolutionSeconds);
  if (lastUsedAt && lastUsedAt > staleBefore) return;
  await sessions.markUsed(db, sessionId, now, staleBefore);
}

export function sessionKey(auth: AccessClaims): sessions.SessionKey {
  return { userId: auth.sub, tenantId: auth.tid, sessionId: auth.sid };
}

/** The end of a session's freshness that starts now (docs/step-up.md): STEP_UP_WINDOW_SECONDS later. */
export function freshUntilFrom(deps: AuthPorts, now: Date): Date {
  return addSeconds(now, deps.config.stepUpWindowSeconds);
}

export function addSeconds(date: Date, seconds: number): Date {
  return new Date(date.getTime() + seconds * 1000);
}

function minDate(a: Date, b: Date): Date {
  return a <= b ? a : b;
}

/**
 * The context of an operation whose builder read its live session (authProcedure, protectedProcedure,
 * adminProcedure): the session as read, so it can tell whether it is fresh (step-up's `isFresh`)
 * without a query of its own.
 */
export type SessionCtx = AuthedCtx & { session: LiveSessionRow };
