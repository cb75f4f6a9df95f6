/**
 * The api_keys table (docs/api-keys.md): a tenant's server credentials, stored as hashes. Each
 * function runs on the client it is given: a tenant's, except the lookup by hash, which is how a key
 * names its tenant and so runs on the unscoped one.
 */
import { prismaOf, type AnyClient } from "./clients.js";

export interface ApiKeyRow {
  id: string;
  tenantId: string;
  name: string;
  prefix: string;
  createdAt: Date;
  lastUsedAt: Date | null;
  revokedAt: Date | null;
}

const columns = {
  id: true,
  tenantId: true,
  name: true,
  prefix: true,
  createdAt: true,
  lastUsedAt: true,
  revokedAt: true,
} as const;

export interface NewApiKey {
  id: string;
  tenantId: string;
  name: string;
  prefix: string;
  keyHash: string;
  createdAt: Date;
}

export async function insert(tx: AnyClient, row: NewApiKey): Promise<ApiKeyRow> {
  return prismaOf(tx).apiKey.create({ data: row, select: columns });
}

/** How many of the tenant's keys are not revoked. */
export async function countUnrevoked(db: AnyClient, tenantId: string): Promise<number> {
  return prismaOf(db).apiKey.count({ where: { tenantId, revokedAt: null } });
}

/**
 * One page of the keys, newest first, after the key `afterId` (the cursor). Undefined when `afterId`
 * is not a key the client sees.
 */
export async function page(db: AnyClient, take: number, afterId?: string): Promise<ApiKeyRow[] | undefined> {
  const prisma = prismaOf(db);
  let after = {};
  if (afterId) {
    const last = await prisma.apiKey.findFirst({ where: { id: afterId }, select: { id: true, createdAt: true } });
    if (!last) return undefined;
    after = { OR: [{ createdAt: { lt: last.createdAt } }, { createdAt: last.createdAt, id: { lt: last.id } }] };
  }
  const orderBy = [{ createdAt: "desc" as const }, { id: "desc" as const }];
  return prisma.apiKey.findMany({ where: { ...after }, orderBy, take, select: columns });
}

/** Revokes the key (a key revoked before keeps its first revoked_at); false when there is no such key. */
export async function revoke(db: AnyClient, keyId: string, at: Date): Promise<boolean> {
  const prisma = prismaOf(db);
  const { count } = await prisma.apiKey.updateMany({ where: { id: keyId, revokedAt: null }, data: { revokedAt: at } });
  return count > 0 || (await prisma.apiKey.count({ where: { id: keyId } })) > 0;
}

/** The key with this hash, revoked or not: one lookup through the unique index. */
export async function findByHash(db: AnyClient, keyHash: string): Promise<ApiKeyRow | null> {
  return prismaOf(db).apiKey.findUnique({ where: { keyHash }, select: columns });
}

/** Sets last_used_at unless another request (of any instance) set it since `staleBefore`. */
export async function markUsed(db: AnyClient, keyId: string, at: Date, staleBefore: Date): Promise<void> {
  await prismaOf(db).apiKey.updateMany({
    where: { id: keyId, OR: [{ lastUsedAt: null }, { lastUsedAt: { lt: staleBefore } }] },
    data: { lastUsedAt: at },
  });
}
