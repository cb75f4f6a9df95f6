/**
 * Sessions and refresh tokens: opaque 256-bit refresh tokens stored as SHA-256, rotated on every
 * refresh under a row lock, with reuse detection and a grace window for two tabs refreshing at once.
 * A token's successor is derived from it (refresh-successor.ts), so every request that presents the
 * same token within the window gets the same new one.
 */
import { findSession, markSessionUsed, type RawSql, type SessionCondition, type SessionKey, type SessionRow, type TenantDb, type TenantTx } from "@mteja/db";
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
  // Every sign-in writes these two rows: plain statements on the transaction cost a fifth of the CPU of
  // Prisma's model creates (docs/performance.md, "Sign-in"). The tenant is named, as the scoped client would.
  const sessionId = deps.random.uuid();
  const userAgent = storedUserAgent(client.userAgent);
  await tx.$executeRaw`INSERT INTO sessions (id, tenant_id, user_id, created_at, last_refreshed_at, last_used_at, idle_expires_at, absolute_expires_at, fresh_until, ip, user_agent)
    VALUES (${sessionId}::uuid, ${user.tenantId}, ${user.id}::uuid, ${now}, ${now}, ${now}, ${idleExpiresAt}, ${absoluteExpiresAt}, ${freshUntil}, ${client.ip}, ${userAgent})`;
  const refreshToken = randomToken(deps.random);
  await tx.$executeRaw`INSERT INTO refresh_tokens (id, session_id, token_hash, created_at) VALUES (${deps.random.uuid()}::uuid, ${sessionId}::uuid, ${sha256(refreshToken)}, ${now})`;
  return { sessionId, refreshToken, refreshExpiresAt: idleExpiresAt };
}

export type RefreshOutcome =
  | { kind: "rotated"; session: IssuedSession; userId: string; tenantId: string }
  | { kind: "invalid"; reason: "unknown" | "expired" | "revoked" | "reused" | "tenant" };

interface LockedToken {
  token_id: string;
  session_id: string;
  rotated_at: Date | null;
  user_id: string;
  tenant_id: string;
  revoked_at: Date | null;
  idle_expires_at: Date;
  absolute_expires_at: Date;
}

/** Rotates the presented refresh token. Runs inside a transaction; rows are locked so concurrent refreshes serialise. */
export async function rotateRefreshToken(deps: AuthPorts, tx: Tx, presented: string, tenantId: string): Promise<RefreshOutcome> {
  const now = deps.clock.now();
  const rows = await tx.$queryRaw<LockedToken[]>`
    SELECT t.id AS token_id, t.session_id, t.rotated_at, s.user_id, s.tenant_id, s.revoked_at,
           s.idle_expires_at, s.absolute_expires_at
      FROM refresh_tokens t JOIN sessions s ON s.id = t.session_id
     WHERE t.token_hash = ${sha256(presented)}
       FOR UPDATE OF s, t`;
  const row = rows[0];
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
      await tx.session.update({ where: { id: row.session_id }, data: { revokedAt: now, revokedReason: "refresh_token_reuse" } });
      deps.logger.warn({ sessionId: row.session_id, userId: row.user_id }, "refresh token reuse detected; session revoked");
      return { kind: "invalid", reason: "reused" };
    }
    // Two requests presented this token at once: the later one gets the same successor as the first.
  } else {
    await tx.refreshToken.update({ where: { id: row.token_id }, data: { rotatedAt: now } });
    const created = await tx.refreshToken.create({ data: { sessionId: row.session_id, tokenHash: sha256(successor), createdAt: now } });
    await tx.refreshToken.update({ where: { id: row.token_id }, data: { replacedBy: created.id } });
  }

  const idleExpiresAt = minDate(addSeconds(now, deps.config.refreshIdleSeconds), row.absolute_expires_at);
  await tx.session.update({ where: { id: row.session_id }, data: { lastRefreshedAt: now, lastUsedAt: now, idleExpiresAt } });
  return {
    kind: "rotated",
    userId: row.user_id,
    tenantId: row.tenant_id,
    session: { sessionId: row.session_id, refreshToken: successor, refreshExpiresAt: idleExpiresAt },
  };
}

async function isCurrentToken(tx: Tx, sessionId: string, token: string): Promise<boolean> {
  const row = await tx.refreshToken.findUnique({ where: { tokenHash: sha256(token) }, select: { sessionId: true, rotatedAt: true } });
  return row !== null && row.sessionId === sessionId && row.rotatedAt === null;
}

/** Revokes the session a refresh token belongs to (logout). Unknown tokens, and other tenants', are ignored. */
export async function revokeSessionByRefreshToken(deps: AuthPorts, db: TenantDb, presented: string): Promise<void> {
  const token = await db.refreshToken.findUnique({ where: { tokenHash: sha256(presented) }, select: { sessionId: true } });
  if (!token) return;
  await db.session.updateMany({
    where: { id: token.sessionId, revokedAt: null },
    data: { revokedAt: deps.clock.now(), revokedReason: "logout" },
  });
}

/** Password change and reset end every other session of the user (all of them when keepSessionId is absent). */
export async function revokeUserSessions(deps: Pick<AuthPorts, "clock">, tx: Tx, userId: string, reason: string, keepSessionId?: string): Promise<number> {
  const result = await tx.session.updateMany({
    where: { userId, revokedAt: null, ...(keepSessionId ? { id: { not: keepSessionId } } : {}) },
    data: { revokedAt: deps.clock.now(), revokedReason: reason },
  });
  return result.count;
}

/** A session as the per-request check read it: live (liveSession). */
export type LiveSessionRow = SessionRow;

/**
 * What makes a session live, the one rule every authenticated request is checked against
 * (docs/sessions.md): not revoked (logout, reuse, a password change, a role change, the devices page
 * end it) and within its absolute lifetime.
 */
export function liveSession(now: Date): SessionCondition {
  return { revoked: false, absoluteExpiresAfter: now };
}

/**
 * An access token stays usable only while its session lives (liveSession). Read from the database on
 * every request, with no cache, so a revocation holds on the next request to any instance
 * (docs/sessions.md#devices). Answers the session as read, its `fresh_until` included (step-up reads it
 * from here: no query of its own).
 */
export async function assertLiveSession(deps: Pick<AuthPorts, "db" | "clock">, auth: AccessClaims): Promise<LiveSessionRow> {
  const live = await findSession(deps.db.sql, sessionKey(auth), liveSession(deps.clock.now()));
  if (!live) throw new DomainError("INVALID_TOKEN");
  await noteSessionUse(deps, auth.sid, live.last_used_at);
  return live;
}

/** last_used_at is shown on the devices page; a minute's precision is enough, so it costs one write a minute, not one a request. */
export const sessionUseResolutionSeconds = 60;

export async function noteSessionUse(deps: Pick<AuthPorts, "db" | "clock">, sessionId: string, lastUsedAt: Date | null): Promise<void> {
  const now = deps.clock.now();
  const staleBefore = addSeconds(now, -sessionUseResolutionSeconds);
  if (lastUsedAt && lastUsedAt > staleBefore) return;
  await markSessionUsed(deps.db.sql, sessionId, now, staleBefore);
}

export function sessionKey(auth: AccessClaims): SessionKey {
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
