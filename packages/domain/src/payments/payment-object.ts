/**
 * A payment as the server API shows it (`GET /api/v1/payments/:id`, an intent's `payments`, the
 * `data.payment` of events): one serialiser, so the three can never differ. A C2B payment (paid from
 * the M-Pesa menu) has its TransID and the payer's number masked as stored (payments/c2b/).
 */
import type { PaymentModel } from "@mteja/db";

export interface PaymentObject {
  id: string;
  channel: "stk" | "c2b";
  status: string;
  amount: number;
  phone: string;
  mpesa_receipt: string | null;
  checkout_request_id: string | null;
  trans_id: string | null;
  intent_id: string | null;
  duplicate: boolean;
  reversal: { status: string; reason: string | null; receipt: string | null; updated_at: string } | null;
  created_at: string;
  updated_at: string;
}

export function paymentObject(payment: PaymentModel): PaymentObject {
  return {
    id: payment.id,
    channel: payment.channel === "c2b" ? "c2b" : "stk",
    status: payment.status,
    amount: payment.amount,
    phone: payment.phone,
    mpesa_receipt: payment.mpesaReceipt,
    checkout_request_id: payment.checkoutRequestId,
    trans_id: payment.transId,
    intent_id: payment.intentId,
    duplicate: payment.duplicate,
    reversal: null,
    created_at: payment.createdAt.toISOString(),
    updated_at: payment.updatedAt.toISOString(),
  };
}
