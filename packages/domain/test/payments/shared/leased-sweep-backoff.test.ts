import { describe, expect, it } from "vitest";
import { backoffSeconds, defaultReconcileOptions } from "../../../src/payments/shared/leased-sweep.js";

describe("the reconciler's query backoff", () => {
  const policy = { baseBackoffSeconds: 10, maxBackoffSeconds: 300 };

  it("doubles from the base after each attempt, up to the cap", () => {
    expect([0, 1, 2, 3, 4, 5, 6, 7].map((attempts) => backoffSeconds(attempts, policy))).toEqual([10, 10, 20, 40, 80, 160, 300, 300]);
  });

  it("stays at the cap for any number of attempts", () => {
    expect(backoffSeconds(1_000_000, policy)).toBe(300);
    expect(Number.isFinite(backoffSeconds(Number.MAX_SAFE_INTEGER, defaultReconcileOptions))).toBe(true);
  });
});
