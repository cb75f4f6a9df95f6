import { describe, expect, it } from "vitest";
import { matchC2bConfirmation, validateC2bPayment, type NamedIntent } from "../../src/intents/received-payment-matching.js";

const now = new Date("2026-11-25T08:00:00.000Z");
const later = new Date("2026-11-25T09:00:00.000Z");
const earlier = new Date("2026-11-25T07:00:00.000Z");
const intent = (overrides: Partial<NamedIntent> = {}): NamedIntent => ({ id: "pi_1", status: "requires_payment", amount: 750, expiresAt: later, ...overrides });

describe("validateC2bPayment", () => {
  it("accepts an intent waiting for payment, for its exact amount", () => {
    expect(validateC2bPayment(intent(), 750, now)).toEqual({ accept: true });
  });

  it("answers C2B00013 for another amount, C2B00012 for no intent or one that cannot be paid now", () => {
    expect(validateC2bPayment(intent(), 749, now)).toMatchObject({ accept: false, code: "C2B00013" });
    expect(validateC2bPayment(null, 750, now)).toMatchObject({ accept: false, code: "C2B00012" });
    for (const status of ["processing", "succeeded", "cancelled", "expired"]) {
      expect(validateC2bPayment(intent({ status }), 750, now)).toMatchObject({ accept: false, code: "C2B00012" });
    }
    expect(validateC2bPayment(intent({ expiresAt: earlier }), 750, now)).toMatchObject({ accept: false, code: "C2B00012", reason: "the payment intent is closed" });
  });
});

describe("matchC2bConfirmation", () => {
  it("pays an intent waiting for payment with the same amount", () => {
    expect(matchC2bConfirmation(intent(), 750, now)).toEqual({ match: "matched", intentId: "pi_1", duplicate: false });
  });

  it("is a flagged duplicate for an intent already paid or being paid with a prompt", () => {
    expect(matchC2bConfirmation(intent({ status: "succeeded" }), 750, now)).toMatchObject({ match: "matched", duplicate: true, note: expect.stringContaining("succeeded") });
    expect(matchC2bConfirmation(intent({ status: "processing" }), 750, now)).toMatchObject({ match: "matched", duplicate: true, note: expect.stringContaining("processing") });
  });

  it("is unmatched, flagged, for another amount or a fraction of a shilling", () => {
    expect(matchC2bConfirmation(intent(), 75, now)).toEqual({ match: "unmatched", note: "amount 75 differs from the intent's 750", flagged: true });
    expect(matchC2bConfirmation(intent({ status: "succeeded" }), 75, now)).toMatchObject({ match: "unmatched", flagged: true });
    expect(matchC2bConfirmation(intent(), 750.5, now)).toMatchObject({ match: "unmatched", flagged: true });
  });

  it("is unmatched, not flagged, without an intent or for a closed one", () => {
    expect(matchC2bConfirmation(null, 750, now)).toMatchObject({ match: "unmatched", flagged: false });
    expect(matchC2bConfirmation(intent({ status: "cancelled" }), 750, now)).toMatchObject({ match: "unmatched", flagged: false });
    expect(matchC2bConfirmation(intent({ expiresAt: earlier }), 750, now)).toMatchObject({ match: "unmatched", flagged: false });
  });
});
