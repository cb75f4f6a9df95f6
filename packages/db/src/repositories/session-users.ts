/**
 * The two reads every authenticated request makes: "the session of this token, if it is still one the
 * caller accepts" and, for GET /me, "the user of that session". They run as plain SQL on the same pool
 * as Prisma because Prisma's relation filters cost 2–4× the database time here (docs/performance.md
 * has the measurements). Which sessions count as live is the domain's rule (auth/sessions: not revoked,
 * within their absolute lifetime), handed in as a SessionCondition.
 */
import type { SqlRunner } from "../migrator.js";

/** The session an access token names. */
export interface SessionKey {
  userId: string;
  tenantId: string;
  sessionId: string;
}

/** Which sessions a read returns: decided by the caller. */
export interface SessionCondition {
  /** Revoked sessions only (true), or sessions not revoked only (false). */
  revoked: boolean;
  /** Only sessions whose absolute lifetime ends after this instant. */
  absoluteExpiresAfter: Date;
}

/** A session as the per-request check reads it. */
export interface SessionRow {
  last_used_at: Date | null;
  /** Until when the session is fresh (docs/step-up.md); read in the same row, so step-up costs no query of its own. */
  fresh_until: Date | null;
}

export interface SessionUserRow {
  id: string;
  name: string | null;
  email: string | null;
  phone: string | null;
  phone_verified: boolean;
  avatar_url: string | null;
  email_verified: boolean;
  otp_enabled: boolean;
  role: string | null;
  preferences: Record<string, unknown>;
  session_last_used_at: Date | null;
}

const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The session of `key` under `condition`, as SQL over $1-$4 (the parameters of sessionParameters). */
function sessionCondition(condition: SessionCondition): string {
  return `s.id = $3 AND s.user_id = $1 AND s.tenant_id = $2 AND s.revoked_at IS ${condition.revoked ? "NOT NULL" : "NULL"} AND s.absolute_expires_at > $4`;
}

function sessionParameters(key: SessionKey, condition: SessionCondition): unknown[] {
  return [key.userId, key.tenantId, key.sessionId, condition.absoluteExpiresAfter];
}

export async function findSession(sql: SqlRunner, key: SessionKey, condition: SessionCondition): Promise<SessionRow | undefined> {
  if (!uuid.test(key.userId) || !uuid.test(key.sessionId)) return undefined;
  const rows = await sql.query(`SELECT s.last_used_at, s.fresh_until FROM sessions s WHERE ${sessionCondition(condition)}`, sessionParameters(key, condition));
  return rows[0] as SessionRow | undefined;
}

/** Notes a session's use unless a use at or after `staleBefore` is already noted (one write a minute, not one a request). */
export async function markSessionUsed(sql: SqlRunner, sessionId: string, now: Date, staleBefore: Date): Promise<void> {
  await sql.query(`UPDATE sessions SET last_used_at = $2 WHERE id = $1 AND (last_used_at IS NULL OR last_used_at < $3)`, [sessionId, now, staleBefore]);
}

export async function findSessionUser(sql: SqlRunner, key: SessionKey, condition: SessionCondition): Promise<SessionUserRow | undefined> {
  if (!uuid.test(key.userId) || !uuid.test(key.sessionId)) return undefined;
  const rows = await sql.query(
    `SELECT u.id, u.name, u.email, u.phone, u.phone_verified, u.avatar_url, u.email_verified, u.otp_enabled, u.role, u.preferences,
            s.last_used_at AS session_last_used_at
       FROM users u JOIN sessions s ON ${sessionCondition(condition)}
      WHERE u.id = $1 AND u.tenant_id = $2`,
    sessionParameters(key, condition),
  );
  return rows[0] as SessionUserRow | undefined;
}
