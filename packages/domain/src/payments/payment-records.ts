/** Reading and locking payment and payout rows, and the views the API returns. */
import { Prisma, type PaymentModel, type PayoutModel, type TenantTx } from "@mteja/db";
import type { PaymentStatus, PaymentView, PayoutStatus } from "./schemas.js";

/** An unscoped transaction: callbacks find the payment or payout Daraja names across tenants. */
export type Tx = Prisma.TransactionClient;

/**
 * Either kind of transaction, seen as the unscoped type, for writes that name their tenant themselves
 * (settling an intent, recording an event): at run time both are Prisma transactions and the scoped
 * one only adds the tenant filter, but Prisma's two client types do not assign to each other.
 */
export function asTransaction(tx: Tx | TenantTx | SettlementTx): Tx {
  return tx as Tx;
}

/**
 * What settling a locked payment writes, offered by both kinds of transaction: a tenant's (stkquery,
 * the reconciler's queries) and the unscoped one of callbacks (Prisma's two client types do not
 * assign to each other).
 */
export interface SettlementTx {
  payment: {
    findFirst(args: { where: Prisma.PaymentWhereInput; select: { id: true } }): PromiseLike<{ id: string } | null>;
    update(args: { where: { id: string }; data: Prisma.PaymentUpdateInput }): PromiseLike<PaymentModel>;
  };
}

/** A payment named with its tenant, for raw SQL on a tenant's transaction (which the scope does not reach). */
export interface PaymentKey {
  id: string;
  tenantId: string;
}

export const terminalPaymentStatuses: ReadonlySet<string> = new Set(["SUCCESS", "CANCELLED", "FAILED", "TIMEOUT"]);
export const terminalPayoutStatuses: ReadonlySet<string> = new Set(["SUCCESS", "FAILED"]);

export function isTerminalPayment(status: string): boolean {
  return terminalPaymentStatuses.has(status);
}

/** Every column of payments under its PaymentModel name, for a raw `SELECT … FOR UPDATE` that locks and reads in one statement. */
const paymentColumns = Prisma.sql`id::text AS "id", tenant_id AS "tenantId", user_id::text AS "userId", phone, amount, reference, description,
  status, checkout_request_id AS "checkoutRequestId", merchant_request_id AS "merchantRequestId", result_code AS "resultCode",
  result_desc AS "resultDesc", mpesa_receipt AS "mpesaReceipt", paid_amount AS "paidAmount", paid_phone AS "paidPhone",
  transaction_date AS "transactionDate", idempotency_key AS "idempotencyKey", last_error AS "lastError", query_attempts AS "queryAttempts",
  next_query_at AS "nextQueryAt", settled_at AS "settledAt", created_at AS "createdAt", updated_at AS "updatedAt", intent_id AS "intentId",
  duplicate, channel, trans_id AS "transId", c2b_match AS "c2bMatch", c2b_note AS "c2bNote", short_code AS "shortCode"`;

const orNullDate = (value: Date | string | null): Date | null => (value === null ? null : new Date(value));

/** A raw row as Prisma would have read it (timestamps as Date whatever the driver returned). */
function paymentFromRow(row: PaymentModel): PaymentModel {
  return {
    ...row,
    nextQueryAt: orNullDate(row.nextQueryAt),
    settledAt: orNullDate(row.settledAt),
    createdAt: new Date(row.createdAt),
    updatedAt: new Date(row.updatedAt),
  };
}

/** Locks the payment with this CheckoutRequestID (FOR UPDATE) and reads it, in one statement; undefined if none. */
export async function lockPaymentByCheckoutId(tx: Tx, checkoutRequestId: string): Promise<PaymentModel | undefined> {
  const rows = await tx.$queryRaw<PaymentModel[]>`SELECT ${paymentColumns} FROM payments WHERE checkout_request_id = ${checkoutRequestId} FOR UPDATE`;
  return rows[0] ? paymentFromRow(rows[0]) : undefined;
}

export async function lockPaymentById(tx: TenantTx, { id, tenantId }: PaymentKey): Promise<PaymentModel | undefined> {
  const rows = await tx.$queryRaw<{ id: string }[]>`SELECT id::text AS id FROM payments WHERE id = ${id}::uuid AND tenant_id = ${tenantId} FOR UPDATE`;
  return rows[0] ? ((await tx.payment.findUnique({ where: { id } })) ?? undefined) : undefined;
}

/** Locks the payout Daraja names, by OriginatorConversationID (ours, stored first) else by ConversationID. */
export async function lockPayout(tx: Tx, ids: { originatorConversationId?: string | undefined; conversationId?: string | undefined }): Promise<PayoutModel | undefined> {
  let rows: { id: string }[] = [];
  if (ids.originatorConversationId) {
    rows = await tx.$queryRaw`SELECT id::text AS id FROM payouts WHERE originator_conversation_id = ${ids.originatorConversationId} FOR UPDATE`;
  }
  if (rows.length === 0 && ids.conversationId) {
    rows = await tx.$queryRaw`SELECT id::text AS id FROM payouts WHERE conversation_id = ${ids.conversationId} FOR UPDATE`;
  }
  const id = rows[0]?.id;
  return id ? ((await tx.payout.findUnique({ where: { id } })) ?? undefined) : undefined;
}

export function paymentView(row: PaymentModel): PaymentView {
  return {
    id: row.id,
    checkoutRequestId: row.checkoutRequestId,
    merchantRequestId: row.merchantRequestId,
    userId: row.userId,
    phone: row.phone,
    amount: row.amount,
    reference: row.reference,
    description: row.description,
    status: row.status as PaymentStatus,
    resultCode: row.resultCode,
    resultDesc: row.resultDesc,
    mpesaReceipt: row.mpesaReceipt,
    paidAmount: row.paidAmount,
    transactionDate: row.transactionDate,
    createdAt: row.createdAt.toISOString(),
    settledAt: row.settledAt ? row.settledAt.toISOString() : null,
  };
}

export function payoutStatus(row: Pick<PayoutModel, "status">): PayoutStatus {
  return row.status as PayoutStatus;
}
