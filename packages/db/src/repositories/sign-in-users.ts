/**
 * The user a password sign-in is for, found by tenant and email. Every login reads it before the
 * password hash is checked, so it runs as plain SQL on the shared pool: Prisma's findUnique on the
 * compound key costs several times the database round trip in CPU (docs/performance.md, "Sign-in").
 */
import type { SqlRunner } from "../migrator.js";

export interface SignInUser {
  id: string;
  tenantId: string;
  name: string | null;
  email: string | null;
  role: string | null;
  passwordHash: string | null;
  otpEnabled: boolean;
  emailVerified: boolean;
}

export async function findSignInUser(sql: SqlRunner, tenantId: string, email: string): Promise<SignInUser | undefined> {
  const rows = await sql.query(
    `SELECT id, tenant_id, name, email, role, password_hash, otp_enabled, email_verified FROM users WHERE tenant_id = $1 AND email = $2`,
    [tenantId, email],
  );
  const row = rows[0];
  if (!row) return undefined;
  return {
    id: row.id as string,
    tenantId: row.tenant_id as string,
    name: row.name as string | null,
    email: row.email as string | null,
    role: row.role as string | null,
    passwordHash: row.password_hash as string | null,
    otpEnabled: row.otp_enabled as boolean,
    emailVerified: row.email_verified as boolean,
  };
}
