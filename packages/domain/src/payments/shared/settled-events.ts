/**
 * The events a settlement writes (docs/webhooks.md#events), inside the transaction that changes the
 * status, so the feed and the rows can never disagree. Every path that settles a payment or a payout
 * (callback, STK query, reconciler) calls one of these with the row it wrote. What follows for an
 * intent is the intents area's (intents/intent-events.ts), a payout's and a refund's events their flows'
 * (payouts/payout-events.ts, refunds/refund-events.ts): the shared folder knows none of them.
 */
import { callbacks, payments, payouts, type EventRow, type PaymentModel, type RawSql } from "@mteja/db";
import { eventBody, recordEvent, type EventIds, type NewEvent } from "../../webhooks/events.js";
import { paymentObject } from "./payment-object.js";

const failedPaymentStatuses = new Set(["CANCELLED", "FAILED", "TIMEOUT"]);

/**
 * The event of a payment whose status just changed: SUCCESS → payment.succeeded; CANCELLED, FAILED,
 * TIMEOUT → payment.failed; undefined for any other status.
 */
export function paymentSettledEvent(payment: PaymentModel, at: Date): NewEvent | undefined {
  const type = payment.status === "SUCCESS" ? "payment.succeeded" : failedPaymentStatuses.has(payment.status) ? "payment.failed" : undefined;
  return type ? { tenantId: payment.tenantId, livemode: payment.livemode, type, data: { payment: paymentObject(payment) }, at } : undefined;
}

/** The event as a settlement's own statement writes it (the repositories' `settle(…, { event })`), its id drawn now. */
export function eventRowOf(event: NewEvent, eventIds: EventIds): EventRow {
  const id = eventIds();
  return { id, tenantId: event.tenantId, livemode: event.livemode, type: event.type, body: eventBody(id, event), at: event.at };
}

/** A payment whose refund by reversal just became SUCCESS: payment.reversed, the payment showing that reversal. */
export async function recordPaymentReversed(tx: RawSql, paymentId: string, at: Date, eventIds?: EventIds): Promise<void> {
  const payment = await payments.withRefunds(tx, paymentId);
  if (!payment) throw new Error(`payment ${paymentId} of a settled reversal is missing`);
  await recordEvent(tx, { tenantId: payment.tenantId, livemode: payment.livemode, type: "payment.reversed", data: { payment: paymentObject(payment) }, at }, eventIds);
}

/** A flagged callback that names a payment or payout (one that names nothing has no tenant to tell). */
export async function recordCallbackFlagged(
  tx: RawSql,
  callback: callbacks.RecordedCallback,
  at: Date,
  eventIds?: EventIds,
): Promise<void> {
  const owner = callback.paymentId
    ? await payments.ownerOf(tx, callback.paymentId)
    : callback.payoutId
      ? await payouts.ownerOf(tx, callback.payoutId)
      : undefined;
  if (!owner) return;
  await recordEvent(tx, {
    ...owner,
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
