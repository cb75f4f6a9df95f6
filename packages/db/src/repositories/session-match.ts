/**
 * The session an access token names, as the SQL of the two reads every authenticated request makes
 * (sessions.find, and users.findProfileInSession for GET /me). Which sessions count is the caller's
 * rule, handed in as a SessionCondition.
 */

import { plainFor } from "../plain-access.js";
import type { TenantDb } from "../tenant-scope.js";

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

const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Whether the key can name a row at all (a malformed uuid would be a database error, not "no session"). */
function isWellFormed(key: SessionKey): boolean {
  return uuid.test(key.userId) && uuid.test(key.sessionId);
}

/** The session of `key`, revoked or not, as SQL over $1-$4 (the parameters of sessionParameters). */
const ofKey = "s.id = $3 AND s.user_id = $1 AND s.tenant_id = $2";
const within = "AND s.absolute_expires_at > $4";
const revokedSql = `${ofKey} AND s.revoked_at IS NOT NULL ${within}`;
const notRevokedSql = `${ofKey} AND s.revoked_at IS NULL ${within}`;

function sessionParameters(key: SessionKey, condition: SessionCondition): unknown[] {
  return [key.userId, key.tenantId, key.sessionId, condition.absoluteExpiresAfter];
}

/**
 * A read of the session `key` names, joined into `build`'s statement: both texts (revoked or not) built
 * once, since these reads run on every authenticated request; the condition picks which one runs.
 */
export function sessionRead<Row>(build: (sessionCondition: string) => string) {
  const revoked = build(revokedSql);
  const notRevoked = build(notRevokedSql);
  return async (db: TenantDb, key: SessionKey, condition: SessionCondition): Promise<Row | undefined> => {
    if (!isWellFormed(key)) return undefined;
    const rows = await plainFor(db, key.tenantId).sql.query(condition.revoked ? revoked : notRevoked, sessionParameters(key, condition));
    return rows[0] as Row | undefined;
  };
}
