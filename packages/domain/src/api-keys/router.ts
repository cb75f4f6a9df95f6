import { z } from "zod";
import { nullData, ok } from "../shared/envelope.js";
import { noInput } from "../shared/fields.js";
import { adminApiProcedure, createTRPCRouter, serverProcedure } from "../trpc.js";
import {
  createApiKeyInput,
  createApiKeyOutput,
  currentApiKeyOutput,
  listApiKeysInput,
  listApiKeysOutput,
  maxLiveKeysPerTenant,
  revokeApiKeyInput,
} from "./schemas.js";
import { createKey, listKeys, revokeKey } from "./service.js";

const adminTags = ["admin"];
const adminErrors = { 401: "AUTH_REQUIRED or INVALID_TOKEN (ADMIN_API_KEY)", 404: "NOT_FOUND (no tenant, or no key of the tenant, has this id)", 422: "VALIDATION_ERROR" };

/** API keys of shop backends (docs/api-keys.md): managed with ADMIN_API_KEY, used by the shop's servers. */
export const apiKeysRouter = createTRPCRouter({
  create: adminApiProcedure
    .meta({
      successStatus: 201,
      openapi: {
        method: "POST",
        path: "/api/v1/admin/tenants/{id}/api-keys",
        tags: adminTags,
        summary: "Create an API key for a tenant's servers",
        description: `The key (mk_live_…, or mk_test_… with mode "test": docs/test-mode.md) is in this answer only (Cache-Control: no-store); the service keeps its SHA-256. At most ${maxLiveKeysPerTenant} keys per tenant that are not revoked (422).`,
        errorResponses: { ...adminErrors, 422: `VALIDATION_ERROR (a bad name, or the tenant already has ${maxLiveKeysPerTenant} live keys)` },
      },
    })
    .input(createApiKeyInput)
    .output(createApiKeyOutput)
    .mutation(async ({ ctx, input }) => ok(await createKey(ctx, input.id, input.name, input.mode), "API key created. Store it now: it is not shown again.")),

  list: adminApiProcedure
    .meta({
      openapi: {
        method: "GET",
        path: "/api/v1/admin/tenants/{id}/api-keys",
        tags: adminTags,
        summary: "List a tenant's API keys (newest first, revoked ones included, never the key)",
        errorResponses: adminErrors,
      },
    })
    .input(listApiKeysInput)
    .output(listApiKeysOutput)
    .query(async ({ ctx, input }) => ok(await listKeys(ctx, input.id, input))),

  revoke: adminApiProcedure
    .meta({
      openapi: {
        method: "DELETE",
        path: "/api/v1/admin/tenants/{id}/api-keys/{keyId}",
        tags: adminTags,
        summary: "Revoke an API key: refused from the next request on",
        errorResponses: adminErrors,
      },
    })
    .input(revokeApiKeyInput)
    .output(nullData)
    .mutation(async ({ ctx, input }) => {
      await revokeKey(ctx, input.id, input.keyId);
      return ok(null, "API key revoked.");
    }),

  current: serverProcedure
    .meta({
      openapi: {
        method: "GET",
        path: "/api/v1/api-keys/current",
        tags: ["server"],
        summary: "The API key this request was made with, and its tenant (to check a backend's setup)",
        requestHeaders: z.object({ "x-tenant-id": z.string().optional().describe("Optional: the key names its tenant; when sent, it must be that tenant.") }),
        errorResponses: {
          401: "AUTH_REQUIRED or INVALID_TOKEN (a wrong or revoked key, or X-Tenant-ID names another tenant)",
          403: "FORBIDDEN (an access token instead of an API key)",
        },
      },
    })
    .input(noInput)
    .output(currentApiKeyOutput)
    .query(({ ctx }) => {
      const { id, name, prefix, livemode } = ctx.apiKey;
      return ok({ id, name, prefix, livemode, tenant_id: ctx.tenant.id });
    }),
});
