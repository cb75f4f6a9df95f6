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
import { intents, payments, type PaymentIntentModel, type PaymentModel, type RawSql } from "@mteja/db";
import { isIntentStatus, settleIntentWithPayment, statusesAllowing, uniformMove, type SettledPaymentStatus } from "./intent-transitions.js";

const settledStatuses: ReadonlySet<string> = new Set(["SUCCESS", "CANCELLED", "FAILED", "TIMEOUT"]);

/** Payment columns the intent adds to the payment's own update. */
export type IntentPaymentColumns = { duplicate?: true };

export interface IntentSettled {
  /** Columns for the payment's own update. */
  columns: IntentPaymentColumns;
  /** The C2B payment, held as a duplicate while the ended prompt was pending, that now pays the intent. */
  paidByHeld?: PaymentModel;
  /** The intent as the payment's success moved it: its event is written from this, not read again (recordIntentPaid). */
  paidIntent?: PaymentIntentModel;
}

export async function settleIntentOf(
  tx: RawSql,
  payment: Pick<PaymentModel, "tenantId" | "intentId">,
  paymentStatus: unknown,
  now: Date,
): Promise<IntentSettled> {
  if (!payment.intentId || typeof paymentStatus !== "string" || !settledStatuses.has(paymentStatus)) return { columns: {} };
  const key = { intentId: payment.intentId, tenantId: payment.tenantId };
  // A success moves an intent that may take it in one statement (its update locks the row, as the
  // lock below would): settleIntentWithPayment would decide the same. Else (a duplicate success, no
  // such intent) the intent is locked and read, and the rules decide.
  const succeeded = paymentStatus === "SUCCESS" ? uniformMove("payment_succeeded") : undefined;
  const paidIntent = succeeded && (await intents.moveStatus(tx, key, { ...succeeded, at: now }));
  if (paidIntent) return { columns: {}, paidIntent };
  // Only an ended prompt looks for the intent's held C2B payment (intents.lockForSettlement).
  const locked = await intents.lockForSettlement(tx, key, { withHeldPayment: paymentStatus !== "SUCCESS" });
  const status = locked?.status;
  if (status === undefined || !isIntentStatus(status)) return { columns: {} };
  const heldId = locked?.heldPaymentId ?? null;
  let settlement = settleIntentWithPayment(status, paymentStatus as SettledPaymentStatus, heldId !== null);
  let paidByHeld: PaymentModel | undefined;
  if (settlement.paidByHeld && heldId !== null) {
    paidByHeld = await takeHeldPayment(tx, heldId, paymentStatus, now);
    // Given back since (a refund requested in between): the prompt's end only reopens the intent.
    if (!paidByHeld) settlement = settleIntentWithPayment(status, paymentStatus as SettledPaymentStatus);
  }
  if (settlement.next) {
    await intents.moveStatus(tx, key, { from: statusesAllowing(settlement.event), to: settlement.next, at: now });
  }
  return { columns: settlement.duplicate ? { duplicate: true } : {}, ...(paidByHeld ? { paidByHeld } : {}) };
}

/**
 * Makes the held payment count: locked first, then updated by a statement of its own, whose snapshot
 * sees a refund committed while this waited for the lock (a refund is requested under that lock).
 * Undefined when it is being given back after all.
 */
function takeHeldPayment(tx: RawSql, id: string, endedStatus: string, now: Date): Promise<PaymentModel | undefined> {
  const note = `held as a duplicate while a prompt was pending; paid the intent when that prompt ended ${endedStatus}`;
  return payments.takeHeldDuplicate(tx, { id, note, at: now });
}
