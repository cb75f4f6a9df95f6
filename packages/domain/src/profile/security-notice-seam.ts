/**
 * Security notices by mail (ASVS 6.3.7) go through the mail outbox; issue "Two-factor sign-in, email
 * verification…" fills this in. Until then no notice is written.
 */
import type { Prisma } from "@mteja/db";
import type { Context } from "../context.js";

export type SecurityNotice = "passwordChanged" | "passwordReset" | "twoFactorEnabled" | "twoFactorDisabled";

export async function enqueueSecurityNotice(
  _ctx: Context,
  _tx: Prisma.TransactionClient,
  _user: { id: string; tenantId: string; email: string; name: string },
  _notice: SecurityNotice,
): Promise<void> {}
