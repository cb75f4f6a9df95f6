/**
 * Delivery addresses (docs/addresses.md). Every change runs in one
 * transaction that first locks the owner's user row, so concurrent creates, deletes and default
 * changes of one customer serialise: a customer with addresses always has exactly one default.
 * The partial unique index `addresses_one_default_per_user` backs this up in the database.
 */
import { addresses, type TenantTx } from "@mteja/db";
import { DomainError } from "../shared/errors.js";
import type { AuthedCtx } from "./ports.js";
import { maxAddressesPerUser, type AddressFields } from "./schemas.js";

type AddressCtx = AuthedCtx;
type Tx = TenantTx;

type Owner = addresses.AddressOwner;
type AddressRow = addresses.AddressRow;

const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

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

function editableColumns(input: AddressFields): addresses.AddressFields {
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
  const rows = await addresses.listDefaultFirst(ctx.db, ownerOf(ctx));
  return { addresses: rows.map(summaryView) };
}

export async function createAddress(ctx: AddressCtx, input: AddressFields) {
  const owner = ownerOf(ctx);
  const row = await underOwnerLock(ctx, owner, async (tx) => {
    const existing = await addresses.defaultsNewestFirst(tx, owner);
    if (existing.length >= maxAddressesPerUser) {
      throw new DomainError("VALIDATION_ERROR", { key: "limits.addresses", params: { max: maxAddressesPerUser } }, {
        details: [{ path: "(body)", message: { key: "detail.addresses_full", params: { max: maxAddressesPerUser } } }],
      });
    }
    const makeDefault = input.is_default === true || !existing.some((address) => address.isDefault);
    if (makeDefault) await addresses.clearDefault(tx, owner, ctx.deps.clock.now());
    // Millisecond timestamps can tie in a burst; a strictly increasing created_at per customer keeps
    // "newest first" and the promotion after deleting the default deterministic.
    const now = ctx.deps.clock.now();
    const latest = existing[0]?.createdAt;
    const createdAt = latest && latest >= now ? new Date(latest.getTime() + 1) : now;
    return addresses.createAddress(tx, owner, editableColumns(input), { isDefault: makeDefault, createdAt });
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
    if (makeDefault) await addresses.clearDefault(tx, owner, ctx.deps.clock.now());
    const state = { isDefault: current.isDefault || makeDefault, updatedAt: ctx.deps.clock.now() };
    return addresses.replaceFields(tx, current.id, editableColumns(input), state);
  });
  return { address: fullView(row) };
}

/** Deleting the default promotes the most recent remaining address. */
export async function removeAddress(ctx: AddressCtx, id: string): Promise<void> {
  const owner = ownerOf(ctx);
  if (!uuidPattern.test(id)) throw notFound();
  await underOwnerLock(ctx, owner, async (tx) => {
    const current = await findOwned(tx, owner, id);
    await addresses.deleteAddress(tx, current.id);
    if (!current.isDefault) return;
    const successor = await addresses.newestOf(tx, owner);
    if (successor) await addresses.markDefault(tx, successor.id, ctx.deps.clock.now());
  });
}

export async function setDefaultAddress(ctx: AddressCtx, id: string) {
  const owner = ownerOf(ctx);
  if (!uuidPattern.test(id)) throw notFound();
  await underOwnerLock(ctx, owner, async (tx) => {
    const current = await findOwned(tx, owner, id);
    if (current.isDefault) return;
    // The old default is cleared before the new one is set: the unique index allows one at a time.
    await addresses.clearDefault(tx, owner, ctx.deps.clock.now());
    await addresses.markDefault(tx, current.id, ctx.deps.clock.now());
  });
  return { address: { id, is_default: true as const } };
}

async function findOwned(tx: Tx, owner: Owner, id: string) {
  const row = await addresses.findOwned(tx, owner, id);
  if (!row) throw notFound();
  return row;
}

const attempts = 4;

/**
 * Runs `work` in a transaction holding the owner's user row lock (`addresses.lockOwner`). A conflict the
 * lock cannot prevent (a deadlock, a serialisation failure) is retried, not a 500.
 */
async function underOwnerLock<T>(ctx: AddressCtx, owner: Owner, work: (tx: Tx) => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await ctx.deps.db.transaction(ctx.db, 
        async (tx) => {
          if (!(await addresses.lockOwner(tx, owner))) throw new DomainError("INVALID_TOKEN");
          return work(tx);
        },
        { maxWait: 10_000, timeout: 15_000 },
      );
    } catch (error) {
      if (attempt >= attempts || !addresses.isTransientConflict(error)) throw error;
      await ctx.deps.clock.sleep(5 * attempt + ctx.deps.random.int(10));
    }
  }
}
