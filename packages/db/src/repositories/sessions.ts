/**
 * The sessions and refresh_tokens tables (docs/sessions.md): one session per sign-in, its refresh
 * tokens rotated on every refresh. Which sessions count (live for a request, listed on the devices
 * page) is the caller's rule, handed in as a condition.
 *
 * The per-request read and the writes of a sign-in run as plain SQL on the shared pool or the sign-in's
 * plain transaction: Prisma's relation filters cost 2–4× the database time of the read, and its model
 * creates several times the CPU of a plain statement (docs/performance.md).
 */
import type { Prisma } from "../generated/prisma/client.js";
import { plainOf } from "../plain-access.js";
import type { RawSql } from "../raw-sql.js";
import type { TenantDb } from "../tenant-scope.js";
import { prismaOf, type AnyClient } from "./clients.js";
import { sessionRead, type SessionCondition, type SessionKey } from "./session-match.js";

export type { SessionCondition, SessionKey } from "./session-match.js";

/** A session as the per-request check reads it. */
export interface SessionRow {
  last_used_at: Date | null;
  /** Until when the session is fresh (docs/step-up.md); read in the same row, so step-up costs no query of its own. */
  fresh_until: Date | null;
}

/** The session an access token names, if it meets `condition`. */
export const find = sessionRead<SessionRow>(
  (session) => `SELECT s.last_used_at, s.fresh_until FROM sessions s WHERE ${session}`,
);

/**
 * Notes a session's use unless a use at or after `staleBefore` is already noted (one write a minute,
 * not one a request).
 */
export async function markUsed(db: TenantDb, sessionId: string, now: Date, staleBefore: Date): Promise<void> {
  await plainOf(db).sql.query(
    `UPDATE sessions SET last_used_at = $2 WHERE id = $1 AND (last_used_at IS NULL OR last_used_at < $3)`,
    [sessionId, now, staleBefore],
  );
}

/** A session to open, with its first refresh token. */
export interface NewSession {
  id: string;
  tenantId: string;
  userId: string;
  createdAt: Date;
  idleExpiresAt: Date;
  absoluteExpiresAt: Date;
  freshUntil: Date;
  ip: string;
  userAgent: string | null;
  /** The first refresh token: its id and hash. */
  refreshTokenId: string;
  refreshTokenHash: string;
}

/**
 * Writes the session and its first refresh token: two plain statements on the caller's transaction.
 * The tenant is named, as the scoped client would.
 */
export async function open(tx: RawSql, session: NewSession): Promise<void> {
  const { id, tenantId, userId, createdAt: now, idleExpiresAt, absoluteExpiresAt, freshUntil, ip, userAgent } = session;
  await tx.$executeRaw`INSERT INTO sessions (id, tenant_id, user_id, created_at, last_refreshed_at, last_used_at,
      idle_expires_at, absolute_expires_at, fresh_until, ip, user_agent)
    VALUES (${id}::uuid, ${tenantId}, ${userId}::uuid, ${now}, ${now}, ${now},
      ${idleExpiresAt}, ${absoluteExpiresAt}, ${freshUntil}, ${ip}, ${userAgent})`;
  await tx.$executeRaw`INSERT INTO refresh_tokens (id, session_id, token_hash, created_at)
    VALUES (${session.refreshTokenId}::uuid, ${id}::uuid, ${session.refreshTokenHash}, ${now})`;
}

/** A refresh token with its session, both rows locked. */
export interface LockedRefreshToken {
  token_id: string;
  session_id: string;
  rotated_at: Date | null;
  user_id: string;
  tenant_id: string;
  revoked_at: Date | null;
  idle_expires_at: Date;
  absolute_expires_at: Date;
}

/**
 * The refresh token with this hash and its session, locked until the caller's transaction ends, so
 * concurrent refreshes of one session take turns. Any tenant's: the caller compares the tenant.
 */
export async function lockByRefreshToken(tx: AnyClient, tokenHash: string): Promise<LockedRefreshToken | undefined> {
  const rows = await prismaOf(tx).$queryRaw<LockedRefreshToken[]>`
    SELECT t.id AS token_id, t.session_id, t.rotated_at, s.user_id, s.tenant_id, s.revoked_at,
           s.idle_expires_at, s.absolute_expires_at
      FROM refresh_tokens t JOIN sessions s ON s.id = t.session_id
     WHERE t.token_hash = ${tokenHash}
       FOR UPDATE OF s, t`;
  return rows[0];
}

/** The refresh token with this hash: its session, and when it was rotated (null: the session's current one). */
export async function findRefreshToken(
  db: AnyClient,
  tokenHash: string,
): Promise<{ sessionId: string; rotatedAt: Date | null } | null> {
  return prismaOf(db).refreshToken.findUnique({ where: { tokenHash }, select: { sessionId: true, rotatedAt: true } });
}

/** Replaces the current refresh token `tokenId` by its successor: the old one rotated, pointing at the new. */
export async function rotateRefreshToken(
  tx: AnyClient,
  tokenId: string,
  successor: { sessionId: string; tokenHash: string; at: Date },
): Promise<void> {
  const prisma = prismaOf(tx);
  const { sessionId, tokenHash, at } = successor;
  await prisma.refreshToken.update({ where: { id: tokenId }, data: { rotatedAt: at } });
  const created = await prisma.refreshToken.create({ data: { sessionId, tokenHash, createdAt: at } });
  await prisma.refreshToken.update({ where: { id: tokenId }, data: { replacedBy: created.id } });
}

/** Notes a refresh of the session: refreshed and used at `at`, idle until `idleExpiresAt`. */
export async function noteRefresh(tx: AnyClient, sessionId: string, refresh: { at: Date; idleExpiresAt: Date }) {
  const { at, idleExpiresAt } = refresh;
  const data = { lastRefreshedAt: at, lastUsedAt: at, idleExpiresAt };
  await prismaOf(tx).session.update({ where: { id: sessionId }, data });
}

/** Why and when sessions end. */
export interface Revocation {
  at: Date;
  reason: string;
}

/** Revokes the session, whatever it was (the caller holds its row locked and has read it). */
export async function revoke(tx: AnyClient, sessionId: string, { at, reason }: Revocation): Promise<void> {
  await prismaOf(tx).session.update({ where: { id: sessionId }, data: { revokedAt: at, revokedReason: reason } });
}

/** Revokes those of these sessions not revoked yet (a revoked one keeps its first revocation); how many. */
export async function revokeUnrevoked(db: AnyClient, sessionIds: readonly string[], revocation: Revocation) {
  const { at, reason } = revocation;
  const result = await prismaOf(db).session.updateMany({
    where: { id: { in: [...sessionIds] }, revokedAt: null },
    data: { revokedAt: at, revokedReason: reason },
  });
  return result.count;
}

/** Revokes every session of the user not revoked yet, but `except` (when given); how many. */
export async function revokeUnrevokedOfUser(
  tx: AnyClient,
  userId: string,
  revocation: Revocation & { except?: string | undefined },
): Promise<number> {
  const result = await prismaOf(tx).session.updateMany({
    where: { userId, revokedAt: null, ...(revocation.except ? { id: { not: revocation.except } } : {}) },
    data: { revokedAt: revocation.at, revokedReason: revocation.reason },
  });
  return result.count;
}

/** Makes the session fresh until `freshUntil`, unless it is revoked or not the user's; whether it did. */
export async function renewFreshness(tx: AnyClient, session: { id: string; userId: string }, freshUntil: Date) {
  const renewed = await prismaOf(tx).session.updateMany({
    where: { id: session.id, userId: session.userId, revokedAt: null },
    data: { freshUntil },
  });
  return renewed.count === 1;
}

/** Which of a user's sessions a list takes (the devices page's live ones): decided by the caller. */
export interface UserSessionCondition extends SessionCondition {
  userId: string;
  /** Only sessions whose idle lifetime ends after this instant. */
  idleExpiresAfter: Date;
  /** This session only, or every session but it. */
  only?: string;
  except?: string;
}

function whereOf(condition: UserSessionCondition): Prisma.SessionWhereInput {
  const { only, except } = condition;
  return {
    userId: condition.userId,
    revokedAt: condition.revoked ? { not: null } : null,
    idleExpiresAt: { gt: condition.idleExpiresAfter },
    absoluteExpiresAt: { gt: condition.absoluteExpiresAfter },
    ...(only !== undefined ? { id: only } : except !== undefined ? { id: { not: except } } : {}),
  };
}

/** A session as the devices page shows it. */
export interface DeviceRow {
  id: string;
  createdAt: Date;
  lastUsedAt: Date | null;
  ip: string | null;
  userAgent: string | null;
}

/** A page of a keyset list: the list's conditions (`where`, ANDed with the caller's), its order and size. */
export interface SessionPage {
  where: readonly Prisma.SessionWhereInput[];
  orderBy: readonly Prisma.SessionOrderByWithRelationInput[];
  take: number;
}

/** One page of the user's sessions under `condition`. */
export async function pageOfUser(
  db: AnyClient,
  condition: UserSessionCondition,
  page: SessionPage,
): Promise<DeviceRow[]> {
  return prismaOf(db).session.findMany({
    where: { AND: [whereOf(condition), ...page.where] },
    select: { id: true, createdAt: true, lastUsedAt: true, ip: true, userAgent: true },
    orderBy: [...page.orderBy],
    take: page.take,
  });
}

/** The ids of the user's sessions under `condition`. */
export async function findIdsOfUser(db: AnyClient, condition: UserSessionCondition): Promise<string[]> {
  const rows = await prismaOf(db).session.findMany({ where: whereOf(condition), select: { id: true } });
  return rows.map((row) => row.id);
}
