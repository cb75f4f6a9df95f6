/**
 * What a payment's settlement writes for its intent (docs/webhooks.md#events), in the transaction that
 * changes the payment's status, after the payment's own event: the flows settle the payment, then
 * hand it here (with settleIntentOf's answer, intent-settlement.ts).
 */
import { intents, type PaymentIntentModel, type PaymentModel, type RawSql } from "@mteja/db";
import { eventRowOf, paymentSettledEvent } from "../payments/shared/settled-events.js";
import { recordEvent, type EventIds, type NewEvent } from "../webhooks/events.js";
import type { IntentSettled } from "./intent-settlement.js";
import { toIntentView } from "./views.js";

/**
 * Writes the event of a payment whose status just changed (paymentSettledEvent), and what follows it
 * (recordIntentPaid).
 */
export async function recordPaymentSettled(
  tx: RawSql,
  payment: PaymentModel,
  at: Date,
  eventIds?: EventIds,
): Promise<void> {
  const event = paymentSettledEvent(payment, at);
  if (!event) return;
  await recordEvent(tx, event, eventIds);
  await recordIntentPaid(tx, payment, at, eventIds);
}

/**
 * A success that paid its intent (not a duplicate) also reports payment_intent.succeeded, with the
 * intent as the read API shows it; the payment's SUCCESS is applied once, so is this event. Written
 * after the payment's own event. `paidIntent`, the intent as this success moved it (settleIntentOf),
 * saves reading it again when the payment (as settled: no refund yet) is its only one — the usual
 * checkout, one prompt — which the event's own statement checks.
 */
export async function recordIntentPaid(
  tx: RawSql,
  payment: PaymentModel,
  at: Date,
  eventIds?: EventIds,
  paidIntent?: PaymentIntentModel,
): Promise<void> {
  if (payment.status !== "SUCCESS" || !payment.intentId || payment.duplicate) return;
  const key = { intentId: payment.intentId, tenantId: payment.tenantId };
  if (paidIntent && eventIds) {
    const alone = intentSucceeded({ ...paidIntent, payments: [{ ...payment, refunds: [] }] }, at);
    if (await intents.recordEventIfOnlyPayment(tx, key, payment.id, eventRowOf(alone, eventIds))) return;
  }
  const intent = await intents.findInStatus(tx, key, "succeeded");
  if (!intent) return;
  await recordEvent(tx, intentSucceeded(intent, at), eventIds);
}

function intentSucceeded(intent: intents.IntentWithPayments, at: Date): NewEvent {
  return { tenantId: intent.tenantId, livemode: intent.livemode, type: "payment_intent.succeeded", data: { payment_intent: toIntentView(intent) }, at };
}

/**
 * An intent paid by its C2B payment held as a duplicate, when the prompt pending on its arrival ended
 * (settleIntentOf's `paidByHeld`): payment_intent.succeeded, written after the prompt's own update and
 * event so the intent shows that prompt settled.
 */
export async function recordIntentPaidByHeld(
  tx: RawSql,
  settled: IntentSettled,
  at: Date,
  eventIds?: EventIds,
): Promise<void> {
  if (settled.paidByHeld) await recordIntentPaid(tx, settled.paidByHeld, at, eventIds);
}
