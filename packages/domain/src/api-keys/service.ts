/** The operator's management of a tenant's API keys (docs/api-keys.md#managing-keys). */
import { noStore } from "../auth/sessions/refresh-cookie.js";
import type { Context } from "../context.js";
import { DomainError } from "../errors.js";
import { newApiKey } from "./keys.js";
import { maxLiveKeysPerTenant, toApiKeyView } from "./schemas.js";
import { insertApiKey, listApiKeys, revokeApiKey, tenantExists } from "./store.js";

const unknownTenant = () => new DomainError("NOT_FOUND", "No tenant has this id.");

export async function createKey(ctx: Context, tenantId: string, name: string) {
  const { key, prefix, keyHash } = newApiKey(ctx.deps.random);
  const row = { id: ctx.deps.random.uuid(), tenantId, name, prefix, keyHash, createdAt: ctx.deps.clock.now() };
  const outcome = await insertApiKey(ctx.deps.db, row, maxLiveKeysPerTenant);
  if ("refused" in outcome) {
    if (outcome.refused === "unknown-tenant") throw unknownTenant();
    throw new DomainError("VALIDATION_ERROR", `A tenant has at most ${maxLiveKeysPerTenant} API keys that are not revoked; revoke one first.`, {
      details: [{ path: "id", message: `this tenant already has ${maxLiveKeysPerTenant} API keys that are not revoked` }],
    });
  }
  noStore(ctx);
  const created = outcome.created;
  return { id: created.id, name: created.name, key, prefix: created.prefix, created_at: created.createdAt.toISOString() };
}

export async function listKeys(ctx: Context, tenantId: string, page: { limit: number; cursor?: string | undefined }) {
  if (!(await tenantExists(ctx.deps.db, tenantId))) throw unknownTenant();
  const rows = await listApiKeys(ctx.deps.db, tenantId, page.limit + 1, page.cursor);
  if (!rows) {
    throw new DomainError("VALIDATION_ERROR", "The request is invalid.", { details: [{ path: "cursor", message: "cursor is not a next_cursor of this list" }] });
  }
  const shown = rows.slice(0, page.limit);
  const last = shown[shown.length - 1];
  return { api_keys: shown.map(toApiKeyView), next_cursor: rows.length > page.limit && last ? last.id : null };
}

export async function revokeKey(ctx: Context, tenantId: string, keyId: string): Promise<void> {
  if (await revokeApiKey(ctx.deps.db, tenantId, keyId, ctx.deps.clock.now())) return;
  if (!(await tenantExists(ctx.deps.db, tenantId))) throw unknownTenant();
  throw new DomainError("NOT_FOUND", "This tenant has no API key with this id.");
}
