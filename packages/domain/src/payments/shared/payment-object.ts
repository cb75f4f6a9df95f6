/**
 * A payment as the server API shows it (`GET /api/v1/payments/:id`, an intent's `payments`, the
 * `data.payment` of events): one serialiser, so the three can never differ. A C2B payment (paid from
 * the M-Pesa menu) has its TransID and the payer's number masked as stored (payments/c2b/). Its
 * `reversal` (the latest refund by reversal) and `refunded_amount` come from its refunds, read with the
 * payment (the payments repository's `…WithRefunds`).
 */
import type { payments } from "@mteja/db";
import { reversalObject, type ReversalObject } from "./reversal-object.js";
import type { ServerPaymentView } from "./schemas.js";

/** A payment as read, with its refunds when the read asked for them (otherwise none are shown). */
export type PaymentRow = payments.PaymentWithRefunds;

export interface PaymentObject {
  id: string;
  livemode: boolean;
  channel: "stk" | "c2b";
  status: string;
  amount: number;
  phone: string;
  mpesa_receipt: string | null;
  checkout_request_id: string | null;
  trans_id: string | null;
  intent_id: string | null;
  duplicate: boolean;
  reversal: ReversalObject | null;
  refunded_amount: number;
  created_at: string;
  updated_at: string;
}

export function paymentObject(payment: PaymentRow): PaymentObject {
  return {
    id: payment.id,
    livemode: payment.livemode,
    channel: payment.channel === "c2b" ? "c2b" : "stk",
    status: payment.status,
    amount: payment.amount,
    phone: payment.phone,
    mpesa_receipt: payment.mpesaReceipt,
    checkout_request_id: payment.checkoutRequestId,
    trans_id: payment.transId,
    intent_id: payment.intentId,
    duplicate: payment.duplicate,
    reversal: reversalObject(payment.refunds),
    refunded_amount: refundedAmount(payment),
    created_at: payment.createdAt.toISOString(),
    updated_at: payment.updatedAt.toISOString(),
  };
}

/** The shillings given back: its refunds that succeeded (pending and unknown ones not yet). */
function refundedAmount(payment: PaymentRow): number {
  return (payment.refunds ?? []).filter((refund) => refund.status === "SUCCESS").reduce((sum, refund) => sum + refund.amount, 0);
}

/** The one payment serialiser, typed as the server API's schema declares it. */
export function toServerPaymentView(row: PaymentRow): ServerPaymentView {
  return paymentObject(row) as ServerPaymentView;
}
