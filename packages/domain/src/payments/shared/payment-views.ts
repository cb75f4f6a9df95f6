/** What a payment's and a payout's status mean, and the views the API returns of them. */
import type { PaymentModel, PayoutModel } from "@mteja/db";
import type { PaymentStatus, PaymentView, PayoutStatus } from "./schemas.js";

export const terminalPaymentStatuses: ReadonlySet<string> = new Set(["SUCCESS", "CANCELLED", "FAILED", "TIMEOUT"]);
export const terminalPayoutStatuses: ReadonlySet<string> = new Set(["SUCCESS", "FAILED"]);

export function isTerminalPayment(status: string): boolean {
  return terminalPaymentStatuses.has(status);
}

export function paymentView(row: PaymentModel): PaymentView {
  return {
    id: row.id,
    livemode: row.livemode,
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
