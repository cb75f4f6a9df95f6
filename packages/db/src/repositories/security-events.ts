/**
 * The security_events table (docs/security-events.md): what happened to an account. Written as one
 * plain statement (every sign-in writes one, and Prisma's model create costs several times its CPU:
 * docs/performance.md, "Sign-in"), read in keyset pages.
 */
import type { Prisma, SecurityEvent } from "../generated/prisma/client.js";
import type { RawSql } from "../raw-sql.js";
import { prismaOf, type AnyClient } from "./clients.js";

export type { SecurityEvent } from "../generated/prisma/client.js";

export interface NewSecurityEvent {
  id: string;
  tenantId: string;
  userId: string;
  type: string;
  ip: string | null;
  userAgent: string | null;
  details: Record<string, unknown>;
  createdAt: Date;
}

/** Writes the event through `writer`: the transaction of the change it reports, or any client. The tenant is named. */
export async function insert(writer: RawSql, event: NewSecurityEvent): Promise<void> {
  const { id, tenantId, userId, type, ip, userAgent, details, createdAt } = event;
  await writer.$executeRaw`INSERT INTO security_events
      (id, tenant_id, user_id, type, ip, user_agent, details, created_at)
    VALUES (${id}::uuid, ${tenantId}, ${userId}::uuid, ${type}, ${ip}, ${userAgent},
      ${JSON.stringify(details)}::jsonb, ${createdAt})`;
}

/** A page of a keyset list: the list's conditions (`where`, ANDed with the caller's), its order and size. */
export interface SecurityEventPage {
  where: readonly Prisma.SecurityEventWhereInput[];
  orderBy: readonly Prisma.SecurityEventOrderByWithRelationInput[];
  take: number;
}

/** One page of the user's events. */
export async function pageOfUser(db: AnyClient, userId: string, page: SecurityEventPage): Promise<SecurityEvent[]> {
  return prismaOf(db).securityEvent.findMany({
    where: { AND: [{ userId }, ...page.where] },
    orderBy: [...page.orderBy],
    take: page.take,
  });
}

/** One page of the events the client sees (the unscoped one: every tenant's); of `tenantId`'s only when given. */
export async function pageOf(db: AnyClient, tenantId: string | undefined, page: SecurityEventPage) {
  return prismaOf(db).securityEvent.findMany({
    where: { AND: [...(tenantId ? [{ tenantId }] : []), ...page.where] },
    orderBy: [...page.orderBy],
    take: page.take,
  });
}
