/**
 * The user_identities table: outside accounts (Google's) linked to users, found by the provider's
 * `sub`. What a link means (who may make it, what it ends) is the caller's.
 */
import type { UserIdentity } from "../generated/prisma/client.js";
import { prismaOf, type AnyClient } from "./clients.js";

export type { UserIdentity } from "../generated/prisma/client.js";

/** The identity with this provider's `sub` in the tenant, with its user. */
export async function findBySubject(db: AnyClient, provider: string, subject: string): Promise<UserIdentity | null> {
  return prismaOf(db).userIdentity.findFirst({ where: { provider, subject } });
}

/** The user's identity at this provider, if linked. */
export async function findOf(db: AnyClient, userId: string, provider: string): Promise<UserIdentity | null> {
  return prismaOf(db).userIdentity.findFirst({ where: { userId, provider } });
}

/** The user's identities, oldest link first (GET me's `identities`). */
export async function listOf(db: AnyClient, userId: string): Promise<Pick<UserIdentity, "provider" | "email" | "linkedAt">[]> {
  return prismaOf(db).userIdentity.findMany({
    where: { userId },
    select: { provider: true, email: true, linkedAt: true },
    orderBy: { linkedAt: "asc" },
  });
}

/** How many identities the user has linked. */
export async function countOf(db: AnyClient, userId: string): Promise<number> {
  return prismaOf(db).userIdentity.count({ where: { userId } });
}


export interface NewIdentity {
  tenantId: string;
  userId: string;
  provider: string;
  subject: string;
  email: string | null;
  linkedAt: Date;
}

/** Links the identity; a `sub` linked already, or a second one of the provider, is a unique violation. */
export async function link(tx: AnyClient, identity: NewIdentity): Promise<void> {
  await prismaOf(tx).userIdentity.create({ data: identity });
}

/** Unlinks the user's identity at this provider; whether there was one. */
export async function unlink(tx: AnyClient, userId: string, provider: string): Promise<boolean> {
  return (await prismaOf(tx).userIdentity.deleteMany({ where: { userId, provider } })).count > 0;
}

/** Keeps the provider's email as it was at the last sign-in. */
export async function noteEmail(db: AnyClient, id: string, email: string | null): Promise<void> {
  await prismaOf(db).userIdentity.updateMany({ where: { id }, data: { email } });
}
