/**
 * The payment_reversals table (docs/mpesa.md#reversals). Requests go through a tenant's client; a
 * callback's settlement takes raw SQL (`RawSql`, see payments.ts) and names the reversal by Daraja's
 * ids. Which status may move to which, and which reversals stand, is the payments area's rule: the
 * statuses come from the caller.
 */
import { Prisma } from "../generated/prisma/client.js";
import type { PaymentReversalModel } from "../generated/prisma/models.js";
import { reversalsTable, type RowChanges } from "../model-rows.js";
import type { RawSql } from "../raw-sql.js";
import { prismaOf, type AnyClient } from "./clients.js";
import { settleRow, type SettleWrites } from "./settle-row.js";
import { claimDueStatusQueries as claimDue, type StatusQueryClaim } from "./status-query-claim.js";

/** The ids a Daraja callback names a reversal by. */
export interface ReversalIds {
  originatorConversationId?: string | undefined;
  conversationId?: string | undefined;
  /** The reversal's own receipt. */
  receipt?: string | undefined;
  /** The reversed payment's receipt: names the open reversal of that payment. */
  originalReceipt?: string | undefined;
}

/**
 * Locks (FOR UPDATE) the reversal with Daraja's OriginatorConversationID, else its ConversationID,
 * else its receipt, else the latest reversal in one of `openStatuses` of the receipt it reverses.
 */
export async function lockByIds(
  tx: RawSql,
  ids: ReversalIds,
  openStatuses: readonly string[],
): Promise<PaymentReversalModel | undefined> {
  let rows: Record<string, unknown>[] = [];
  if (ids.originatorConversationId) {
    rows = await tx.$queryRaw`SELECT ${reversalsTable.columns} FROM payment_reversals
                               WHERE originator_conversation_id = ${ids.originatorConversationId} FOR UPDATE`;
  }
  if (rows.length === 0 && ids.conversationId) {
    rows = await tx.$queryRaw`SELECT ${reversalsTable.columns} FROM payment_reversals
                               WHERE conversation_id = ${ids.conversationId} FOR UPDATE`;
  }
  if (rows.length === 0 && ids.receipt) {
    rows = await tx.$queryRaw`SELECT ${reversalsTable.columns} FROM payment_reversals
                               WHERE receipt = ${ids.receipt} FOR UPDATE`;
  }
  const original = ids.originalReceipt ?? ids.receipt;
  if (rows.length === 0 && original) {
    rows = await tx.$queryRaw`
      SELECT ${reversalsTable.columns} FROM payment_reversals
       WHERE original_receipt = ${original} AND status IN (${Prisma.join(openStatuses)})
       ORDER BY created_at DESC LIMIT 1 FOR UPDATE`;
  }
  return rows[0] ? reversalsTable.fromRow(rows[0]) : undefined;
}

/**
 * Writes a settlement's changes to the locked reversal, the callback's outcome in the same statement
 * (SettleWrites); the reversal as it now is, or undefined when the outcome found its callback handled
 * and nothing was written.
 */
export function settle(
  tx: RawSql,
  id: string,
  changes: RowChanges<PaymentReversalModel>,
  writes: SettleWrites = {},
): Promise<PaymentReversalModel | undefined> {
  return settleRow(tx, reversalsTable, id, changes, writes);
}

/** The reversal a caller's earlier request stored under this Idempotency-Key. */
export function findByIdempotencyKey(
  client: AnyClient,
  key: { tenantId: string; idempotencyKey: string },
): Promise<PaymentReversalModel | null> {
  return prismaOf(client).paymentReversal.findUnique({ where: { tenantId_idempotencyKey: key } });
}

/** A reversal of the payment in one of `statuses`. */
export function findOfPayment(
  client: AnyClient,
  paymentId: string,
  statuses: readonly string[],
): Promise<PaymentReversalModel | null> {
  return prismaOf(client).paymentReversal.findFirst({ where: { paymentId, status: { in: [...statuses] } } });
}

/** A reversal to store: every column a request sets. */
export type NewReversal = Prisma.PaymentReversalUncheckedCreateInput;

export function create(client: AnyClient, data: NewReversal): Promise<PaymentReversalModel> {
  return prismaOf(client).paymentReversal.create({ data });
}

export function get(client: AnyClient, id: string): Promise<PaymentReversalModel> {
  return prismaOf(client).paymentReversal.findUniqueOrThrow({ where: { id } });
}

/** Stores Daraja's ids from the request's acknowledgement unless the reversal has a ConversationID already. */
export async function storeDarajaIds(
  client: AnyClient,
  id: string,
  ids: { originatorConversationId: string; conversationId: string; updatedAt: Date },
): Promise<void> {
  await prismaOf(client).paymentReversal.updateMany({ where: { id, conversationId: null }, data: ids });
}

/** Writes `changes` if the reversal is still in `status` (one of them, given several); whether it did. */
export async function updateIfStill(
  client: AnyClient,
  { id, status }: { id: string; status: string | readonly string[] },
  changes: Prisma.PaymentReversalUncheckedUpdateManyInput,
): Promise<boolean> {
  const where = { id, status: typeof status === "string" ? status : { in: [...status] } };
  return (await prismaOf(client).paymentReversal.updateMany({ where, data: changes })).count === 1;
}

/** A reversal the reconciler claimed for a Transaction Status query. */
export interface ClaimedReversal {
  id: string;
  tenant_id: string;
  payment_id: string;
  originator_conversation_id: string | null;
  original_receipt: string;
  status_query_attempts: number;
  created_at: Date;
}

/** Claims the reversals whose status query is due (status-query-claim.ts). */
export function claimDueStatusQueries(client: AnyClient, claim: StatusQueryClaim): Promise<ClaimedReversal[]> {
  const returning = [
    "tenant_id",
    "payment_id::text AS payment_id",
    "originator_conversation_id",
    "original_receipt",
    "status_query_attempts",
    "created_at",
  ];
  return claimDue<ClaimedReversal>(client, "payment_reversals", returning, claim);
}
