import type { PayoutModel } from "@mteja/db";
import { describe, expect, it } from "vitest";
import { decidePayoutOutcome, type PayoutOutcome } from "../../../src/payments/payouts/payout-settlement.js";

const now = new Date("2026-11-25T08:00:00.000Z");

function payout(overrides: Partial<PayoutModel> = {}): PayoutModel {
  return {
    id: "6f1c0e56-0000-4000-8000-000000000010",
    tenantId: "default",
    livemode: true,
    requestedBy: "6f1c0e56-0000-4000-8000-000000000002",
    phone: "254712345678",
    amount: 500,
    commandId: "BusinessPayment",
    remarks: "Refund",
    occasion: null,
    status: "PENDING",
    originatorConversationId: "orig-1",
    conversationId: "AG_1",
    transactionId: null,
    resultCode: null,
    resultDesc: null,
    receiverName: null,
    idempotencyKey: null,
    lastError: null,
    statusQueryAttempts: 0,
    nextStatusQueryAt: new Date("2026-11-25T08:05:00.000Z"),
    settledAt: null,
    createdAt: new Date("2026-11-25T07:59:00.000Z"),
    updatedAt: new Date("2026-11-25T07:59:00.000Z"),
    callbackTokenForm: "tenant",
    ...overrides,
  };
}

const paid: PayoutOutcome = {
  source: "result",
  status: "SUCCESS",
  resultCode: "0",
  resultDesc: "The service request is processed successfully.",
  conversationId: "AG_1",
  transactionId: "NLJ41HAY6Q",
  amount: 500,
  receiverName: "254712345678 - John Doe",
};
const timedOut: PayoutOutcome = { source: "timeout", status: "UNKNOWN", resultCode: null, resultDesc: "queue timeout" };
const unrecognised: PayoutOutcome = { source: "result", status: "UNKNOWN", resultCode: "9999", resultDesc: "odd" };

describe("the payout state machine (decidePayoutOutcome)", () => {
  it("settles PENDING → SUCCESS with Daraja's transaction id and receiver", () => {
    expect(decidePayoutOutcome(payout(), paid, now)).toEqual({
      outcome: "applied",
      statusChanged: true,
      changes: {
        status: "SUCCESS",
        resultCode: "0",
        resultDesc: paid.resultDesc,
        transactionId: "NLJ41HAY6Q",
        receiverName: "254712345678 - John Doe",
        lastError: null,
        nextStatusQueryAt: null,
        settledAt: now,
        updatedAt: now,
      },
    });
  });

  it("settles UNKNOWN → FAILED from a status result, and records a ConversationID it did not have", () => {
    const decision = decidePayoutOutcome(payout({ status: "UNKNOWN", conversationId: null }), { source: "status", status: "FAILED", resultCode: "2001", resultDesc: "Wrong credentials", conversationId: "AG_9" }, now);
    expect(decision).toMatchObject({ outcome: "applied", statusChanged: true, changes: { status: "FAILED", conversationId: "AG_9", settledAt: now } });
  });

  it("moves PENDING → UNKNOWN on a timeout and asks for a status query now", () => {
    expect(decidePayoutOutcome(payout(), timedOut, now)).toEqual({
      outcome: "applied",
      statusChanged: true,
      changes: { status: "UNKNOWN", lastError: "timed out at Daraja: queue timeout", nextStatusQueryAt: now, updatedAt: now },
    });
  });

  it("treats a second timeout on an UNKNOWN payout as a duplicate", () => {
    expect(decidePayoutOutcome(payout({ status: "UNKNOWN" }), timedOut, now)).toEqual({ outcome: "duplicate", statusChanged: false });
  });

  it("moves PENDING → UNKNOWN on an unrecognised code; an UNKNOWN payout keeps its scheduled query", () => {
    expect(decidePayoutOutcome(payout(), unrecognised, now)).toEqual({
      outcome: "accepted",
      statusChanged: true,
      changes: { status: "UNKNOWN", lastError: "unrecognised ResultCode 9999 (odd)", nextStatusQueryAt: now, updatedAt: now },
    });
    const again = decidePayoutOutcome(payout({ status: "UNKNOWN" }), unrecognised, now);
    expect(again.statusChanged).toBe(false);
    expect(again.changes).not.toHaveProperty("nextStatusQueryAt");
  });

  it("flags an amount that differs, whatever the status", () => {
    for (const status of ["PENDING", "SUCCESS"]) {
      expect(decidePayoutOutcome(payout({ status }), { ...paid, amount: 499 }, now)).toEqual({
        outcome: "flagged",
        statusChanged: false,
        flagReason: "amount mismatch: the payout is for 500, Daraja says 499",
      });
    }
  });

  it("flags a result for another ConversationID", () => {
    expect(decidePayoutOutcome(payout(), { ...paid, conversationId: "AG_2" }, now)).toEqual({
      outcome: "flagged",
      statusChanged: false,
      flagReason: "ConversationID mismatch: stored AG_1, callback AG_2",
    });
  });

  it("never changes SUCCESS or FAILED: the same status, a timeout or an unknown code is a duplicate", () => {
    for (const outcome of [paid, timedOut, unrecognised]) {
      expect(decidePayoutOutcome(payout({ status: "SUCCESS" }), outcome, now)).toEqual({ outcome: "duplicate", statusChanged: false });
    }
  });

  it("flags a result that conflicts with the settled status", () => {
    const decision = decidePayoutOutcome(payout({ status: "FAILED" }), paid, now);
    expect(decision).toEqual({ outcome: "flagged", statusChanged: false, flagReason: "conflicts with the settled status FAILED: ResultCode 0 says SUCCESS" });
  });
});
