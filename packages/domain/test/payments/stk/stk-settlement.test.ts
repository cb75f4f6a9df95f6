import type { PaymentModel } from "@mteja/db";
import { describe, expect, it } from "vitest";
import { decideStkOutcome, type StkOutcome } from "../../../src/payments/stk/stk-settlement.js";

const now = new Date("2026-11-25T08:00:00.000Z");

function payment(overrides: Partial<PaymentModel> = {}): PaymentModel {
  return {
    id: "6f1c0e56-0000-4000-8000-000000000001",
    tenantId: "default",
    livemode: true,
    userId: "6f1c0e56-0000-4000-8000-000000000002",
    phone: "254712345678",
    amount: 100,
    reference: "ORDER-1",
    description: "Payment",
    status: "PENDING",
    checkoutRequestId: "ws_CO_1",
    merchantRequestId: "m-1",
    resultCode: null,
    resultDesc: null,
    mpesaReceipt: null,
    paidAmount: null,
    paidPhone: null,
    transactionDate: null,
    idempotencyKey: null,
    lastError: null,
    queryAttempts: 0,
    nextQueryAt: new Date("2026-11-25T08:01:00.000Z"),
    settledAt: null,
    createdAt: new Date("2026-11-25T07:59:00.000Z"),
    updatedAt: new Date("2026-11-25T07:59:00.000Z"),
    intentId: null,
    duplicate: false,
    channel: "stk",
    transId: null,
    c2bMatch: null,
    c2bNote: null,
    shortCode: null,
    callbackTokenForm: "tenant",
    ...overrides,
  };
}

const paidCallback: StkOutcome = {
  source: "callback",
  status: "SUCCESS",
  resultCode: "0",
  resultDesc: "The service request is processed successfully.",
  amount: 100,
  receipt: "NLJ7RT61SV",
  phone: "254712345678",
  transactionDate: "20261125080000",
};

describe("the STK payment state machine (decideStkOutcome)", () => {
  it("settles a pending payment with a success callback, receipt and all", () => {
    const decision = decideStkOutcome(payment(), paidCallback, now);
    expect(decision).toEqual({
      outcome: "applied",
      statusChanged: true,
      changes: {
        status: "SUCCESS",
        resultCode: "0",
        resultDesc: paidCallback.resultDesc,
        mpesaReceipt: "NLJ7RT61SV",
        paidAmount: 100,
        paidPhone: "254712345678",
        transactionDate: "20261125080000",
        lastError: null,
        nextQueryAt: null,
        settledAt: now,
        updatedAt: now,
      },
    });
  });

  it.each(["CANCELLED", "FAILED", "TIMEOUT"] as const)("settles a pending payment as %s, without receipt columns", (status) => {
    const decision = decideStkOutcome(payment(), { source: "query", status, resultCode: "1032", resultDesc: "Request cancelled by user" }, now);
    expect(decision.outcome).toBe("applied");
    expect(decision.statusChanged).toBe(true);
    expect(decision.changes).toMatchObject({ status, settledAt: now, nextQueryAt: null, lastError: null });
    expect(decision.changes).not.toHaveProperty("mpesaReceipt");
  });

  it("settles a success from a query without a receipt (a query carries none)", () => {
    const decision = decideStkOutcome(payment(), { source: "query", status: "SUCCESS", resultCode: "0", resultDesc: "ok" }, now);
    expect(decision).toMatchObject({ outcome: "applied", statusChanged: true, changes: { status: "SUCCESS" } });
    expect(decision.changes).not.toHaveProperty("mpesaReceipt");
  });

  it("flags an amount that differs from the payment's, whatever its status", () => {
    for (const status of ["PENDING", "SUCCESS"]) {
      const decision = decideStkOutcome(payment({ status }), { ...paidCallback, amount: 99 }, now);
      expect(decision).toEqual({ outcome: "flagged", statusChanged: false, flagReason: "amount mismatch: the payment is for 100, the callback says 99" });
    }
  });

  it("flags a success callback without a receipt", () => {
    const { receipt: _receipt, ...noReceipt } = paidCallback;
    expect(decideStkOutcome(payment(), noReceipt, now)).toEqual({ outcome: "flagged", statusChanged: false, flagReason: "ResultCode 0 without MpesaReceiptNumber" });
  });

  it("flags a success callback that does not say the amount", () => {
    expect(decideStkOutcome(payment(), { ...paidCallback, amount: undefined }, now)).toMatchObject({ outcome: "flagged", statusChanged: false });
  });

  it("keeps a payment pending on an unrecognised code and notes it; on PENDING it writes nothing", () => {
    const unknown = decideStkOutcome(payment(), { source: "query", status: "UNKNOWN", resultCode: "9999", resultDesc: "odd" }, now);
    expect(unknown).toEqual({ outcome: "accepted", statusChanged: false, changes: { lastError: "unrecognised ResultCode 9999 (odd)", updatedAt: now } });
    const processing = decideStkOutcome(payment(), { source: "query", status: "PENDING", resultCode: "4999", resultDesc: "still processing" }, now);
    expect(processing).toEqual({ outcome: "accepted", statusChanged: false, changes: undefined });
  });

  it("never changes a terminal payment: the same status again is a duplicate", () => {
    const settled = payment({ status: "SUCCESS", mpesaReceipt: "NLJ7RT61SV", paidAmount: 100 });
    expect(decideStkOutcome(settled, paidCallback, now)).toEqual({ outcome: "duplicate", statusChanged: false });
    expect(decideStkOutcome(payment({ status: "CANCELLED" }), { source: "query", status: "PENDING", resultCode: null, resultDesc: "" }, now)).toEqual({
      outcome: "duplicate",
      statusChanged: false,
    });
  });

  it("flags an outcome that conflicts with the settled status", () => {
    const decision = decideStkOutcome(payment({ status: "CANCELLED" }), paidCallback, now);
    expect(decision.outcome).toBe("flagged");
    expect(decision.statusChanged).toBe(false);
    expect(decision.flagReason).toBe(`conflicts with the settled status CANCELLED: ResultCode 0 (${paidCallback.resultDesc}) says SUCCESS`);
    expect(decision.changes).toBeUndefined();
  });

  it("adds the receipt a success callback brings after a query already settled the success, and marks the row updated", () => {
    const querySettled = payment({ status: "SUCCESS", resultCode: "0", settledAt: now });
    expect(decideStkOutcome(querySettled, paidCallback, now)).toEqual({
      outcome: "applied",
      statusChanged: false,
      changes: { mpesaReceipt: "NLJ7RT61SV", paidAmount: 100, paidPhone: "254712345678", transactionDate: "20261125080000", updatedAt: now },
    });
  });
});
