/**
 * Registration sends a verification email through the mail outbox (issue "Two-factor sign-in, email
 * verification…"). Until that lands, no mail is written.
 */
import type { Prisma } from "@mteja/db";
import type { Context } from "../context.js";

export async function enqueueVerificationMail(
  _ctx: Context,
  _tx: Prisma.TransactionClient,
  _user: { id: string; tenantId: string; email: string; name: string },
): Promise<void> {}
