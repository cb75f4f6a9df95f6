/**
 * What a refund of a payment is (docs/mpesa.md#refunds), decided under the payment's row lock from the
 * payment as locked and the shillings its refunds that are not FAILED already take: how much, and by
 * which of Daraja's methods. A pure rule: it refuses with the domain's errors and touches nothing.
 *
 * - Only a SUCCESS payment is refundable (409 PAYMENT_NOT_REFUNDABLE).
 * - Without an amount, what remains; never more than what remains (422 on `amount`), so the refunds
 *   that are not FAILED never add up to more than the payment.
 * - Daraja's Reversal when the refund is the whole payment, nothing of it was refunded before and it has
 *   a receipt; otherwise B2C to the payer's phone, which needs the phone in full (a C2B payment's is
 *   stored masked: only the whole of it can be refunded, by reversal) and at least Daraja's B2C minimum.
 */
import { B2C_AMOUNT_MIN } from "@mteja/daraja";
import type { Text } from "@mteja/i18n";
import { DomainError } from "../../shared/errors.js";
import type { RefundMethod } from "./refund-object.js";

export interface RefundablePayment {
  status: string;
  amount: number;
  /** What Daraja says was paid, once settled; the refund is of this. */
  paidAmount: number | null;
  mpesaReceipt: string | null;
  /** As stored: `2547…` in full, or not (`2547*****678`, `hashed`, empty) for C2B and erased payers. */
  phone: string;
}

export interface RefundPlan {
  amount: number;
  method: RefundMethod;
}

/** A phone B2C can send to: Kenya's country code and nine digits, nothing masked. */
const FULL_PHONE = /^254\d{9}$/;

export function hasFullPhone(payment: Pick<RefundablePayment, "phone">): boolean {
  return FULL_PHONE.test(payment.phone);
}

/** The shillings a refund is of: what Daraja says was paid, else the amount asked. */
export function paidOf(payment: Pick<RefundablePayment, "amount" | "paidAmount">): number {
  return payment.paidAmount ?? payment.amount;
}

function notRefundable(message: Text): DomainError {
  return new DomainError("PAYMENT_NOT_REFUNDABLE", message);
}

function amountError(message: Text): DomainError {
  return new DomainError("VALIDATION_ERROR", undefined, { details: [{ path: "amount", message }] });
}

/**
 * The refund of `requested` shillings (undefined: what remains) of a payment whose refunds that are not
 * FAILED take `refundedBefore`; throws when there can be none.
 */
export function planRefund(
  payment: RefundablePayment,
  { requested, refundedBefore }: { requested: number | undefined; refundedBefore: number },
): RefundPlan {
  if (payment.status !== "SUCCESS") throw notRefundable("refunds.not_succeeded");
  const paid = paidOf(payment);
  const left = paid - refundedBefore;
  if (left <= 0) throw amountError("detail.refund_nothing_left");
  const amount = requested ?? left;
  if (amount > left) throw amountError({ key: "detail.refund_over_remaining", params: { left } });

  const whole = amount === paid && refundedBefore === 0;
  if (whole && payment.mpesaReceipt) return { amount, method: "reversal" };
  if (!hasFullPhone(payment)) {
    // With a receipt, only the whole of it could have gone back (by reversal).
    throw notRefundable(payment.mpesaReceipt ? "refunds.masked_phone_part" : "refunds.no_receipt_no_phone");
  }
  if (amount < B2C_AMOUNT_MIN) {
    throw notRefundable({ key: "refunds.b2c_under_minimum", params: { min: B2C_AMOUNT_MIN } });
  }
  return { amount, method: "b2c" };
}
