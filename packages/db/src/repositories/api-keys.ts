/**
 * The api_keys table (docs/api-keys.md): a tenant's server credentials, stored as hashes. Each
 * function runs on the client it is given: a tenant's, except the lookup by hash, which is how a key
 * names its tenant and so runs on the unscoped one.
 */
import type { UnscopedDb } from "../doors.js";
import { plainOf } from "../plain-access.js";
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

/**
 * The key with this hash, revoked or not, whichever tenant's: one lookup through the unique index. Every
 * request of a shop's server reads it first, so it is one plain statement on the pool, prepared by name:
 * Prisma's model costs several times its CPU.
 */
export async function findByHash(db: UnscopedDb, keyHash: string): Promise<ApiKeyRow | null> {
  const rows = await plainOf(db).sql.query(
    `SELECT id, tenant_id, name, prefix, created_at, last_used_at, revoked_at FROM api_keys WHERE key_hash = $1`,
    [keyHash],
  );
  const row = rows[0];
  if (!row) return null;
  return {
    id: row.id as string,
    tenantId: row.tenant_id as string,
    name: row.name as string,
    prefix: row.prefix as string,
    createdAt: row.created_at as Date,
    lastUsedAt: row.last_used_at as Date | null,
    revokedAt: row.revoked_at as Date | null,
  };
}

/** Sets last_used_at unless another request (of any instance) set it since `staleBefore`. */
export async function markUsed(db: AnyClient, keyId: string, at: Date, staleBefore: Date): Promise<void> {
  await prismaOf(db).apiKey.updateMany({
    where: { id: keyId, OR: [{ lastUsedAt: null }, { lastUsedAt: { lt: staleBefore } }] },
    data: { lastUsedAt: at },
  });
}
