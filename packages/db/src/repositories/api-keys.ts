/**
 * The api_keys table (docs/api-keys.md): a tenant's server credentials, stored as hashes. Each
 * function runs on the client it is given: a tenant's, except the lookup by hash, which is how a key
 * names its tenant and so runs on the unscoped one.
 */
import type { TenantDb } from "../tenant-scope.js";
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

export type InsertOutcome = { created: ApiKeyRow } | { refused: "unknown-tenant" | "too-many-live-keys" };

/**
 * Inserts a key unless the tenant does not exist or already has `maxLive` unrevoked keys. The
 * tenant's row is locked first, so two insertions at once cannot both pass the count.
 */
export async function insertUnlessFull(db: TenantDb, row: NewApiKey, maxLive: number): Promise<InsertOutcome> {
  return db.$transaction(async (tx): Promise<InsertOutcome> => {
    const [tenant] = await tx.$queryRaw<{ id: string }[]>`SELECT id FROM tenants WHERE id = ${row.tenantId} FOR UPDATE`;
    if (!tenant) return { refused: "unknown-tenant" };
    const live = await tx.apiKey.count({ where: { tenantId: row.tenantId, revokedAt: null } });
    if (live >= maxLive) return { refused: "too-many-live-keys" };
    return { created: await tx.apiKey.create({ data: row, select: columns }) };
  });
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
