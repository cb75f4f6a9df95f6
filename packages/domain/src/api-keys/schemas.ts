import { z } from "zod";
import { envelope } from "../shared/envelope.js";
import { oneLineString } from "../shared/fields.js";
import { tenantIdSchema } from "../shared/tenant-settings.js";
import type { apiKeys } from "@mteja/db";

/** At most this many unrevoked keys per tenant (docs/api-keys.md): one per backend or environment is plenty. */
export const maxLiveKeysPerTenant = 25;

const keyName = oneLineString({ error: "name is required" }).trim().min(1, "name is required").max(100, "name must be at most 100 characters");

export const createApiKeyInput = z.object({ id: tenantIdSchema, name: keyName });

/** `limit` is left coercible: it arrives as a query string. */
export const listApiKeysInput = z.object({
  id: tenantIdSchema,
  limit: z.number().int().min(1).max(100).default(20),
  cursor: z.uuid("cursor is not a next_cursor of this list").optional().describe("next_cursor of the previous page."),
});

export const revokeApiKeyInput = z.object({ id: tenantIdSchema, keyId: z.uuid("keyId must be an API key id") });

const apiKeyView = z.object({
  id: z.string(),
  name: z.string(),
  prefix: z.string().describe("The key's first 12 characters (mk_ included), to tell keys apart."),
  created_at: z.string(),
  last_used_at: z.string().nullable().describe("Updated at most once a minute."),
  revoked_at: z.string().nullable(),
});

export function toApiKeyView(row: apiKeys.ApiKeyRow): z.infer<typeof apiKeyView> {
  return {
    id: row.id,
    name: row.name,
    prefix: row.prefix,
    created_at: row.createdAt.toISOString(),
    last_used_at: row.lastUsedAt?.toISOString() ?? null,
    revoked_at: row.revokedAt?.toISOString() ?? null,
  };
}

export const createApiKeyOutput = envelope(
  z.object({
    id: z.string(),
    name: z.string(),
    key: z.string().describe("The key itself (mk_…), shown only in this answer."),
    prefix: z.string(),
    created_at: z.string(),
  }),
);

export const listApiKeysOutput = envelope(z.object({ api_keys: z.array(apiKeyView), next_cursor: z.string().nullable() }));

export const currentApiKeyOutput = envelope(z.object({ id: z.string(), name: z.string(), prefix: z.string(), tenant_id: z.string() }));
