/**
 * The tenants (`tenants`, docs/tenants.md): each shop with its settings, a JSON document the domain
 * reads and writes whole (its M-Pesa account and sealed Daraja secrets among them). Tenants are no
 * tenant's data: these run on the unscoped client (the admin API, the tenant directory, start-up tasks).
 */
import type { Prisma } from "../generated/prisma/client.js";
import type { TenantModel } from "../generated/prisma/models.js";
import { isUniqueViolation, type RawSql } from "../raw-sql.js";
import { prismaOf, type AnyClient } from "./clients.js";

/** A tenant's columns the domain reads a `Tenant` from. */
export interface TenantRow {
  id: string;
  name: string;
  settings: unknown;
  active: boolean;
}

export function findTenant(db: AnyClient, id: string): Promise<TenantModel | null> {
  return prismaOf(db).tenant.findUnique({ where: { id } });
}

/** Whether the tenant exists (a tenant's client answers for its own tenant only). */
export async function tenantExists(db: AnyClient, id: string): Promise<boolean> {
  return (await prismaOf(db).tenant.count({ where: { id } })) > 0;
}

export function activeTenants(db: AnyClient): Promise<TenantModel[]> {
  return prismaOf(db).tenant.findMany({ where: { active: true } });
}

/** Every tenant, oldest first. */
export function allTenants(db: AnyClient): Promise<TenantModel[]> {
  return prismaOf(db).tenant.findMany({ orderBy: { createdAt: "asc" } });
}

/** The new tenant, or undefined when a tenant already has this id. */
export async function createTenant(
  db: AnyClient,
  tenant: { id: string; name: string; settings: object },
): Promise<TenantModel | undefined> {
  try {
    return await prismaOf(db).tenant.create({
      data: { id: tenant.id, name: tenant.name, settings: tenant.settings as Prisma.InputJsonValue },
    });
  } catch (error) {
    if (isUniqueViolation(error)) return undefined;
    throw error;
  }
}

/**
 * Creates the tenant unless one has its id. One INSERT … ON CONFLICT DO NOTHING: instances starting at
 * once on an empty database must not fail on each other's row.
 */
export async function ensureTenant(db: AnyClient, id: string, name: string): Promise<void> {
  await prismaOf(db).tenant.createMany({ data: [{ id, name }], skipDuplicates: true });
}

/** The tenant, locked until the transaction ends (so two changes each start from the other's result). */
export async function lockTenant(tx: AnyClient, id: string): Promise<TenantRow | undefined> {
  const [row] = await prismaOf(tx).$queryRaw<TenantRow[]>`
    SELECT id, name, settings, active FROM tenants WHERE id = ${id} FOR UPDATE`;
  return row;
}

export interface TenantChanges {
  name?: string;
  active?: boolean;
  /** The whole settings document, as it is to be stored. */
  settings?: object;
}

export function updateTenant(tx: AnyClient, id: string, changes: TenantChanges): Promise<TenantModel> {
  const { settings, ...columns } = changes;
  return prismaOf(tx).tenant.update({
    where: { id },
    data: { ...columns, ...(settings !== undefined ? { settings: settings as Prisma.InputJsonValue } : {}) },
  });
}

/** Every tenant's settings document, as stored. */
export function settingsOfEvery(db: AnyClient): Promise<{ id: string; settings: unknown }[]> {
  return prismaOf(db).tenant.findMany({ select: { id: true, settings: true } });
}

// --- C2B: whose short code, and which form of callback token speaks for it -----------------------

/** Ids of the active tenants whose settings name this C2B short code: at most 2 (one owner, or a clash). */
export async function activeIdsWithShortCode(sql: Pick<RawSql, "$queryRaw">, shortCode: string): Promise<string[]> {
  const rows = await sql.$queryRaw<{ id: string }[]>`
    SELECT id FROM tenants WHERE active AND settings->'momo'->>'shortcode' = ${shortCode} LIMIT 2`;
  return rows.map((row) => row.id);
}

/** The form of callback token the tenant's C2B URLs were last registered with ("shared" or "tenant"). */
export async function c2bCallbackTokenForm(sql: Pick<RawSql, "$queryRaw">, tenantId: string): Promise<string | undefined> {
  const rows = await sql.$queryRaw<{ form: string }[]>`SELECT c2b_callback_token_form AS form FROM tenants WHERE id = ${tenantId}`;
  return rows[0]?.form;
}

/** Records that the tenant's C2B URLs are now registered with its own callback token. */
export async function markC2bRegisteredWithTenantToken(sql: Pick<RawSql, "$executeRaw">, tenantId: string): Promise<void> {
  await sql.$executeRaw`UPDATE tenants SET c2b_callback_token_form = 'tenant' WHERE id = ${tenantId}`;
}

/**
 * Sorted ids of the active tenants whose C2B URLs were registered with the shared token and not since,
 * and that have a short code to be paid into: their own, or the default tenant's `platformShortcode`.
 */
export async function activeIdsOnSharedC2bToken(
  sql: Pick<RawSql, "$queryRaw">,
  platform: { defaultTenantId: string; platformShortcode: string | null },
): Promise<string[]> {
  const rows = await sql.$queryRaw<{ id: string }[]>`
    SELECT id FROM tenants
     WHERE active AND c2b_callback_token_form = 'shared'
       AND (coalesce(settings->'momo'->>'shortcode', '') <> ''
            OR (id = ${platform.defaultTenantId} AND ${platform.platformShortcode}::text IS NOT NULL))
     ORDER BY id`;
  return rows.map((row) => row.id);
}
