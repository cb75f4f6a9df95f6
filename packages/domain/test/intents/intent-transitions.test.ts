/** The payment intent state machine (src/intents/intent-transitions.ts). */
import { describe, expect, it } from "vitest";
import {
  intentStatuses,
  isDueToExpire,
  nextIntentStatus,
  settleIntentWithPayment,
  statusesAllowing,
  uniformMove,
  type IntentEvent,
} from "../../src/intents/intent-transitions.js";

const events: IntentEvent[] = ["prompt_started", "payment_succeeded", "prompt_ended", "cancel", "expire"];

describe("payment intent transitions", () => {
  it("takes an intent through a failed prompt, a second prompt and its success", () => {
    expect(nextIntentStatus("requires_payment", "prompt_started")).toBe("processing");
    expect(nextIntentStatus("processing", "prompt_ended")).toBe("requires_payment");
    expect(nextIntentStatus("requires_payment", "prompt_started")).toBe("processing");
    expect(nextIntentStatus("processing", "payment_succeeded")).toBe("succeeded");
  });

  it("never changes a succeeded, cancelled or expired intent", () => {
    for (const status of ["succeeded", "cancelled", "expired"] as const) {
      for (const event of events) expect(nextIntentStatus(status, event)).toBeUndefined();
    }
  });

  it("cancels and expires only an intent that requires payment (never one that is processing)", () => {
    expect(nextIntentStatus("requires_payment", "cancel")).toBe("cancelled");
    expect(nextIntentStatus("requires_payment", "expire")).toBe("expired");
    expect(nextIntentStatus("processing", "cancel")).toBeUndefined();
    expect(nextIntentStatus("processing", "expire")).toBeUndefined();
    expect(nextIntentStatus("processing", "prompt_started")).toBeUndefined();
  });

  it("derives each update's WHERE status IN (...) from the same table", () => {
    expect(statusesAllowing("prompt_started")).toEqual(["requires_payment"]);
    expect(statusesAllowing("payment_succeeded")).toEqual(["requires_payment", "processing"]);
    expect(statusesAllowing("prompt_ended")).toEqual(["processing"]);
    expect(statusesAllowing("cancel")).toEqual(["requires_payment"]);
    expect(statusesAllowing("expire")).toEqual(["requires_payment"]);
    for (const event of events) {
      for (const status of intentStatuses) expect(statusesAllowing(event).includes(status)).toBe(nextIntentStatus(status, event) !== undefined);
    }
  });

  it("marks a success that finds the intent already paid or closed as a duplicate and leaves the intent", () => {
    expect(settleIntentWithPayment("processing", "SUCCESS")).toEqual({ event: "payment_succeeded", next: "succeeded", duplicate: false, paidByHeld: false });
    for (const status of ["succeeded", "cancelled", "expired"] as const) {
      expect(settleIntentWithPayment(status, "SUCCESS")).toEqual({ event: "payment_succeeded", next: undefined, duplicate: true, paidByHeld: false });
    }
  });

  it("returns a processing intent to requires_payment when its prompt fails, is cancelled or times out", () => {
    for (const payment of ["FAILED", "CANCELLED", "TIMEOUT"] as const) {
      expect(settleIntentWithPayment("processing", payment)).toEqual({ event: "prompt_ended", next: "requires_payment", duplicate: false, paidByHeld: false });
      expect(settleIntentWithPayment("succeeded", payment)).toEqual({ event: "prompt_ended", next: undefined, duplicate: false, paidByHeld: false });
    }
  });

  it("lets a success held while the prompt was pending pay the intent when that prompt fails, is cancelled or times out", () => {
    for (const payment of ["FAILED", "CANCELLED", "TIMEOUT"] as const) {
      expect(settleIntentWithPayment("processing", payment, true)).toEqual({ event: "payment_succeeded", next: "succeeded", duplicate: false, paidByHeld: true });
      // Only a prompt that ends takes it: an intent already paid, closed or waiting keeps its status.
      for (const status of ["requires_payment", "succeeded", "cancelled", "expired"] as const) {
        expect(settleIntentWithPayment(status, payment, true)).toMatchObject({ event: "prompt_ended", duplicate: false, paidByHeld: false });
      }
    }
    // A prompt that pays the intent itself leaves the held one a duplicate.
    expect(settleIntentWithPayment("processing", "SUCCESS", true)).toEqual({ event: "payment_succeeded", next: "succeeded", duplicate: false, paidByHeld: false });
  });

  it("is due to expire only while it requires payment, from expires_at on", () => {
    const expiresAt = new Date("2026-11-25T12:00:00.000Z");
    expect(isDueToExpire({ status: "requires_payment", expiresAt }, new Date("2026-11-25T11:59:59.999Z"))).toBe(false);
    expect(isDueToExpire({ status: "requires_payment", expiresAt }, expiresAt)).toBe(true);
    expect(isDueToExpire({ status: "processing", expiresAt }, new Date("2026-11-26T00:00:00.000Z"))).toBe(false);
  });
});

describe("uniformMove", () => {
  it("gives a success's one move: requires_payment or processing to succeeded", () => {
    expect(uniformMove("payment_succeeded")).toEqual({ from: ["requires_payment", "processing"], to: "succeeded" });
  });

  it("agrees with nextIntentStatus for every event and status", () => {
    for (const event of events) {
      const move = uniformMove(event);
      expect(move, event).toBeDefined();
      for (const status of intentStatuses) expect(nextIntentStatus(status, event), `${event} from ${status}`).toBe(move!.from.includes(status) ? move!.to : undefined);
    }
  });
});
