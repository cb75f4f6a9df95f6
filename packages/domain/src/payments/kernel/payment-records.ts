/** Reading and locking payment and payout rows, and the views the API returns. */
import { Prisma, paymentsTable, payoutsTable, reversalsTable, type ModelTable, type PaymentModel, type PayoutModel, type RawSql, type TenantTx } from "@mteja/db";
import type { PaymentRow } from "./payment-object.js";
import type { PaymentStatus, PaymentView, PayoutStatus } from "./schemas.js";

/** An unscoped Prisma transaction (model queries across tenants). */
export type Tx = Prisma.TransactionClient;

/**
 * A tenant's transaction seen as the unscoped type, for model writes that name their tenant themselves
 * (expiring intents): at run time both are Prisma transactions and the scoped one only adds the
 * tenant filter, but Prisma's two client types do not assign to each other.
 */
export function asTransaction(tx: Tx | TenantTx): Tx {
  return tx as Tx;
}

/**
 * What settling a locked row writes with: raw SQL, offered alike by the plain transaction callbacks
 * run in (the database's raw transaction) and by Prisma's transactions, a tenant's (stkquery, the
 * reconciler's queries) or the unscoped one. The rows are named by id, so the tenant scope has nothing
 * to add.
 */
export type SettlementTx = RawSql;

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

/** A payment a callback names, locked, and whether the receipt the callback brings is already another payment's. */
export interface PaymentForCallback {
  payment: PaymentModel;
  receiptElsewhere: boolean;
}

/**
 * Locks the payment with this CheckoutRequestID (FOR UPDATE) and reads it, in one statement that also
 * looks for `receipt` on every other payment (the unique index spans tenants, so does the look);
 * undefined if there is no such payment.
 */
export function lockPaymentByCheckoutId(tx: SettlementTx, checkoutRequestId: string, receipt?: string): Promise<PaymentForCallback | undefined> {
  return paymentByCheckoutId(tx, checkoutRequestId, receipt, Prisma.sql`FOR UPDATE`);
}

/** lockPaymentByCheckoutId without the lock: for a callback's apply without locks, whose write checks the row is still as read. */
export function readPaymentByCheckoutId(sql: SettlementTx, checkoutRequestId: string, receipt?: string): Promise<PaymentForCallback | undefined> {
  return paymentByCheckoutId(sql, checkoutRequestId, receipt, Prisma.empty);
}

async function paymentByCheckoutId(tx: SettlementTx, checkoutRequestId: string, receipt: string | undefined, lock: Prisma.Sql): Promise<PaymentForCallback | undefined> {
  const rows = await tx.$queryRaw<Record<string, unknown>[]>`
    SELECT ${paymentsTable.columns},
           EXISTS (SELECT 1 FROM payments other WHERE other.mpesa_receipt = ${receipt ?? null} AND other.id <> payments.id) AS "receiptElsewhere"
      FROM payments WHERE checkout_request_id = ${checkoutRequestId} ${lock}`;
  if (!rows[0]) return undefined;
  const { receiptElsewhere, ...row } = rows[0];
  return { payment: paymentsTable.fromRow(row), receiptElsewhere: receiptElsewhere === true };
}

export async function lockPaymentById(tx: TenantTx, { id, tenantId }: PaymentKey): Promise<PaymentModel | undefined> {
  const rows = await tx.$queryRaw<Record<string, unknown>[]>`SELECT ${paymentsTable.columns} FROM payments WHERE id = ${id}::uuid AND tenant_id = ${tenantId} FOR UPDATE`;
  return rows[0] ? paymentsTable.fromRow(rows[0]) : undefined;
}

/** Locks the payout Daraja names, by OriginatorConversationID (ours, stored first) else by ConversationID. */
export async function lockPayout(tx: SettlementTx, ids: { originatorConversationId?: string | undefined; conversationId?: string | undefined }): Promise<PayoutModel | undefined> {
  let rows: Record<string, unknown>[] = [];
  if (ids.originatorConversationId) {
    rows = await tx.$queryRaw`SELECT ${payoutsTable.columns} FROM payouts WHERE originator_conversation_id = ${ids.originatorConversationId} FOR UPDATE`;
  }
  if (rows.length === 0 && ids.conversationId) {
    rows = await tx.$queryRaw`SELECT ${payoutsTable.columns} FROM payouts WHERE conversation_id = ${ids.conversationId} FOR UPDATE`;
  }
  return rows[0] ? payoutsTable.fromRow(rows[0]) : undefined;
}

/** The tenant a payment or payout belongs to; undefined when there is no such row. */
export async function tenantOfRow(tx: SettlementTx, table: ModelTable<PaymentModel> | ModelTable<PayoutModel>, id: string): Promise<string | undefined> {
  const rows = await tx.$queryRaw<{ tenant_id: string }[]>`SELECT tenant_id FROM ${table.table} WHERE id = ${id}::${Prisma.raw(table.idType)}`;
  return rows[0]?.tenant_id;
}

/**
 * The payments a condition names, oldest first, each with its latest reversal: what `include:
 * latestReversal` reads through Prisma, in two statements of raw SQL (for the events a settlement writes).
 */
export async function paymentsWithLatestReversal(tx: SettlementTx, condition: Prisma.Sql): Promise<PaymentRow[]> {
  const rows = await tx.$queryRaw<Record<string, unknown>[]>`SELECT ${paymentsTable.columns} FROM payments WHERE ${condition} ORDER BY created_at, id`;
  if (rows.length === 0) return [];
  const payments = rows.map((row) => paymentsTable.fromRow(row));
  const ids = Prisma.join(payments.map((payment) => Prisma.sql`${payment.id}::uuid`));
  const reversals = await tx.$queryRaw<Record<string, unknown>[]>`
    SELECT DISTINCT ON (payment_id) ${reversalsTable.columns} FROM payment_reversals
     WHERE payment_id IN (${ids}) ORDER BY payment_id, created_at DESC, id DESC`;
  const latest = new Map(reversals.map((row) => reversalsTable.fromRow(row)).map((reversal) => [reversal.paymentId, reversal]));
  return payments.map((payment) => {
    const reversal = latest.get(payment.id);
    return { ...payment, reversals: reversal ? [reversal] : [] };
  });
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
