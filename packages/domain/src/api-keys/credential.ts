/**
 * The server credential (docs/api-keys.md): `Authorization: Bearer mk_…` names its tenant. Checked on
 * every request by one indexed lookup, never cached, so a revocation holds from the next request on.
 */
import { apiKeys } from "@mteja/db";
import type { Context } from "./ports.js";
import { DomainError } from "../shared/errors.js";
import type { Tenant } from "../shared/tenant.js";
import { hashApiKey, looksLikeApiKey, modeOfKey } from "./keys.js";

/** The key a server operation was called with, as the procedure sees it (`ctx.apiKey`). */
export interface ApiKeyIdentity {
  id: string;
  name: string;
  prefix: string;
  /** The key's mode (docs/test-mode.md): `mk_test_…` false, any other key true. */
  livemode: boolean;
}

/** last_used_at is a hint for operators, written at most once a minute per key (not a write per request). */
const lastUsedResolutionMs = 60_000;

export async function authenticateApiKey(ctx: Context, presented: string): Promise<{ tenant: Tenant; apiKey: ApiKeyIdentity }> {
  if (!looksLikeApiKey(presented)) return refuseOtherCredential(ctx, presented);
  // Unscoped: the key is how the request names its tenant.
  const row = await apiKeys.findByHash(ctx.deps.db.unscoped("api-key-lookup"), hashApiKey(presented));
  if (!row || row.revokedAt) throw invalidKey();
  const header = ctx.request.tenantHeader?.trim();
  if (header && header !== row.tenantId) throw invalidKey();
  const tenant = await ctx.deps.tenants.find(row.tenantId);
  if (!tenant) throw invalidKey();
  await noteUse(ctx, row);
  return { tenant, apiKey: { id: row.id, name: row.name, prefix: row.prefix, livemode: modeOfKey(presented) === "live" } };
}

/** A customer's access token is the wrong kind of credential here (403); anything else proves nothing (401). */
async function refuseOtherCredential(ctx: Context, presented: string): Promise<never> {
  const isAccessToken = await ctx.deps.tokens.verify(presented).then(
    () => true,
    () => false,
  );
  if (isAccessToken) throw new DomainError("FORBIDDEN", "access.api_key_needed");
  throw invalidKey();
}

async function noteUse(ctx: Context, row: apiKeys.ApiKeyRow): Promise<void> {
  const now = ctx.deps.clock.now();
  const staleBefore = new Date(now.getTime() - lastUsedResolutionMs);
  if (row.lastUsedAt && row.lastUsedAt >= staleBefore) return;
  await apiKeys.markUsed(ctx.deps.db.forTenant(row.tenantId), row.id, now, staleBefore);
}

function invalidKey(): DomainError {
  return new DomainError("INVALID_TOKEN", "access.api_key_invalid");
}
