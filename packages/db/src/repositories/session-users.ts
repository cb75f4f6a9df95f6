/**
 * The two reads every authenticated request makes: "is this session live?" and, for GET /me, "the
 * user of this live session". They run as plain SQL on the same pool as Prisma because Prisma's
 * relation filters cost 2–4× the database time here (docs/performance.md has the measurements).
 */
import type { SqlRunner } from "../migrator.js";

export interface SessionKey {
  userId: string;
  tenantId: string;
  sessionId: string;
  now: Date;
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
}

const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const liveSession = `SELECT 1 FROM sessions s
  WHERE s.id = $3 AND s.user_id = $1 AND s.tenant_id = $2 AND s.revoked_at IS NULL AND s.absolute_expires_at > $4`;

export async function isSessionLive(sql: SqlRunner, key: SessionKey): Promise<boolean> {
  if (!uuid.test(key.userId) || !uuid.test(key.sessionId)) return false;
  const rows = await sql.query(liveSession, [key.userId, key.tenantId, key.sessionId, key.now]);
  return rows.length > 0;
}

export async function findSessionUser(sql: SqlRunner, key: SessionKey): Promise<SessionUserRow | undefined> {
  if (!uuid.test(key.userId) || !uuid.test(key.sessionId)) return undefined;
  const rows = await sql.query(
    `SELECT u.id, u.name, u.email, u.phone, u.phone_verified, u.avatar_url, u.email_verified, u.otp_enabled, u.role, u.preferences
       FROM users u
      WHERE u.id = $1 AND u.tenant_id = $2 AND EXISTS (${liveSession})`,
    [key.userId, key.tenantId, key.sessionId, key.now],
  );
  return rows[0] as SessionUserRow | undefined;
}
