/**
 * Delivery addresses (docs/addresses.md). Every change runs in one
 * transaction that first locks the owner's user row, so concurrent creates, deletes and default
 * changes of one customer serialise: a customer with addresses always has exactly one default.
 * The partial unique index `addresses_one_default_per_user` backs this up in the database.
 */
import { Prisma, type TenantTx } from "@mteja/db";
import { DomainError } from "../shared/errors.js";
import type { AuthedCtx } from "./ports.js";
import { maxAddressesPerUser, type AddressFields } from "./schemas.js";

type AddressCtx = AuthedCtx;
type Tx = TenantTx;

interface Owner {
  tenantId: string;
  userId: string;
}

const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export const addressColumns = {
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

type AddressRow = Prisma.AddressGetPayload<{ select: typeof addressColumns }>;

/** Default first, then newest first: the order a checkout picker wants. */
const listOrder: Prisma.AddressOrderByWithRelationInput[] = [{ isDefault: "desc" }, { createdAt: "desc" }, { id: "desc" }];
const newestFirst: Prisma.AddressOrderByWithRelationInput[] = [{ createdAt: "desc" }, { id: "desc" }];

const notFound = () => new DomainError("NOT_FOUND", "not_found.address");

function ownerOf(ctx: AddressCtx): Owner {
  return { tenantId: ctx.auth.tid, userId: ctx.auth.sub };
}

function summaryView(row: AddressRow) {
  return {
    id: row.id,
    label: row.label,
    recipient_name: row.recipientName,
    phone: row.phone,
    street: row.street,
    county: row.county,
    town: row.town,
    is_default: row.isDefault,
  };
}

export function fullView(row: AddressRow) {
  return {
    ...summaryView(row),
    landmark: row.landmark,
    coordinates: row.lat !== null && row.lng !== null ? { lat: row.lat, lng: row.lng } : null,
  };
}

function editableColumns(input: AddressFields) {
  return {
    label: input.label,
    recipientName: input.recipient_name,
    phone: input.phone,
    street: input.street,
    county: input.county,
    town: input.town ?? null,
    landmark: input.landmark ?? null,
    lat: input.coordinates?.lat ?? null,
    lng: input.coordinates?.lng ?? null,
  };
}

export async function listAddresses(ctx: AddressCtx) {
  const rows = await ctx.db.address.findMany({ where: ownerOf(ctx), select: addressColumns, orderBy: listOrder });
  return { addresses: rows.map(summaryView) };
}

export async function createAddress(ctx: AddressCtx, input: AddressFields) {
  const owner = ownerOf(ctx);
  const row = await underOwnerLock(ctx, owner, async (tx) => {
    const existing = await tx.address.findMany({ where: owner, select: { isDefault: true, createdAt: true }, orderBy: newestFirst });
    if (existing.length >= maxAddressesPerUser) {
      throw new DomainError("VALIDATION_ERROR", { key: "limits.addresses", params: { max: maxAddressesPerUser } }, {
        details: [{ path: "(body)", message: { key: "detail.addresses_full", params: { max: maxAddressesPerUser } } }],
      });
    }
    const makeDefault = input.is_default === true || !existing.some((address) => address.isDefault);
    if (makeDefault) await clearDefault(tx, owner, ctx.deps.clock.now());
    // Millisecond timestamps can tie in a burst; a strictly increasing created_at per customer keeps
    // "newest first" and the promotion after deleting the default deterministic.
    const now = ctx.deps.clock.now();
    const latest = existing[0]?.createdAt;
    const createdAt = latest && latest >= now ? new Date(latest.getTime() + 1) : now;
    return tx.address.create({
      data: { ...owner, ...editableColumns(input), isDefault: makeDefault, createdAt, updatedAt: createdAt },
      select: addressColumns,
    });
  });
  return { address: fullView(row) };
}

/** PUT replaces every editable field; is_default: true moves the default here, false never leaves the customer without one. */
export async function updateAddress(ctx: AddressCtx, id: string, input: AddressFields) {
  const owner = ownerOf(ctx);
  if (!uuidPattern.test(id)) throw notFound();
  const row = await underOwnerLock(ctx, owner, async (tx) => {
    const current = await findOwned(tx, owner, id);
    const makeDefault = input.is_default === true && !current.isDefault;
    if (makeDefault) await clearDefault(tx, owner, ctx.deps.clock.now());
    return tx.address.update({
      where: { id: current.id },
      data: { ...editableColumns(input), isDefault: current.isDefault || makeDefault, updatedAt: ctx.deps.clock.now() },
      select: addressColumns,
    });
  });
  return { address: fullView(row) };
}

/** Deleting the default promotes the most recent remaining address. */
export async function removeAddress(ctx: AddressCtx, id: string): Promise<void> {
  const owner = ownerOf(ctx);
  if (!uuidPattern.test(id)) throw notFound();
  await underOwnerLock(ctx, owner, async (tx) => {
    const current = await findOwned(tx, owner, id);
    await tx.address.delete({ where: { id: current.id } });
    if (!current.isDefault) return;
    const successor = await tx.address.findFirst({ where: owner, select: { id: true }, orderBy: newestFirst });
    if (successor) await tx.address.update({ where: { id: successor.id }, data: { isDefault: true, updatedAt: ctx.deps.clock.now() } });
  });
}

export async function setDefaultAddress(ctx: AddressCtx, id: string) {
  const owner = ownerOf(ctx);
  if (!uuidPattern.test(id)) throw notFound();
  await underOwnerLock(ctx, owner, async (tx) => {
    const current = await findOwned(tx, owner, id);
    if (current.isDefault) return;
    // The old default is cleared before the new one is set: the unique index allows one at a time.
    await clearDefault(tx, owner, ctx.deps.clock.now());
    await tx.address.update({ where: { id: current.id }, data: { isDefault: true, updatedAt: ctx.deps.clock.now() } });
  });
  return { address: { id, is_default: true as const } };
}

async function findOwned(tx: Tx, owner: Owner, id: string) {
  const row = await tx.address.findFirst({ where: { id, ...owner }, select: { id: true, isDefault: true } });
  if (!row) throw notFound();
  return row;
}

async function clearDefault(tx: Tx, owner: Owner, now: Date): Promise<void> {
  await tx.address.updateMany({ where: { ...owner, isDefault: true }, data: { isDefault: false, updatedAt: now } });
}

const attempts = 4;

/**
 * Runs `work` in a transaction holding the owner's user row lock. FOR NO KEY UPDATE serialises the
 * customer's address changes without blocking foreign-key checks of other tables (sessions, payments).
 * A conflict the lock cannot prevent (a deadlock, a serialisation failure) is retried, not a 500.
 */
async function underOwnerLock<T>(ctx: AddressCtx, owner: Owner, work: (tx: Tx) => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await ctx.db.$transaction(
        async (tx) => {
          // Raw SQL is not scoped by the client: the tenant is named here.
          const locked = await tx.$queryRaw<{ id: string }[]>`
            SELECT id FROM users WHERE tenant_id = ${owner.tenantId} AND id = ${owner.userId}::uuid FOR NO KEY UPDATE`;
          if (locked.length === 0) throw new DomainError("INVALID_TOKEN");
          return work(tx);
        },
        { maxWait: 10_000, timeout: 15_000 },
      );
    } catch (error) {
      if (attempt >= attempts || !isTransientConflict(error)) throw error;
      await ctx.deps.clock.sleep(5 * attempt + ctx.deps.random.int(10));
    }
  }
}

function isTransientConflict(error: unknown): boolean {
  if (!(error instanceof Prisma.PrismaClientKnownRequestError)) return false;
  // P2034: write conflict or deadlock; P2002: the one-default index (the only unique key besides the id).
  return error.code === "P2034" || error.code === "P2002";
}
