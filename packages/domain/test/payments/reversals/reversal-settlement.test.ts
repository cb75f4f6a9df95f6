import type { PaymentReversalModel } from "@mteja/db";
import { describe, expect, it } from "vitest";
import { decideReversalOutcome, type ReversalOutcome } from "../../../src/payments/reversals/reversal-settlement.js";

const now = new Date("2026-11-25T08:00:00.000Z");

function reversal(overrides: Partial<PaymentReversalModel> = {}): PaymentReversalModel {
  return {
    id: "6f1c0e56-0000-4000-8000-000000000020",
    tenantId: "default",
    paymentId: "6f1c0e56-0000-4000-8000-000000000021",
    amount: 200,
    originalReceipt: "SKC82PACB8",
    status: "PENDING",
    originatorConversationId: "dad6-4c34",
    conversationId: "AG_20211114_1",
    receipt: null,
    resultCode: null,
    resultDesc: null,
    requestedBy: "api_key:k",
    idempotencyKey: null,
    lastError: null,
    statusQueryAttempts: 0,
    nextStatusQueryAt: null,
    settledAt: null,
    createdAt: now,
    updatedAt: now,
    callbackTokenForm: "tenant",
    ...overrides,
  };
}

const success: ReversalOutcome = {
  source: "result",
  status: "SUCCESS",
  resultCode: "0",
  resultDesc: "The service request is processed successfully.",
  conversationId: "AG_20211114_1",
  receipt: "SKE52PAWR9",
  originalReceipt: "SKC82PACB8",
  amount: 200,
};

describe("the reversal state machine", () => {
  it("settles PENDING with a result: SUCCESS keeps the reversal's receipt; FAILED keeps Daraja's reason", () => {
    const done = decideReversalOutcome(reversal(), success, now);
    expect(done).toMatchObject({ outcome: "applied", statusChanged: true, changes: { status: "SUCCESS", receipt: "SKE52PAWR9", settledAt: now, nextStatusQueryAt: null } });
    const failed = decideReversalOutcome(reversal(), { source: "result", status: "FAILED", resultCode: "R000002", resultDesc: "The OriginalTransactionID is invalid." }, now);
    expect(failed).toMatchObject({ outcome: "applied", changes: { status: "FAILED", resultDesc: "The OriginalTransactionID is invalid." } });
    expect(failed.changes).not.toHaveProperty("receipt");
  });

  it("turns a time-out into UNKNOWN with a status query due now; a second time-out is a duplicate", () => {
    const timeout: ReversalOutcome = { source: "timeout", status: "UNKNOWN", resultCode: "1", resultDesc: "The service request timed out." };
    expect(decideReversalOutcome(reversal(), timeout, now)).toMatchObject({ outcome: "applied", changes: { status: "UNKNOWN", nextStatusQueryAt: now } });
    expect(decideReversalOutcome(reversal({ status: "UNKNOWN" }), timeout, now)).toEqual({ outcome: "duplicate", statusChanged: false });
    expect(decideReversalOutcome(reversal({ status: "UNKNOWN" }), { ...success, source: "status" }, now)).toMatchObject({ outcome: "applied", changes: { status: "SUCCESS" } });
  });

  it("never applies an amount, receipt or ConversationID that differs, nor a result contradicting a settled one", () => {
    expect(decideReversalOutcome(reversal(), { ...success, amount: 199 }, now)).toMatchObject({ outcome: "flagged", flagReason: expect.stringMatching(/amount mismatch/) });
    expect(decideReversalOutcome(reversal(), { ...success, originalReceipt: "OTHER00000" }, now)).toMatchObject({ outcome: "flagged", flagReason: expect.stringMatching(/receipt mismatch/) });
    expect(decideReversalOutcome(reversal(), { ...success, conversationId: "AG_other" }, now)).toMatchObject({ outcome: "flagged", flagReason: expect.stringMatching(/ConversationID/) });
    const settled = reversal({ status: "FAILED" });
    expect(decideReversalOutcome(settled, success, now)).toMatchObject({ outcome: "flagged", statusChanged: false });
    expect(decideReversalOutcome(reversal({ status: "SUCCESS" }), success, now)).toEqual({ outcome: "duplicate", statusChanged: false });
  });

  it("keeps Daraja's ids from a callback when the request's answer never brought them", () => {
    const unknown = reversal({ status: "UNKNOWN", originatorConversationId: null, conversationId: null });
    const decided = decideReversalOutcome(unknown, { ...success, originatorConversationId: "dad6-4c34" }, now);
    expect(decided.changes).toMatchObject({ conversationId: "AG_20211114_1", originatorConversationId: "dad6-4c34" });
  });
});
