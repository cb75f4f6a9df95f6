/**
 * The events a settlement writes (docs/webhooks.md#events), inside the transaction that changes the
 * status, so the feed and the rows can never disagree. Every path that settles a payment or a payout
 * (callback, STK query, reconciler) calls one of these with the row it wrote.
 */
import { intentsTable, paymentsTable, payoutsTable, Prisma, type MomoCallbackModel, type PaymentModel, type PayoutModel } from "@mteja/db";
import type { IntentSettled } from "../../intents/intent-settlement.js";
import { toIntentView } from "../../intents/views.js";
import { recordEvent, type EventIds, type NewEvent } from "../../webhooks/events.js";
import { paymentObject } from "./payment-object.js";
import { paymentsWithLatestReversal, tenantOfRow, type SettlementTx } from "./payment-records.js";
import { payoutObject } from "../payouts/payout-object.js";

const failedPaymentStatuses = new Set(["CANCELLED", "FAILED", "TIMEOUT"]);

/**
 * The event of a payment whose status just changed: SUCCESS → payment.succeeded; CANCELLED, FAILED,
 * TIMEOUT → payment.failed; undefined for any other status.
 */
export function paymentSettledEvent(payment: PaymentModel, at: Date): NewEvent | undefined {
  const type = payment.status === "SUCCESS" ? "payment.succeeded" : failedPaymentStatuses.has(payment.status) ? "payment.failed" : undefined;
  return type ? { tenantId: payment.tenantId, type, data: { payment: paymentObject(payment) }, at } : undefined;
}

/**
 * Writes the event of a payment whose status just changed (paymentSettledEvent), and what follows it
 * (recordIntentPaid).
 */
export async function recordPaymentSettled(tx: SettlementTx, payment: PaymentModel, at: Date, eventIds?: EventIds): Promise<void> {
  const event = paymentSettledEvent(payment, at);
  if (!event) return;
  await recordEvent(tx, event, eventIds);
  await recordIntentPaid(tx, payment, at, eventIds);
}

/**
 * A success that paid its intent (not a duplicate) also reports payment_intent.succeeded, with the
 * intent as the read API shows it; the payment's SUCCESS is applied once, so is this event. Written
 * after the payment's own event.
 */
export async function recordIntentPaid(tx: SettlementTx, payment: PaymentModel, at: Date, eventIds?: EventIds): Promise<void> {
  if (payment.status !== "SUCCESS" || !payment.intentId || payment.duplicate) return;
  const rows = await tx.$queryRaw<Record<string, unknown>[]>`
    SELECT ${intentsTable.columns} FROM payment_intents WHERE id = ${payment.intentId} AND tenant_id = ${payment.tenantId} AND status = 'succeeded'`;
  if (!rows[0]) return;
  const payments = await paymentsWithLatestReversal(tx, Prisma.sql`intent_id = ${payment.intentId} AND tenant_id = ${payment.tenantId}`);
  const intent = { ...intentsTable.fromRow(rows[0]), payments };
  await recordEvent(tx, { tenantId: payment.tenantId, type: "payment_intent.succeeded", data: { payment_intent: toIntentView(intent) }, at }, eventIds);
}

/**
 * An intent paid by its C2B payment held as a duplicate, when the prompt pending on its arrival ended
 * (settleIntentOf's `paidByHeld`): payment_intent.succeeded, written after the prompt's own update and
 * event so the intent shows that prompt settled.
 */
export async function recordIntentPaidByHeld(tx: SettlementTx, settled: IntentSettled, at: Date, eventIds?: EventIds): Promise<void> {
  if (settled.paidByHeld) await recordIntentPaid(tx, settled.paidByHeld, at, eventIds);
}

/**
 * The event of a payout whose status just changed: SUCCESS → payout.succeeded, FAILED → payout.failed;
 * undefined for UNKNOWN, which is not an outcome (nothing is sent).
 */
export function payoutSettledEvent(payout: PayoutModel, at: Date): NewEvent | undefined {
  const type = payout.status === "SUCCESS" ? "payout.succeeded" : payout.status === "FAILED" ? "payout.failed" : undefined;
  return type ? { tenantId: payout.tenantId, type, data: { payout: payoutObject(payout) }, at } : undefined;
}

/** Writes the event of a payout whose status just changed (payoutSettledEvent). */
export async function recordPayoutSettled(tx: SettlementTx, payout: PayoutModel, at: Date): Promise<void> {
  const event = payoutSettledEvent(payout, at);
  if (event) await recordEvent(tx, event);
}

/** A payment whose reversal just became SUCCESS: payment.reversed, the payment showing that reversal. */
export async function recordPaymentReversed(tx: SettlementTx, paymentId: string, at: Date): Promise<void> {
  const [payment] = await paymentsWithLatestReversal(tx, Prisma.sql`id = ${paymentId}::uuid`);
  if (!payment) throw new Error(`payment ${paymentId} of a settled reversal is missing`);
  await recordEvent(tx, { tenantId: payment.tenantId, type: "payment.reversed", data: { payment: paymentObject(payment) }, at });
}

/** A stored callback as its outcome was recorded: what callback.flagged reports. */
export type RecordedCallback = Pick<MomoCallbackModel, "id" | "kind" | "receivedAt" | "flagReason" | "paymentId" | "payoutId">;

/** A flagged callback that names a payment or payout (one that names nothing has no tenant to tell). */
export async function recordCallbackFlagged(tx: SettlementTx, callback: RecordedCallback, at: Date, eventIds?: EventIds): Promise<void> {
  const tenantId = callback.paymentId
    ? await tenantOfRow(tx, paymentsTable, callback.paymentId)
    : callback.payoutId
      ? await tenantOfRow(tx, payoutsTable, callback.payoutId)
      : undefined;
  if (!tenantId) return;
  await recordEvent(tx, {
    tenantId,
    type: "callback.flagged",
    data: {
      callback: {
        id: callback.id,
        kind: callback.kind,
        received_at: callback.receivedAt.toISOString(),
        flag_reason: callback.flagReason,
        payment_id: callback.paymentId,
        payout_id: callback.payoutId,
      },
    },
    at,
  }, eventIds);
}
