/** The operator's management of a tenant's API keys (docs/api-keys.md#managing-keys). */
import { apiKeys, tenants } from "@mteja/db";
import { noStore } from "../shared/request.js";
import type { Context } from "./ports.js";
import { DomainError } from "../shared/errors.js";
import { newApiKey, type KeyMode } from "./keys.js";
import { maxLiveKeysPerTenant, toApiKeyView } from "./schemas.js";

const unknownTenant = () => new DomainError("NOT_FOUND", "not_found.tenant");

export async function createKey(ctx: Context, tenantId: string, name: string, mode: KeyMode) {
  const { key, prefix, keyHash } = newApiKey(ctx.deps.random, mode);
  const row = { id: ctx.deps.random.uuid(), tenantId, name, prefix, keyHash, createdAt: ctx.deps.clock.now() };
  const outcome = await insertUnlessFull(ctx, row);
  if ("refused" in outcome) {
    if (outcome.refused === "unknown-tenant") throw unknownTenant();
    throw new DomainError("VALIDATION_ERROR", { key: "limits.api_keys", params: { max: maxLiveKeysPerTenant } }, {
      details: [{ path: "id", message: { key: "detail.api_keys_full", params: { max: maxLiveKeysPerTenant } } }],
    });
  }
  noStore(ctx);
  const created = outcome.created;
  return {
    id: created.id,
    name: created.name,
    key,
    prefix: created.prefix,
    livemode: mode === "live",
    created_at: created.createdAt.toISOString(),
  };
}

type InsertOutcome = { created: apiKeys.ApiKeyRow } | { refused: "unknown-tenant" | "too-many-live-keys" };

/**
 * Inserts the key unless the tenant does not exist or already has its most unrevoked keys. The
 * tenant's row is locked first, so two creations at once cannot both pass the count.
 */
function insertUnlessFull(ctx: Context, row: apiKeys.NewApiKey): Promise<InsertOutcome> {
  return ctx.deps.db.transaction(ctx.deps.db.forTenant(row.tenantId), async (tx): Promise<InsertOutcome> => {
    if (!(await tenants.lockTenant(tx, row.tenantId))) return { refused: "unknown-tenant" };
    const unrevoked = await apiKeys.countUnrevoked(tx, row.tenantId);
    if (unrevoked >= maxLiveKeysPerTenant) return { refused: "too-many-live-keys" };
    return { created: await apiKeys.insert(tx, row) };
  });
}

export async function listKeys(ctx: Context, tenantId: string, page: { limit: number; cursor?: string | undefined }) {
  if (!(await tenantExists(ctx, tenantId))) throw unknownTenant();
  const rows = await apiKeys.page(ctx.deps.db.forTenant(tenantId), page.limit + 1, page.cursor);
  if (!rows) {
    throw new DomainError("VALIDATION_ERROR", undefined, { details: [{ path: "cursor", message: "detail.cursor" }] });
  }
  const shown = rows.slice(0, page.limit);
  const last = shown[shown.length - 1];
  return { api_keys: shown.map(toApiKeyView), next_cursor: rows.length > page.limit && last ? last.id : null };
}

export async function revokeKey(ctx: Context, tenantId: string, keyId: string): Promise<void> {
  if (await apiKeys.revoke(ctx.deps.db.forTenant(tenantId), keyId, ctx.deps.clock.now())) return;
  if (!(await tenantExists(ctx, tenantId))) throw unknownTenant();
  throw new DomainError("NOT_FOUND", "not_found.api_key");
}

function tenantExists(ctx: Context, tenantId: string): Promise<boolean> {
  return tenants.tenantExists(ctx.deps.db.forTenant(tenantId), tenantId);
}
