// The hand-written GET /api/v1/auth/me every benchmark compares Mteja with: verify the same ES256 JWT
// with a KeyObject, run the same SQL with pg, send the same body. One copy, used by bench/targets.mjs
// (the /me benchmark) and bench/login-server.mjs (the login-storm baseline).
import jwt from "jsonwebtoken";

/** The access token's claims (the same ES256 check as Mteja's, with a KeyObject), or undefined. */
export function verifiedClaims(request, publicKey) {
  const bearer = /^Bearer (\S+)$/.exec(request.headers.authorization ?? "")?.[1];
  try {
    return jwt.verify(bearer, publicKey, { algorithms: ["ES256"], issuer: "mteja", audience: "mteja" });
  } catch {
    return undefined;
  }
}

export function handWrittenMe(pool, publicKey, { tenantHeader } = {}) {
  return async (request, reply) => {
    if (tenantHeader && request.headers["x-tenant-id"] !== tenantHeader) return reply.code(400).send({ success: false });
    const claims = verifiedClaims(request, publicKey);
    if (!claims) return reply.code(401).send({ success: false });
    const { rows } = await pool.query(
      `SELECT u.id, u.name, u.email, u.phone, u.avatar_url, u.email_verified, u.otp_enabled, u.role, u.preferences
         FROM users u
        WHERE u.id = $1 AND u.tenant_id = $2
          AND EXISTS (SELECT 1 FROM sessions s WHERE s.user_id = u.id AND s.id = $3 AND s.revoked_at IS NULL AND s.absolute_expires_at > now())
        LIMIT 1`,
      [claims.sub, claims.tid, claims.sid],
    );
    const u = rows[0];
    if (!u) return reply.code(401).send({ success: false });
    return { success: true, data: { id: u.id, name: u.name, email: u.email, phone: u.phone, avatar_url: u.avatar_url, email_verified: u.email_verified, otp_enabled: u.otp_enabled, role: u.role, preferences: u.preferences } };
  };
}
