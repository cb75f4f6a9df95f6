/**
 * Delivery addresses (`addresses`, docs/addresses.md). A customer's changes run in one transaction that
 * first locks the customer's user row (`lockOwner`), so they serialise; the partial unique index
 * `addresses_one_default_per_user` backs up the one default per customer in the database.
 */
import { Prisma } from "../generated/prisma/client.js";
import { prismaOf, type AnyClient } from "./clients.js";

/** Whose addresses: the customer and their tenant. */
export interface AddressOwner {
  tenantId: string;
  userId: string;
}

const addressColumns = {
  id: true,
  label: true,
  recipientName: true,
  phone: true,
  street: true,
  county: true,
  town: true,
  landmark: true,
  lat: true,
  lng: true,
  isDefault: true,
} as const;

/** An address as the API shows it. */
export type AddressRow = Prisma.AddressGetPayload<{ select: typeof addressColumns }>;

/** What the customer writes: every editable column. */
export interface AddressFields {
  label: string;
  recipientName: string;
  phone: string;
  street: string;
  county: string;
  town: string | null;
  landmark: string | null;
  lat: number | null;
  lng: number | null;
}

const newestFirst: Prisma.AddressOrderByWithRelationInput[] = [{ createdAt: "desc" }, { id: "desc" }];

/**
 * Locks the owner's user row until the transaction ends; false when there is no such user. FOR NO KEY
 * UPDATE serialises the customer's address changes without blocking foreign-key checks of other tables
 * (sessions, payments).
 */
export async function lockOwner(tx: AnyClient, owner: AddressOwner): Promise<boolean> {
  // Raw SQL is not scoped by a tenant's client: the tenant is named here.
  const locked = await prismaOf(tx).$queryRaw<{ id: string }[]>`
    SELECT id FROM users WHERE tenant_id = ${owner.tenantId} AND id = ${owner.userId}::uuid FOR NO KEY UPDATE`;
  return locked.length > 0;
}

/** The owner's addresses, the default first, then newest first: the order a checkout picker wants. */
export function listDefaultFirst(db: AnyClient, owner: AddressOwner): Promise<AddressRow[]> {
  return prismaOf(db).address.findMany({
    where: owner,
    select: addressColumns,
    orderBy: [{ isDefault: "desc" }, ...newestFirst],
  });
}

/** The owner's addresses, newest first, as much as a create needs to know of them. */
export function defaultsNewestFirst(
  tx: AnyClient,
  owner: AddressOwner,
): Promise<{ isDefault: boolean; createdAt: Date }[]> {
  return prismaOf(tx).address.findMany({
    where: owner,
    select: { isDefault: true, createdAt: true },
    orderBy: newestFirst,
  });
}

/** The owner's address with this id, or null (another customer's is not theirs). */
export function findOwned(
  tx: AnyClient,
  owner: AddressOwner,
  id: string,
): Promise<{ id: string; isDefault: boolean } | null> {
  return prismaOf(tx).address.findFirst({ where: { id, ...owner }, select: { id: true, isDefault: true } });
}

/** The owner's newest address, or null when they have none. */
export function newestOf(tx: AnyClient, owner: AddressOwner): Promise<{ id: string } | null> {
  return prismaOf(tx).address.findFirst({ where: owner, select: { id: true }, orderBy: newestFirst });
}

export function createAddress(
  tx: AnyClient,
  owner: AddressOwner,
  fields: AddressFields,
  state: { isDefault: boolean; createdAt: Date },
): Promise<AddressRow> {
  return prismaOf(tx).address.create({
    data: { ...owner, ...fields, isDefault: state.isDefault, createdAt: state.createdAt, updatedAt: state.createdAt },
    select: addressColumns,
  });
}

/** Every editable column replaced. */
export function replaceFields(
  tx: AnyClient,
  id: string,
  fields: AddressFields,
  state: { isDefault: boolean; updatedAt: Date },
): Promise<AddressRow> {
  return prismaOf(tx).address.update({ where: { id }, data: { ...fields, ...state }, select: addressColumns });
}

export async function deleteAddress(tx: AnyClient, id: string): Promise<void> {
  await prismaOf(tx).address.delete({ where: { id } });
}

export async function markDefault(tx: AnyClient, id: string, now: Date): Promise<void> {
  await prismaOf(tx).address.update({ where: { id }, data: { isDefault: true, updatedAt: now } });
}

/** The owner has no default any more (before another is marked: the unique index allows one at a time). */
export async function clearDefault(tx: AnyClient, owner: AddressOwner, now: Date): Promise<void> {
  await prismaOf(tx).address.updateMany({
    where: { ...owner, isDefault: true },
    data: { isDefault: false, updatedAt: now },
  });
}

/** Every address of the user, newest first (the data export). */
export function allOf(tx: AnyClient, userId: string): Promise<AddressRow[]> {
  return prismaOf(tx).address.findMany({ where: { userId }, select: addressColumns, orderBy: newestFirst });
}

/** Every address of the user deleted (an erasure). */
export async function deleteAllOf(tx: AnyClient, userId: string): Promise<void> {
  await prismaOf(tx).address.deleteMany({ where: { userId } });
}

/**
 * Every address of `from` given to `to` (a guest's, when it signs in to an account: docs/sign-in.md).
 * `to` keeps its own default; `from`'s default stays one only when `to` has none. Answers how many.
 */
export async function moveAll(tx: AnyClient, move: { tenantId: string; from: string; to: string }): Promise<number> {
  // Raw SQL is not scoped by a tenant's client: the tenant is named here.
  return prismaOf(tx).$executeRaw`
    UPDATE addresses
       SET user_id = ${move.to}::uuid,
           is_default = is_default AND NOT EXISTS (
             SELECT 1 FROM addresses kept WHERE kept.tenant_id = ${move.tenantId} AND kept.user_id = ${move.to}::uuid AND kept.is_default)
     WHERE tenant_id = ${move.tenantId} AND user_id = ${move.from}::uuid`;
}

/**
 * A conflict the owner's lock cannot prevent, worth trying the change again for: a write conflict or
 * deadlock (P2034), or the one-default index (P2002, the only unique key besides the id).
 */
export function isTransientConflict(error: unknown): boolean {
  if (!(error instanceof Prisma.PrismaClientKnownRequestError)) return false;
  return error.code === "P2034" || error.code === "P2002";
}
