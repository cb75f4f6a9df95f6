import { tenants } from "@mteja/db";
import { z } from "zod";
import { DomainError } from "../shared/errors.js";
import { envelope, ok } from "../shared/envelope.js";
import { oneLineString, uncoerced } from "../shared/fields.js";
import { adminApiProcedure, createTRPCRouter } from "../trpc.js";
import { toTenant } from "../shared/tenant.js";
import { maskSecrets } from "./daraja-secrets.js";
import { tenantIdSchema, tenantSettingsPatchSchema, tenantSettingsSchema } from "../shared/tenant-settings.js";
import { nextTenantSettings } from "./settings-update.js";
import { setUserRole } from "./user-roles.js";

const tags = ["admin"];

const tenantView = z.object({
  id: z.string(),
  name: z.string(),
  settings: z.record(z.string(), z.unknown()),
  active: z.boolean(),
  created_at: z.string(),
});

function view(row: { id: string; name: string; settings: unknown; active: boolean; createdAt: Date }) {
  return { id: row.id, name: row.name, settings: maskSecrets(toTenant(row).settings), active: row.active, created_at: row.createdAt.toISOString() };
}

/** The operator's admin API (docs/tenants.md#admin-api), guarded by ADMIN_API_KEY. */
export const tenantsRouter = createTRPCRouter({
  createTenant: adminApiProcedure
    .meta({
      openapi: {
        method: "POST",
        path: "/api/v1/admin/tenants",
        tags,
        summary: "Create a tenant (shop)",
        errorResponses: { 401: "AUTH_REQUIRED or INVALID_TOKEN (ADMIN_API_KEY)", 409: "TENANT_EXISTS (a tenant has this id)", 422: "VALIDATION_ERROR" },
      },
    })
    .input(z.object({ id: tenantIdSchema, name: oneLineString().trim().min(1).max(100), settings: tenantSettingsSchema.optional() }))
    .output(envelope(z.object({ tenant: tenantView })))
    .mutation(async ({ ctx, input }) => {
      const settings = nextTenantSettings({}, input.settings ?? {}, {
        cipher: ctx.deps.cipher,
        isDefaultTenant: input.id === ctx.deps.config.defaultTenantId,
      });
      const row = await tenants.createTenant(ctx.deps.db.unscoped("admin-api"), { id: input.id, name: input.name, settings });
      if (!row) {
        throw new DomainError("TENANT_EXISTS", "tenants.id_taken", { details: [{ path: "id", message: "detail.tenant_id_taken" }] });
      }
      ctx.deps.tenants.invalidate(row.id);
      return ok({ tenant: view(row) }, "Tenant created.");
    }),

  listTenants: adminApiProcedure
    .meta({ openapi: { method: "GET", path: "/api/v1/admin/tenants", tags, summary: "List tenants" } })
    .input(z.object({}).strip().optional())
    .output(envelope(z.object({ tenants: z.array(tenantView) })))
    .query(async ({ ctx }) => {
      const rows = await tenants.allTenants(ctx.deps.db.unscoped("admin-api"));
      return ok({ tenants: rows.map(view) });
    }),

  updateTenant: adminApiProcedure
    .meta({ openapi: { method: "PATCH", path: "/api/v1/admin/tenants/{id}", tags, summary: "Update a tenant" } })
    .input(
      z.object({
        id: tenantIdSchema,
        name: oneLineString().trim().min(1).max(100).optional(),
        /** A JSON Merge Patch (RFC 7396) of the stored settings: nested objects merge, null removes a key. */
        settings: tenantSettingsPatchSchema.optional(),
        active: uncoerced(z.boolean()).optional(),
      }),
    )
    .output(envelope(z.object({ tenant: tenantView })))
    .mutation(async ({ ctx, input }) => {
      const row = await ctx.deps.db.transaction(ctx.deps.db.unscoped("admin-api"), async (tx) => {
        // Locked, so two updates at once each merge into the other's result rather than overwrite it.
        const existing = await tenants.lockTenant(tx, input.id);
        if (!existing) throw new DomainError("NOT_FOUND", "not_found.tenant");
        const settings =
          input.settings !== undefined
            ? nextTenantSettings(toTenant(existing).settings, input.settings, {
                cipher: ctx.deps.cipher,
                isDefaultTenant: input.id === ctx.deps.config.defaultTenantId,
              })
            : undefined;
        return tenants.updateTenant(tx, input.id, {
          ...(input.name !== undefined ? { name: input.name } : {}),
          ...(input.active !== undefined ? { active: input.active } : {}),
          ...(settings !== undefined ? { settings } : {}),
        });
      });
      ctx.deps.tenants.invalidate(row.id);
      return ok({ tenant: view(row) }, "Tenant updated.");
    }),

  setUserRole: adminApiProcedure
    .meta({
      openapi: {
        method: "PATCH",
        path: "/api/v1/admin/users/{id}",
        tags,
        summary: "Set a user's role (admin or null); X-Tenant-ID names the user's tenant. A change ends the user's sessions.",
        requestHeaders: z.object({ "x-tenant-id": z.string() }),
      },
    })
    .input(z.object({ id: z.uuid("id must be a user id"), role: z.enum(["admin"]).nullable() }))
    .output(envelope(z.object({ user: z.object({ id: z.string(), email: z.string().nullable(), role: z.string().nullable() }) })))
    .mutation(async ({ ctx, input }) => {
      const tenantId = ctx.request.tenantHeader?.trim();
      if (!tenantId) throw new DomainError("TENANT_REQUIRED");
      const tenant = await ctx.deps.tenants.find(tenantId);
      if (!tenant) throw new DomainError("TENANT_NOT_FOUND");
      const user = await setUserRole(ctx.deps, tenant.id, input.id, input.role);
      if (!user) throw new DomainError("NOT_FOUND", "not_found.user");
      return ok({ user }, "Role updated.");
    }),
});
