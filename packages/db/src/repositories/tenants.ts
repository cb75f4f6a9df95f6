/**
 * The tenants (`tenants`, docs/tenants.md): each shop with its settings, a JSON document the domain
 * reads and writes whole (its M-Pesa account and sealed Daraja secrets among them). Tenants are no
 * tenant's data: these run on the unscoped client (the admin API, the tenant directory, start-up tasks).
 */
import type { Prisma } from "../generated/prisma/client.js";
import type { TenantModel } from "../generated/prisma/models.js";
import { isUniqueViolation } from "../raw-sql.js";
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
