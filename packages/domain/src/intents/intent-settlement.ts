/**
 * The intent follows its payment (docs/payment-intents.md#statuses). Every path that settles a payment
 * (callbacks, STK queries, the reconciler's time-out and give-up, a refused push) calls
 * `settleIntentOf` in the transaction that writes the payment's new status, before that write: the
 * intent's row is locked, moved by the state machine, and a success that finds the intent already paid
 * comes back as `{ duplicate: true }` for the payment's own update (the partial unique index
 * payments_one_success_per_intent allows one success that counts).
 *
 * A prompt that fails, is cancelled or times out while a successful C2B payment of its intent was held
 * as a duplicate (it arrived while the prompt was pending) lets that payment pay the intent instead:
 * it stops being a duplicate here, and the caller writes `payment_intent.succeeded` after the prompt's
 * own update (recordIntentPaidByHeld), all in the same transaction. Looking for such a payment is part
 * of the intent's lock statement, so a prompt that ends without one costs no statement more.
 */
import { Prisma, paymentsTable, type PaymentModel, type RawSql } from "@mteja/db";
import { isIntentStatus, settleIntentWithPayment, statusesAllowing, type SettledPaymentStatus } from "./intent-transitions.js";

const settledStatuses: ReadonlySet<string> = new Set(["SUCCESS", "CANCELLED", "FAILED", "TIMEOUT"]);

/** Payment columns the intent adds to the payment's own update. */
export type IntentPaymentColumns = { duplicate?: true };

export interface IntentSettled {
  /** Columns for the payment's own update. */
  columns: IntentPaymentColumns;
  /** The C2B payment, held as a duplicate while the ended prompt was pending, that now pays the intent. */
  paidByHeld?: PaymentModel;
}

export async function settleIntentOf(
  tx: RawSql,
  payment: Pick<PaymentModel, "tenantId" | "intentId">,
  paymentStatus: unknown,
  now: Date,
): Promise<IntentSettled> {
  if (!payment.intentId || typeof paymentStatus !== "string" || !settledStatuses.has(paymentStatus)) return { columns: {} };
  const rows = await tx.$queryRaw<{ status: string; held_payment_id: string | null }[]>`
    SELECT status, ${paymentStatus === "SUCCESS" ? Prisma.sql`NULL` : heldPaymentOf} AS held_payment_id
      FROM payment_intents WHERE id = ${payment.intentId} AND tenant_id = ${payment.tenantId} FOR UPDATE`;
  const status = rows[0]?.status;
  if (status === undefined || !isIntentStatus(status)) return { columns: {} };
  const heldId = rows[0]?.held_payment_id ?? null;
  let settlement = settleIntentWithPayment(status, paymentStatus as SettledPaymentStatus, heldId !== null);
  let paidByHeld: PaymentModel | undefined;
  if (settlement.paidByHeld && heldId !== null) {
    paidByHeld = await takeHeldPayment(tx, heldId, paymentStatus, now);
    // Given back since (a reversal requested in between): the prompt's end only reopens the intent.
    if (!paidByHeld) settlement = settleIntentWithPayment(status, paymentStatus as SettledPaymentStatus);
  }
  if (settlement.next) {
    await tx.$executeRaw`
      UPDATE payment_intents SET status = ${settlement.next}, updated_at = ${now}
       WHERE id = ${payment.intentId} AND tenant_id = ${payment.tenantId} AND status IN (${Prisma.join(statusesAllowing(settlement.event))})`;
  }
  return { columns: settlement.duplicate ? { duplicate: true } : {}, ...(paidByHeld ? { paidByHeld } : {}) };
}

/**
 * The intent's earliest successful C2B payment held as a duplicate and not being given back (no
 * reversal that is not FAILED): a sub-select of the intent's lock statement.
 */
const heldPaymentOf = Prisma.sql`(
  SELECT p.id::text FROM payments p
   WHERE p.intent_id = payment_intents.id AND p.tenant_id = payment_intents.tenant_id
     AND p.channel = 'c2b' AND p.status = 'SUCCESS' AND p.duplicate
     AND NOT EXISTS (SELECT 1 FROM payment_reversals r WHERE r.payment_id = p.id AND r.status <> 'FAILED')
   ORDER BY p.created_at, p.id LIMIT 1)`;

/**
 * Makes the held payment count: locked first, then updated by a statement of its own, whose snapshot
 * sees a reversal committed while this waited for the lock (a reversal is requested under that lock).
 * Undefined when it is being given back after all.
 */
async function takeHeldPayment(tx: RawSql, id: string, endedStatus: string, now: Date): Promise<PaymentModel | undefined> {
  await tx.$queryRaw`SELECT 1 FROM payments WHERE id = ${id}::uuid FOR UPDATE`;
  const note = `held as a duplicate while a prompt was pending; paid the intent when that prompt ended ${endedStatus}`;
  const rows = await tx.$queryRaw<Record<string, unknown>[]>`
    UPDATE payments SET duplicate = false, c2b_note = ${note}, updated_at = ${now}
     WHERE id = ${id}::uuid AND duplicate AND status = 'SUCCESS'
       AND NOT EXISTS (SELECT 1 FROM payment_reversals r WHERE r.payment_id = payments.id AND r.status <> 'FAILED')
    RETURNING ${paymentsTable.columns}`;
  return rows[0] ? paymentsTable.fromRow(rows[0]) : undefined;
}
