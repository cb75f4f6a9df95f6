/**
 * The refunds table (docs/mpesa.md#refunds): refunds of payments, by Daraja's Reversal or by B2C to the
 * payer, the reversal operation's reversals among them. Requests go through a tenant's client; a
 * callback's settlement takes raw SQL (`RawSql`, see payments.ts) and names the refund by Daraja's ids.
 * Which status may move to which, which refunds count against a payment and which stand, is the payments
 * area's rule: the statuses come from the caller.
 */
import { Prisma } from "../generated/prisma/client.js";
import type { RefundModel } from "../generated/prisma/models.js";
import { refundsTable, type RowChanges } from "../model-rows.js";
import type { RawSql } from "../raw-sql.js";
import type { TenantDb } from "../tenant-scope.js";
import { prismaOf, type AnyClient } from "./clients.js";
import { settleRow, type SettleWrites } from "./settle-row.js";
import { claimDueStatusQueries as claimDue, type StatusQueryClaim } from "./status-query-claim.js";

/** The ids a Daraja callback names a refund by. */
export interface RefundIds {
  originatorConversationId?: string | undefined;
  conversationId?: string | undefined;
  /** The refund's own receipt. */
  receipt?: string | undefined;
  /** The reversed payment's receipt: names the open reversal of that payment. */
  originalReceipt?: string | undefined;
}

/**
 * Locks (FOR UPDATE) the refund with Daraja's OriginatorConversationID, else its ConversationID, else
 * its receipt, else the latest reversal in one of `openStatuses` of the receipt it reverses.
 */
export async function lockByIds(
  tx: RawSql,
  ids: RefundIds,
  openStatuses: readonly string[],
): Promise<RefundModel | undefined> {
  let rows: Record<string, unknown>[] = [];
  if (ids.originatorConversationId) {
    rows = await tx.$queryRaw`SELECT ${refundsTable.columns} FROM refunds
                               WHERE originator_conversation_id = ${ids.originatorConversationId} FOR UPDATE`;
  }
  if (rows.length === 0 && ids.conversationId) {
    rows = await tx.$queryRaw`SELECT ${refundsTable.columns} FROM refunds
                               WHERE conversation_id = ${ids.conversationId} FOR UPDATE`;
  }
  if (rows.length === 0 && ids.receipt) {
    rows = await tx.$queryRaw`SELECT ${refundsTable.columns} FROM refunds WHERE receipt = ${ids.receipt} FOR UPDATE`;
  }
  const original = ids.originalReceipt ?? ids.receipt;
  if (rows.length === 0 && original) {
    rows = await tx.$queryRaw`
      SELECT ${refundsTable.columns} FROM refunds
       WHERE original_receipt = ${original} AND status IN (${Prisma.join(openStatuses)})
       ORDER BY created_at DESC LIMIT 1 FOR UPDATE`;
  }
  return rows[0] ? refundsTable.fromRow(rows[0]) : undefined;
}

/**
 * Writes a settlement's changes to the refund, held locked as read, the callback's outcome and the event in the same
 * statement (SettleWrites); the refund as it now is, or undefined when the outcome found its callback
 * handled and nothing was written.
 */
export function settle(
  tx: RawSql,
  refund: RefundModel,
  changes: RowChanges<RefundModel>,
  writes: SettleWrites = {},
): Promise<RefundModel | undefined> {
  return settleRow(tx, refundsTable, refund, changes, writes);
}

/** The refund a shop's earlier request of the same mode stored under this Idempotency-Key. */
export function findByIdempotencyKey(
  client: AnyClient,
  key: { tenantId: string; livemode: boolean; idempotencyKey: string },
): Promise<RefundModel | null> {
  return prismaOf(client).refund.findUnique({ where: { tenantId_livemode_idempotencyKey: key } });
}

/** A refund of the payment in one of `statuses`, the latest first. */
export function findOfPayment(
  client: AnyClient,
  paymentId: string,
  statuses: readonly string[],
): Promise<RefundModel | null> {
  return prismaOf(client).refund.findFirst({
    where: { paymentId, status: { in: [...statuses] } },
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
  });
}

/** The shillings of the payment's refunds, those in `excludingStatus` left out. */
export async function sumOfPayment(
  client: AnyClient,
  { paymentId, excludingStatus }: { paymentId: string; excludingStatus: string },
): Promise<number> {
  const sum = await prismaOf(client).refund.aggregate({
    _sum: { amount: true },
    where: { paymentId, status: { not: excludingStatus } },
  });
  return sum._sum.amount ?? 0;
}

/** The shillings of the tenant's refunds by `method` created since `since`, those in `excludingStatus` left out. */
export async function sumSince(
  client: AnyClient,
  of: { tenantId: string; method: string; excludingStatus: string; since: Date },
): Promise<number> {
  const sum = await prismaOf(client).refund.aggregate({
    _sum: { amount: true },
    where: {
      tenantId: of.tenantId,
      method: of.method,
      status: { not: of.excludingStatus },
      createdAt: { gte: of.since },
    },
  });
  return sum._sum.amount ?? 0;
}

/** A refund to store: every column a request sets. */
export type NewRefund = Prisma.RefundUncheckedCreateInput;

export function create(client: AnyClient, data: NewRefund): Promise<RefundModel> {
  return prismaOf(client).refund.create({ data });
}

export function get(client: AnyClient, id: string): Promise<RefundModel> {
  return prismaOf(client).refund.findUniqueOrThrow({ where: { id } });
}

/** The tenant's refund with this id; null when it has none. */
export function find(db: TenantDb, { id, tenantId }: { id: string; tenantId: string }): Promise<RefundModel | null> {
  return db.refund.findFirst({ where: { id, tenantId } });
}

/** One page of a keyset list (shared/keyset-page.ts): its conditions, order and size. */
export interface KeysetQuery {
  conditions: Prisma.RefundWhereInput[];
  orderBy: readonly Prisma.RefundOrderByWithRelationInput[];
  take: number;
}

/** The tenant's refunds of a payment, one keyset page of them. */
export function listOfPayment(
  db: TenantDb,
  { tenantId, paymentId }: { tenantId: string; paymentId: string },
  page: KeysetQuery,
): Promise<RefundModel[]> {
  return db.refund.findMany({
    where: { AND: [{ tenantId, paymentId }, ...page.conditions] },
    orderBy: [...page.orderBy],
    take: page.take,
  });
}

/** Stores Daraja's ids from a reversal's acknowledgement unless the refund has a ConversationID already. */
export async function storeDarajaIds(
  client: AnyClient,
  id: string,
  ids: { originatorConversationId: string; conversationId: string; updatedAt: Date },
): Promise<void> {
  await prismaOf(client).refund.updateMany({ where: { id, conversationId: null }, data: ids });
}

/** Stores the ConversationID of a B2C acknowledgement unless a callback stored one first. */
export async function storeConversationId(
  client: AnyClient,
  id: string,
  { conversationId, updatedAt }: { conversationId: string; updatedAt: Date },
): Promise<void> {
  const data = { conversationId, updatedAt };
  await prismaOf(client).refund.updateMany({ where: { id, conversationId: null }, data });
}

/** Writes `changes` if the refund is still in `status` (one of them, given several); whether it did. */
export async function updateIfStill(
  client: AnyClient,
  { id, status }: { id: string; status: string | readonly string[] },
  changes: Prisma.RefundUncheckedUpdateManyInput,
): Promise<boolean> {
  const where = { id, status: typeof status === "string" ? status : { in: [...status] } };
  return (await prismaOf(client).refund.updateMany({ where, data: changes })).count === 1;
}

/** A refund the reconciler claimed for a Transaction Status query. */
export interface ClaimedRefund {
  id: string;
  tenant_id: string;
  livemode: boolean;
  payment_id: string;
  method: string;
  originator_conversation_id: string | null;
  original_receipt: string | null;
  status_query_attempts: number;
  created_at: Date;
}

/** Claims the refunds whose status query is due (status-query-claim.ts). */
export function claimDueStatusQueries(client: AnyClient, claim: StatusQueryClaim): Promise<ClaimedRefund[]> {
  const returning = [
    "tenant_id",
    "livemode",
    "payment_id::text AS payment_id",
    "method",
    "originator_conversation_id",
    "original_receipt",
    "status_query_attempts",
    "created_at",
  ];
  return claimDue<ClaimedRefund>(client, "refunds", returning, claim);
}
