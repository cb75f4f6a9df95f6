import { z } from "zod";
import { envelope } from "../shared/envelope.js";
import { oneLineString } from "../shared/fields.js";
import { tenantIdSchema } from "../shared/tenant-settings.js";
import type { apiKeys } from "@mteja/db";
import { modeOfKey } from "./keys.js";

/** At most this many unrevoked keys per tenant (docs/api-keys.md): one per backend or environment is plenty. */
export const maxLiveKeysPerTenant = 25;

const keyName = oneLineString({ error: "name is required" }).trim().min(1, "name is required").max(100, "name must be at most 100 characters");

export const createApiKeyInput = z.object({
  id: tenantIdSchema,
  name: keyName,
  mode: z
    .enum(["live", "test"], { error: "mode must be live or test" })
    .default("live")
    .describe("live (mk_live_…, the default): Daraja and real money. test (mk_test_…): the simulated provider, its own objects and events (docs/test-mode.md)."),
});

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
  prefix: z.string().describe("The key's first characters (mk_live_ or mk_test_ and 9 more; mk_ and 9 for a key of the first releases), to tell keys apart."),
  livemode: z.boolean().describe("false for a test key (mk_test_…): docs/test-mode.md."),
  created_at: z.string(),
  last_used_at: z.string().nullable().describe("Updated at most once a minute."),
  revoked_at: z.string().nullable(),
});

export function toApiKeyView(row: apiKeys.ApiKeyRow): z.infer<typeof apiKeyView> {
  return {
    id: row.id,
    name: row.name,
    prefix: row.prefix,
    livemode: modeOfKey(row.prefix) === "live",
    created_at: row.createdAt.toISOString(),
    last_used_at: row.lastUsedAt?.toISOString() ?? null,
    revoked_at: row.revokedAt?.toISOString() ?? null,
  };
}

export const createApiKeyOutput = envelope(
  z.object({
    id: z.string(),
    name: z.string(),
    key: z.string().describe("The key itself (mk_live_… or mk_test_…), shown only in this answer."),
    prefix: z.string(),
    livemode: z.boolean(),
    created_at: z.string(),
  }),
);

export const listApiKeysOutput = envelope(z.object({ api_keys: z.array(apiKeyView), next_cursor: z.string().nullable() }));

export const currentApiKeyOutput = envelope(
  z.object({ id: z.string(), name: z.string(), prefix: z.string(), livemode: z.boolean(), tenant_id: z.string() }),
);
