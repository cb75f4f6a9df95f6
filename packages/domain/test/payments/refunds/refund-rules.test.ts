import { describe, expect, it } from "vitest";
import { DomainError } from "../../../src/shared/errors.js";
import { planRefund, type RefundablePayment } from "../../../src/payments/refunds/refund-rules.js";

const stk: RefundablePayment = { status: "SUCCESS", amount: 500, paidAmount: 500, mpesaReceipt: "SKC82PACB8", phone: "254712345678" };
const c2b: RefundablePayment = { ...stk, phone: "2547*****678" };

/** The code and the message key (or the detail's) a refusal carries. */
function refusal(plan: () => unknown): { code: string; key: unknown } {
  try {
    plan();
  } catch (error) {
    if (!(error instanceof DomainError)) throw error;
    const detail = error.details?.[0] as { message?: unknown } | undefined;
    const message = (detail?.message ?? error.text) as { key?: string } | string | undefined;
    return { code: error.code, key: typeof message === "object" ? message?.key : message };
  }
  throw new Error("planned a refund");
}

describe("what a refund of a payment is", () => {
  it("the whole payment, nothing refunded before, with a receipt: Daraja's Reversal; no amount means what remains", () => {
    expect(planRefund(stk, { requested: undefined, refundedBefore: 0 })).toEqual({ amount: 500, method: "reversal" });
    expect(planRefund(stk, { requested: 500, refundedBefore: 0 })).toEqual({ amount: 500, method: "reversal" });
    // A masked phone does not matter for the whole of it.
    expect(planRefund(c2b, { requested: undefined, refundedBefore: 0 })).toEqual({ amount: 500, method: "reversal" });
    // What Daraja says was paid is what is given back.
    expect(planRefund({ ...stk, amount: 499 }, { requested: undefined, refundedBefore: 0 })).toEqual({ amount: 500, method: "reversal" });
  });

  it("a part, or the rest after a part, or the whole without a receipt: B2C to the payer's phone", () => {
    expect(planRefund(stk, { requested: 200, refundedBefore: 0 })).toEqual({ amount: 200, method: "b2c" });
    expect(planRefund(stk, { requested: undefined, refundedBefore: 200 })).toEqual({ amount: 300, method: "b2c" });
    expect(planRefund({ ...stk, mpesaReceipt: null }, { requested: undefined, refundedBefore: 0 })).toEqual({ amount: 500, method: "b2c" });
  });

  it("never more than what remains (422 on amount)", () => {
    expect(refusal(() => planRefund(stk, { requested: 301, refundedBefore: 200 }))).toEqual({ code: "VALIDATION_ERROR", key: "detail.refund_over_remaining" });
    expect(refusal(() => planRefund(stk, { requested: undefined, refundedBefore: 500 }))).toEqual({ code: "VALIDATION_ERROR", key: "detail.refund_nothing_left" });
    expect(refusal(() => planRefund(stk, { requested: 1, refundedBefore: 500 }))).toEqual({ code: "VALIDATION_ERROR", key: "detail.refund_nothing_left" });
  });

  it("refuses what cannot be refunded (409 PAYMENT_NOT_REFUNDABLE)", () => {
    expect(refusal(() => planRefund({ ...stk, status: "PENDING" }, { requested: undefined, refundedBefore: 0 }))).toEqual({ code: "PAYMENT_NOT_REFUNDABLE", key: "refunds.not_succeeded" });
    expect(refusal(() => planRefund(c2b, { requested: 100, refundedBefore: 0 }))).toEqual({ code: "PAYMENT_NOT_REFUNDABLE", key: "refunds.masked_phone_part" });
    expect(refusal(() => planRefund({ ...c2b, phone: "hashed" }, { requested: undefined, refundedBefore: 100 }))).toEqual({ code: "PAYMENT_NOT_REFUNDABLE", key: "refunds.masked_phone_part" });
    expect(refusal(() => planRefund({ ...c2b, mpesaReceipt: null }, { requested: undefined, refundedBefore: 0 }))).toEqual({ code: "PAYMENT_NOT_REFUNDABLE", key: "refunds.no_receipt_no_phone" });
    expect(refusal(() => planRefund(stk, { requested: 9, refundedBefore: 0 }))).toEqual({ code: "PAYMENT_NOT_REFUNDABLE", key: "refunds.b2c_under_minimum" });
    expect(planRefund(stk, { requested: 10, refundedBefore: 0 })).toEqual({ amount: 10, method: "b2c" });
  });
});
