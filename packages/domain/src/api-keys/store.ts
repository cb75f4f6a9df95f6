/**
 * Every read and write of the api_keys table, in one place, each through the named tenant's scoped
 * client. Only the lookup by hash crosses tenants: it is how a key names its tenant.
 */
import type { Database } from "@mteja/db";

export interface ApiKeyRow {
  id: string;
  tenantId: string;
  name: string;
  prefix: string;
  createdAt: Date;
  lastUsedAt: Date | null;
  revokedAt: Date | null;
}

const columns = { id: true, tenantId: true, name: true, prefix: true, createdAt: true, lastUsedAt: true, revokedAt: true } as const;

export type CreateOutcome = { created: ApiKeyRow } | { refused: "unknown-tenant" | "too-many-live-keys" };

/**
 * Inserts a key unless the tenant does not exist or already has `maxLive` unrevoked keys. The
 * tenant's row is locked first, so two creations at once cannot both pass the count.
 */
export async function insertApiKey(
  db: Database,
  row: { id: string; tenantId: string; name: string; prefix: string; keyHash: string; createdAt: Date },
  maxLive: number,
): Promise<CreateOutcome> {
  return db.forTenant(row.tenantId).$transaction(async (tx): Promise<CreateOutcome> => {
    const [tenant] = await tx.$queryRaw<{ id: string }[]>`SELECT id FROM tenants WHERE id = ${row.tenantId} FOR UPDATE`;
    if (!tenant) return { refused: "unknown-tenant" };
    const live = await tx.apiKey.count({ where: { tenantId: row.tenantId, revokedAt: null } });
    if (live >= maxLive) return { refused: "too-many-live-keys" };
    return { created: await tx.apiKey.create({ data: row, select: columns }) };
  });
}

export async function tenantExists(db: Database, tenantId: string): Promise<boolean> {
  return (await db.forTenant(tenantId).tenant.count({ where: { id: tenantId } })) > 0;
}

/**
 * One page of a tenant's keys, newest first, after the key `afterId` (the cursor). Undefined when
 * `afterId` is not a key of this tenant.
 */
export async function listApiKeys(db: Database, tenantId: string, take: number, afterId?: string): Promise<ApiKeyRow[] | undefined> {
  const scoped = db.forTenant(tenantId);
  let after = {};
  if (afterId) {
    const last = await scoped.apiKey.findFirst({ where: { id: afterId }, select: { id: true, createdAt: true } });
    if (!last) return undefined;
    after = { OR: [{ createdAt: { lt: last.createdAt } }, { createdAt: last.createdAt, id: { lt: last.id } }] };
  }
  return scoped.apiKey.findMany({ where: { ...after }, orderBy: [{ createdAt: "desc" }, { id: "desc" }], take, select: columns });
}

/** Revokes the key (a key revoked before keeps its first revoked_at); false when the tenant has no such key. */
export async function revokeApiKey(db: Database, tenantId: string, keyId: string, at: Date): Promise<boolean> {
  const scoped = db.forTenant(tenantId);
  const { count } = await scoped.apiKey.updateMany({ where: { id: keyId, revokedAt: null }, data: { revokedAt: at } });
  return count > 0 || (await scoped.apiKey.count({ where: { id: keyId } })) > 0;
}

/** The key with this hash, revoked or not: one lookup through the unique index, never cached. */
export async function findApiKeyByHash(db: Database, keyHash: string): Promise<ApiKeyRow | null> {
  return db.unscoped.apiKey.findUnique({ where: { keyHash }, select: columns });
}

/** Sets last_used_at unless another request (of any instance) set it since `staleBefore`. */
export async function markApiKeyUsed(db: Database, key: { id: string; tenantId: string }, at: Date, staleBefore: Date): Promise<void> {
  await db.forTenant(key.tenantId).apiKey.updateMany({
    where: { id: key.id, OR: [{ lastUsedAt: null }, { lastUsedAt: { lt: staleBefore } }] },
    data: { lastUsedAt: at },
  });
}
