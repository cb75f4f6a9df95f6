import type { RefundModel } from "@mteja/db";
import { describe, expect, it } from "vitest";
import { decideRefundOutcome, type RefundOutcome } from "../../../src/payments/refunds/refund-settlement.js";

const now = new Date("2026-11-25T08:00:00.000Z");

function reversal(overrides: Partial<RefundModel> = {}): RefundModel {
  return {
    id: "6f1c0e56-0000-4000-8000-000000000020",
    tenantId: "default",
    livemode: true,
    paymentId: "6f1c0e56-0000-4000-8000-000000000021",
    amount: 200,
    method: "reversal",
    reason: null,
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

const success: RefundOutcome = {
  source: "result",
  status: "SUCCESS",
  resultCode: "0",
  resultDesc: "The service request is processed successfully.",
  conversationId: "AG_20211114_1",
  receipt: "SKE52PAWR9",
  originalReceipt: "SKC82PACB8",
  amount: 200,
};

describe("the refund state machine: a refund by reversal", () => {
  it("settles PENDING with a result: SUCCESS keeps the reversal's receipt; FAILED keeps Daraja's reason", () => {
    const done = decideRefundOutcome(reversal(), success, now);
    expect(done).toMatchObject({ outcome: "applied", statusChanged: true, changes: { status: "SUCCESS", receipt: "SKE52PAWR9", settledAt: now, nextStatusQueryAt: null } });
    const failed = decideRefundOutcome(reversal(), { source: "result", status: "FAILED", resultCode: "R000002", resultDesc: "The OriginalTransactionID is invalid." }, now);
    expect(failed).toMatchObject({ outcome: "applied", changes: { status: "FAILED", resultDesc: "The OriginalTransactionID is invalid." } });
    expect(failed.changes).not.toHaveProperty("receipt");
  });

  it("turns a time-out into UNKNOWN with a status query due now; a second time-out is a duplicate", () => {
    const timeout: RefundOutcome = { source: "timeout", status: "UNKNOWN", resultCode: "1", resultDesc: "The service request timed out." };
    expect(decideRefundOutcome(reversal(), timeout, now)).toMatchObject({ outcome: "applied", changes: { status: "UNKNOWN", nextStatusQueryAt: now } });
    expect(decideRefundOutcome(reversal({ status: "UNKNOWN" }), timeout, now)).toEqual({ outcome: "duplicate", statusChanged: false });
    expect(decideRefundOutcome(reversal({ status: "UNKNOWN" }), { ...success, source: "status" }, now)).toMatchObject({ outcome: "applied", changes: { status: "SUCCESS" } });
  });

  it("never applies an amount, receipt or ConversationID that differs, nor a result contradicting a settled one", () => {
    expect(decideRefundOutcome(reversal(), { ...success, amount: 199 }, now)).toMatchObject({ outcome: "flagged", flagReason: expect.stringMatching(/amount mismatch/) });
    expect(decideRefundOutcome(reversal(), { ...success, originalReceipt: "OTHER00000" }, now)).toMatchObject({ outcome: "flagged", flagReason: expect.stringMatching(/receipt mismatch/) });
    expect(decideRefundOutcome(reversal(), { ...success, conversationId: "AG_other" }, now)).toMatchObject({ outcome: "flagged", flagReason: expect.stringMatching(/ConversationID/) });
    const settled = reversal({ status: "FAILED" });
    expect(decideRefundOutcome(settled, success, now)).toMatchObject({ outcome: "flagged", statusChanged: false });
    expect(decideRefundOutcome(reversal({ status: "SUCCESS" }), success, now)).toEqual({ outcome: "duplicate", statusChanged: false });
  });

  it("keeps Daraja's ids from a callback when the request's answer never brought them", () => {
    const unknown = reversal({ status: "UNKNOWN", originatorConversationId: null, conversationId: null });
    const decided = decideRefundOutcome(unknown, { ...success, originatorConversationId: "dad6-4c34" }, now);
    expect(decided.changes).toMatchObject({ conversationId: "AG_20211114_1", originatorConversationId: "dad6-4c34" });
  });
});

describe("the refund state machine: a refund sent by B2C", () => {
  /** Our OriginatorConversationID from the start; Daraja's ConversationID once it answered. */
  const b2c = (overrides: Partial<RefundModel> = {}) =>
    reversal({ method: "b2c", amount: 60, originalReceipt: null, originatorConversationId: "9a1e-ours", conversationId: null, ...overrides });
  const paid: RefundOutcome = { source: "result", status: "SUCCESS", resultCode: "0", resultDesc: "ok", originatorConversationId: "9a1e-ours", conversationId: "AG_b2c_1", receipt: "SKB0000001", amount: 60 };

  it("settles with the B2C receipt and keeps Daraja's ConversationID when the acknowledgement never came", () => {
    expect(decideRefundOutcome(b2c({ status: "UNKNOWN" }), paid, now)).toMatchObject({
      outcome: "applied",
      statusChanged: true,
      changes: { status: "SUCCESS", receipt: "SKB0000001", conversationId: "AG_b2c_1" },
    });
    expect(decideRefundOutcome(b2c(), paid, now).changes).not.toHaveProperty("originatorConversationId");
  });

  it("flags an amount that differs and a reversed receipt where none was reversed", () => {
    expect(decideRefundOutcome(b2c(), { ...paid, amount: 600 }, now)).toMatchObject({ outcome: "flagged", flagReason: "amount mismatch: the refund is of 60, Daraja says 600" });
    expect(decideRefundOutcome(b2c(), { ...paid, originalReceipt: "SKC82PACB8" }, now)).toMatchObject({ outcome: "flagged", flagReason: expect.stringMatching(/receipt mismatch/) });
  });

  it("an unrecognised ResultCode makes it UNKNOWN (accepted) with a status query due now", () => {
    const odd: RefundOutcome = { source: "result", status: "UNKNOWN", resultCode: "5555", resultDesc: "odd" };
    expect(decideRefundOutcome(b2c(), odd, now)).toMatchObject({ outcome: "accepted", changes: { status: "UNKNOWN", nextStatusQueryAt: now } });
  });
});
