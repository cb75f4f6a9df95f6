/** Finding and locking the reversal a Daraja callback names (its ids name no tenant). */
import { reversalsTable, type PaymentReversalModel } from "@mteja/db";
import type { SettlementTx } from "../kernel/payment-records.js";

export interface ReversalIds {
  originatorConversationId?: string | undefined;
  conversationId?: string | undefined;
  /** The reversal's own receipt. */
  receipt?: string | undefined;
  /** The reversed payment's receipt: names the standing (PENDING or UNKNOWN) reversal of that payment. */
  originalReceipt?: string | undefined;
}

/**
 * Locks (FOR UPDATE) the reversal with Daraja's OriginatorConversationID, else its ConversationID,
 * else its receipt, else the standing reversal of the receipt it reverses (a result that beat the
 * storing of the request's acknowledgement, or one whose request had an unknown outcome).
 */
export async function lockReversal(tx: SettlementTx, ids: ReversalIds): Promise<PaymentReversalModel | undefined> {
  let rows: Record<string, unknown>[] = [];
  if (ids.originatorConversationId) {
    rows = await tx.$queryRaw`SELECT ${reversalsTable.columns} FROM payment_reversals WHERE originator_conversation_id = ${ids.originatorConversationId} FOR UPDATE`;
  }
  if (rows.length === 0 && ids.conversationId) {
    rows = await tx.$queryRaw`SELECT ${reversalsTable.columns} FROM payment_reversals WHERE conversation_id = ${ids.conversationId} FOR UPDATE`;
  }
  if (rows.length === 0 && ids.receipt) {
    rows = await tx.$queryRaw`SELECT ${reversalsTable.columns} FROM payment_reversals WHERE receipt = ${ids.receipt} FOR UPDATE`;
  }
  const original = ids.originalReceipt ?? ids.receipt;
  if (rows.length === 0 && original) {
    rows = await tx.$queryRaw`
      SELECT ${reversalsTable.columns} FROM payment_reversals
       WHERE original_receipt = ${original} AND status IN ('PENDING', 'UNKNOWN')
       ORDER BY created_at DESC LIMIT 1 FOR UPDATE`;
  }
  return rows[0] ? reversalsTable.fromRow(rows[0]) : undefined;
}
