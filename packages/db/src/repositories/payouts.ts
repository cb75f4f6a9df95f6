/**
 * The payouts table (B2C payments, docs/mpesa.md). Reads and requests go through a tenant's client;
 * a callback's settlement takes raw SQL (`RawSql`, see payments.ts) and names the payout by Daraja's
 * ids. Which status may move to which is the payments area's rule: the guards come from the caller.
 */
import type { Prisma } from "../generated/prisma/client.js";
import type { PayoutModel } from "../generated/prisma/models.js";
import { payoutsTable, type RowChanges } from "../model-rows.js";
import type { UnscopedDb } from "../doors.js";
import { plainOf } from "../plain-access.js";
import type { RawSql } from "../raw-sql.js";
import type { TenantDb } from "../tenant-scope.js";
import { prismaOf, type AnyClient } from "./clients.js";
import { settleRow, type SettleWrites } from "./settle-row.js";
import { claimDueStatusQueries as claimDue, type StatusQueryClaim } from "./status-query-claim.js";

/** How many payouts of every tenant are in each status (/metrics). */
export async function countByStatus(db: UnscopedDb): Promise<{ status: string; count: number }[]> {
  const rows = await plainOf(db).sql.query("SELECT status, count(*)::int AS n FROM payouts GROUP BY status");
  return rows.map((row) => ({ status: String(row.status), count: Number(row.n) }));
}

/** The two ids Daraja names a payout by. */
export interface PayoutIds {
  originatorConversationId?: string | undefined;
  conversationId?: string | undefined;
}

/** Locks the payout Daraja names, by OriginatorConversationID (ours, stored first) else by ConversationID. */
export async function lockByIds(tx: RawSql, ids: PayoutIds): Promise<PayoutModel | undefined> {
  let rows: Record<string, unknown>[] = [];
  if (ids.originatorConversationId) {
    rows = await tx.$queryRaw`SELECT ${payoutsTable.columns} FROM payouts
                               WHERE originator_conversation_id = ${ids.originatorConversationId} FOR UPDATE`;
  }
  if (rows.length === 0 && ids.conversationId) {
    rows = await tx.$queryRaw`SELECT ${payoutsTable.columns} FROM payouts
                               WHERE conversation_id = ${ids.conversationId} FOR UPDATE`;
  }
  return rows[0] ? payoutsTable.fromRow(rows[0]) : undefined;
}

/**
 * Writes a settlement's changes to the payout, held locked as read (see SettleWrites: the event and the callback's
 * outcome in the same statement); the payout as it now is, or undefined when the outcome found its
 * callback handled and nothing was written.
 */
export function settle(
  tx: RawSql,
  payout: PayoutModel,
  changes: RowChanges<PayoutModel>,
  writes: SettleWrites = {},
): Promise<PayoutModel | undefined> {
  return settleRow(tx, payoutsTable, payout, changes, writes);
}

/** The tenant a payout belongs to and its mode (docs/test-mode.md); undefined when there is no such payout. */
export async function ownerOf(tx: RawSql, id: string): Promise<{ tenantId: string; livemode: boolean } | undefined> {
  const rows = await tx.$queryRaw<{ tenant_id: string; livemode: boolean }[]>`
    SELECT tenant_id, livemode FROM payouts WHERE id = ${id}::uuid`;
  const row = rows[0];
  return row ? { tenantId: row.tenant_id, livemode: row.livemode } : undefined;
}

/** The payout an admin's earlier request stored under this Idempotency-Key. */
export function findByIdempotencyKey(
  client: AnyClient,
  key: { tenantId: string; requestedBy: string; idempotencyKey: string },
): Promise<PayoutModel | null> {
  return prismaOf(client).payout.findUnique({ where: { tenantId_requestedBy_idempotencyKey: key } });
}

/** A payout to store: every column a request sets. */
export type NewPayout = Prisma.PayoutUncheckedCreateInput;

export function create(client: AnyClient, data: NewPayout): Promise<PayoutModel> {
  return prismaOf(client).payout.create({ data });
}

export function get(client: AnyClient, id: string): Promise<PayoutModel> {
  return prismaOf(client).payout.findUniqueOrThrow({ where: { id } });
}

/** Stores Daraja's ConversationID unless the payout has one already. */
export async function storeConversationId(
  client: AnyClient,
  id: string,
  { conversationId, updatedAt }: { conversationId: string; updatedAt: Date },
): Promise<void> {
  await prismaOf(client).payout.updateMany({
    where: { id, conversationId: null },
    data: { conversationId, updatedAt },
  });
}

/** Writes `changes` if the payout is still in `status` (one of them, given several); whether it did. */
export async function updateIfStill(
  client: AnyClient,
  { id, status }: { id: string; status: string | readonly string[] },
  changes: Prisma.PayoutUncheckedUpdateManyInput,
): Promise<boolean> {
  const where = { id, status: typeof status === "string" ? status : { in: [...status] } };
  return (await prismaOf(client).payout.updateMany({ where, data: changes })).count === 1;
}

/**
 * Locks the tenant's row (FOR UPDATE) for the rest of the transaction: payouts (and refunds sent by B2C)
 * stored meanwhile are counted one after the other, so two at once cannot both pass a limit on their sum.
 */
export async function lockTenantPayouts(tx: RawSql, tenantId: string): Promise<void> {
  await tx.$queryRaw`SELECT id FROM tenants WHERE id = ${tenantId} FOR UPDATE`;
}

/** The shillings of the tenant's payouts created since `since`, those in `excludingStatus` left out. */
export async function sumSince(
  client: AnyClient,
  { tenantId, excludingStatus, since }: { tenantId: string; excludingStatus: string; since: Date },
): Promise<number> {
  const today = await prismaOf(client).payout.aggregate({
    _sum: { amount: true },
    where: { tenantId, status: { not: excludingStatus }, createdAt: { gte: since } },
  });
  return today._sum.amount ?? 0;
}

/** One page of a keyset list (shared/keyset-page.ts): its conditions, order and size. */
export interface KeysetQuery {
  conditions: Prisma.PayoutWhereInput[];
  orderBy: readonly Prisma.PayoutOrderByWithRelationInput[];
  take: number;
}

/** The tenant's payouts, one keyset page of them. */
export function listPage(db: TenantDb, tenantId: string, page: KeysetQuery): Promise<PayoutModel[]> {
  return db.payout.findMany({
    where: { AND: [{ tenantId }, ...page.conditions] },
    orderBy: [...page.orderBy],
    take: page.take,
  });
}

export function findByOriginatorId(
  db: TenantDb,
  { tenantId, originatorConversationId }: { tenantId: string; originatorConversationId: string },
): Promise<PayoutModel | null> {
  return db.payout.findFirst({ where: { originatorConversationId, tenantId } });
}

/** A payout the reconciler claimed for a Transaction Status query. */
export interface ClaimedPayout {
  id: string;
  tenant_id: string;
  livemode: boolean;
  originator_conversation_id: string;
  status: string;
  status_query_attempts: number;
  created_at: Date;
}

/** Claims the payouts whose status query is due (status-query-claim.ts). */
export function claimDueStatusQueries(client: AnyClient, claim: StatusQueryClaim): Promise<ClaimedPayout[]> {
  return claimDue<ClaimedPayout>(
    client,
    "payouts",
    ["tenant_id", "livemode", "originator_conversation_id", "status", "status_query_attempts", "created_at"],
    claim,
  );
}
